//! `agent-api`: serve the personal-assistant API.

use std::path::PathBuf;

use clap::Parser;
use metrics_exporter_prometheus::PrometheusBuilder;

/// A personal-assistant API on SQLite, served to agents through the terse layer.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The SQLite database; created and seeded when it does not exist.
    #[arg(long, default_value = "./agent-api.db")]
    db: PathBuf,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: String,
    /// Serve plain JSON, without the terse layer (to stand behind `terse gateway`).
    #[arg(long)]
    no_terse: bool,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    if let Err(e) = run(args).await {
        eprintln!("agent-api: {e}");
        std::process::exit(1);
    }
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let db = agent_api::Db::open(&args.db)
        .map_err(|e| format!("cannot open {}: {e}", args.db.display()))?;
    let records = db.record_count()?;
    let listener = tokio::net::TcpListener::bind(&args.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    println!(
        "agent-api listening on http://{} ({records} records in {})",
        listener.local_addr()?,
        args.db.display()
    );
    let addr = listener.local_addr()?;
    if args.no_terse {
        // No layer: no formats, no counts here; the gateway adds both.
        println!("plain JSON, without the terse layer: put `terse gateway` in front of it, e.g.");
        println!(
            "  terse gateway --upstream http://{addr} --listen 127.0.0.1:3001 --config examples/gateway/agent-api.toml"
        );
        println!("try: curl 'http://{addr}/api/v1/events?limit=5'");
    } else {
        println!("try: curl 'http://{addr}/api/v1/events?limit=5&format=compact'");
        println!("token counters: curl http://{addr}/metrics");
    }
    // The layer's counters (responses, tokens served, tokens the JSON would
    // have cost), read at `/metrics`, outside the layer.
    let metrics = PrometheusBuilder::new().install_recorder()?;
    let app = if args.no_terse {
        agent_api::routes::plain_app(db)
    } else {
        agent_api::app(db)
    };
    let app = app.route(
        "/metrics",
        axum::routing::get(move || std::future::ready(metrics.render())),
    );
    // HTTP/1.1 and HTTP/2 over cleartext (h2c, prior knowledge) on one port,
    // with header, idle and send timeouts and a connection cap: the same
    // server as the gateway's, safe on an open network.
    let options = terse_gateway::ServerOptions::default();
    terse_gateway::serve(listener, app, options, terse_gateway::shutdown_signal()).await;
    Ok(())
}
