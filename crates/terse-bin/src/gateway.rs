//! `terse gateway`: the terse layer in front of any HTTP service.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use terse_gateway::{Config, serve, shutdown_signal};

use crate::health::Health;

/// Arguments of `terse gateway`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The service behind the gateway, `http://host:port[/prefix]`
    /// (default: `upstream` in the config file).
    #[arg(long)]
    upstream: Option<String>,
    /// Address to listen on (default: `listen` in the config file, else 127.0.0.1:3000).
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// Serve the token counters at `http://ADDR/metrics` in the Prometheus
    /// text format (default: `metrics_listen` in the config file, else off).
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<SocketAddr>,
    /// The TOML config file: layer settings, compact resources, an MCP endpoint.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// A config that does not load, or no upstream: the gateway does not start.
const EXIT_CONFIG: u8 = 2;

/// Runs the gateway until SIGTERM or Ctrl-C.
pub fn run(args: &Args) -> ExitCode {
    let config = match &args.config {
        Some(path) => match Config::load(path) {
            Ok(config) => config,
            Err(err) => return refuse(&err.to_string()),
        },
        None => Config::default(),
    };
    if config.mcp_layer().is_some() && config.mcp().is_none() {
        return refuse(
            "[mcp] needs `path` (the MCP endpoint's path on the upstream) for the gateway",
        );
    }
    let Some(url) = args.upstream.as_deref().or(config.upstream_url()) else {
        return refuse(
            "no upstream: pass --upstream http://host:port or set `upstream` under [gateway]",
        );
    };
    let upstream = match config.upstream(url) {
        Ok(upstream) => upstream,
        Err(err) => return refuse(&format!("--upstream: {err}")),
    };
    let listen = args
        .listen
        .or(config.listen())
        .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 3000)));
    // Held to the end: dropping it writes out the last request lines.
    let _flush = terse_bin::logging::init_buffered("info");
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return fail(&format!("cannot start the runtime: {err}")),
    };
    let metrics_listen = args.metrics_listen.or(config.metrics_listen());
    if metrics_listen.is_none() {
        // No recorder will be installed: the layers skip the counters'
        // keys (and the JSON token counts only they would use).
        tower_terse::proxy::record_metrics(false);
    }
    let health = Health::new(upstream.clone());
    let service = config.gateway_on(upstream, listen);
    let options = config.server_options();
    crate::malloc::trim_when_idle(config.memory_budget().clone());
    let code = runtime.block_on(async move {
        // Before the address is printed: whoever reads it may signal at once.
        let signal = shutdown_signal();
        let listener = match tokio::net::TcpListener::bind(listen).await {
            Ok(listener) => listener,
            Err(err) => return fail(&format!("cannot listen on {listen}: {err}")),
        };
        let metrics = match metrics_listen {
            Some(addr) => {
                match crate::metrics::start(addr, options.clone(), health.clone()).await {
                    Ok(bound) => Some(bound),
                    Err(err) => return fail(&err),
                }
            }
            None => None,
        };
        warm_counters();
        let bound = listener.local_addr().map_or(listen, |a| a);
        // Scripts and tests read the addresses (port 0 picks one) from these lines.
        println!("terse gateway listening on http://{bound}, upstream {url}");
        if let Some(metrics) = metrics {
            println!("token counters at http://{metrics}/metrics");
        }
        let _ = std::io::stdout().flush();
        let shutdown = async move {
            signal.await;
            health.stopping();
        };
        serve(listener, service, options, shutdown).await;
        ExitCode::SUCCESS
    });
    // What is left (connections past the shutdown timeout, a name lookup
    // on a blocking thread) must not hold the exit.
    runtime.shutdown_timeout(LEFTOVER_TIMEOUT);
    code
}

/// Builds the exact counters' tables on a thread of their own: a few
/// seconds of one core that the first near tie would otherwise wait for,
/// while the listener answers from the start.
fn warm_counters() {
    let warm = || {
        let started = std::time::Instant::now();
        tower_terse::tokens::warm();
        tracing::info!(
            "exact token counters ready in {} ms",
            started.elapsed().as_millis()
        );
    };
    if let Err(err) = std::thread::Builder::new()
        .name("terse-warm".into())
        .spawn(warm)
    {
        // Not fatal: the first text that needs the tables builds them.
        tracing::warn!("cannot warm the exact token counters: {err}");
    }
}

/// How long the runtime waits, after the drain, for tasks it cannot cancel.
const LEFTOVER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

fn refuse(message: &str) -> ExitCode {
    eprintln!("error: {}", terse_bin::logging::one_line(message));
    ExitCode::from(EXIT_CONFIG)
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {}", terse_bin::logging::one_line(message));
    ExitCode::FAILURE
}
