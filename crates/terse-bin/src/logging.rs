//! Logs to stderr for the long-running subcommands.

use std::io::IsTerminal as _;

/// Logs to stderr at `default` (`RUST_LOG` overrides, e.g.
/// `RUST_LOG=tower_terse=debug`), coloured only on a terminal.
pub fn init(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
