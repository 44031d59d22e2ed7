//! `terse mcp`: a stdio MCP server behind terse.
//!
//! `terse mcp [--config FILE] [--format json|toon|compact]
//! [--format-argument] -- COMMAND [ARGS...]` speaks MCP's stdio transport
//! to the client on its own stdin and stdout, starts COMMAND with piped
//! stdin and stdout (its stderr is the proxy's), and relays every message
//! both ways, in order and full duplex. Each message goes through one
//! [`Session`], the rewrite `McpLayer` uses over
//! HTTP: `tools/call` results as TOON or compact lines, the optional
//! `format` argument, hint and `_meta` counts (see [`relay`]).
//!
//! Lifecycle (see [`child`]): when the client closes stdin, the server's
//! stdin is closed, it gets a grace period to exit, then SIGTERM, then
//! SIGKILL; when the server exits, the proxy sends on what it wrote (a
//! rewrite in flight is waited for, up to `--drain`) and exits with its
//! status (128 + the signal for a server killed by one); SIGINT, SIGTERM
//! and SIGHUP are forwarded to it. The server runs in a process group of
//! its own: signals, SIGTERM and the final SIGKILL reach every process in
//! it, so nothing the server started outlives the proxy.

pub mod child;
pub mod config;
pub mod relay;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use tower_terse::Format;
use tower_terse::mcp::{McpLayer, Session};

/// Arguments of `terse mcp`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The TOML config file: its `[mcp]` keys and `[[mcp.tool]]` templates,
    /// as the gateway reads them (`path` is not needed).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The format of tool results when a call names none (default:
    /// `default_format` under `[mcp]`, else toon: TOON where it costs fewer
    /// tokens, JSON otherwise); `json` leaves every result untouched.
    #[arg(long, value_parser = parse_format)]
    pub format: Option<Format>,
    /// Offer agents a `format` argument on every tool (stripped before the
    /// server sees it), as `format_argument = true` under `[mcp]`.
    #[arg(long)]
    pub format_argument: bool,
    /// Seconds the server gets to exit after its stdin closes, and again
    /// after SIGTERM, before it is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub grace: f64,
    /// The most seconds the proxy waits, once the server exited, for its
    /// last answers to be rewritten and reach the client.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub drain: f64,
    /// The MCP server to run, and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

fn parse_format(name: &str) -> Result<Format, String> {
    name.parse()
        .map_err(|err: tower_terse::format::UnknownFormat| err.to_string())
}

/// A config that does not load or a command that does not start.
const EXIT_CONFIG: u8 = 2;

/// Runs the proxy until the server exits; the exit code is the server's.
pub fn run(args: &Args) -> ExitCode {
    let layer = match layer(args) {
        Ok(layer) => layer,
        Err(message) => return fail(&message),
    };
    let timing = child::Timing {
        grace: Duration::try_from_secs_f64(args.grace).unwrap_or(Duration::from_secs(5)),
        drain: Duration::try_from_secs_f64(args.drain).unwrap_or(Duration::from_secs(30)),
    };
    // Warnings only unless `RUST_LOG` says otherwise: stdout is the MCP channel.
    crate::logging::init("warn");
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return fail(&format!("cannot start the runtime: {err}")),
    };
    let session = Session::new(&layer);
    let code = runtime.block_on(child::run(&args.command, session, timing));
    // Standard input is read on a blocking thread that cannot be cancelled.
    runtime.shutdown_background();
    match code {
        Ok(code) => ExitCode::from(code),
        Err(message) => fail(&message),
    }
}

/// The layer of `--config`, with the flags over it.
fn layer(args: &Args) -> Result<McpLayer, String> {
    let mut layer = config::layer(args.config.as_deref())?;
    if let Some(format) = args.format {
        layer = layer.default_format(format);
    }
    if args.format_argument {
        layer = layer.format_argument(true);
    }
    Ok(layer)
}

fn fail(message: &str) -> ExitCode {
    eprintln!("terse mcp: error: {}", one_line(message));
    ExitCode::from(EXIT_CONFIG)
}

/// The message on one line: runs of whitespace (a TOML error's line breaks
/// and caret lines) become one space, and any other control character is
/// escaped as the log escapes it, so a command or path named with an escape
/// sequence cannot style or rewrite the terminal it is reported on.
fn one_line(message: &str) -> String {
    crate::logging::one_line(&message.split_whitespace().collect::<Vec<_>>().join(" "))
}
