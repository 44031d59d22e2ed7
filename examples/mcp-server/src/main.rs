//! `mcp-server [--listen ADDR] [--json-response] [--without-layer]`: serves the calendar MCP
//! server at `http://ADDR/mcp` and prints `listening on http://ADDR/mcp`
//! once bound (so `--listen 127.0.0.1:0` works for tests).

use std::net::SocketAddr;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(about = "A calendar MCP server whose tool results agents can read as TOON")]
struct Args {
    /// Address to listen on (loopback by default; port 0 picks a free one).
    #[arg(long, env = "MCP_SERVER_LISTEN", default_value = "127.0.0.1:8931")]
    listen: SocketAddr,
    /// Answer simple calls with `application/json` instead of an event
    /// stream (and without sessions).
    #[arg(long)]
    json_response: bool,
    /// Serve without the terse layer, to compare.
    #[arg(long)]
    without_layer: bool,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    let app = if args.without_layer {
        mcp_server::without_layer(args.json_response)
    } else {
        mcp_server::app(args.json_response)
    };
    // The gateway's server: header, idle and send timeouts, a connection cap.
    let options = terse_gateway::ServerOptions::default();
    terse_gateway::serve(listener, app, options, terse_gateway::shutdown_signal()).await;
    Ok(())
}
