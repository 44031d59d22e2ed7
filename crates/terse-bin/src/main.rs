//! The `terse` command: TOON encode and decode, token statistics, the
//! gateway, and the stdio MCP proxy.
//!
//! Every subcommand reads one document from a file or from standard input and
//! writes its result to standard output. On bad input it prints exactly one
//! line to standard error, nothing to standard output, and exits with code 1.
//! `gateway` serves until SIGTERM or Ctrl-C; a config it cannot load stops
//! it before it listens, with one line and exit code 2. `mcp` runs until its
//! server exits, and exits with the server's status.

mod decode;
mod encode;
mod error;
mod gateway;
mod health;
mod input;
mod malloc;
mod metrics;
mod output;
mod stats;

use clap::{Parser, Subcommand};
use error::CliError;
use std::process::ExitCode;

/// Serve JSON to LLM agents in fewer tokens: TOON conversion and token counts.
#[derive(Debug, Parser)]
#[command(name = "terse", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One variant and one module per subcommand.
#[derive(Debug, Subcommand)]
enum Command {
    /// Convert JSON to TOON.
    Encode(encode::Args),
    /// Convert TOON to compact JSON.
    Decode(decode::Args),
    /// Compare bytes and tokens of a JSON document as JSON and as TOON.
    Stats(stats::Args),
    /// Measure a running service's list endpoints in tokens: JSON, TOON, compact.
    Report(terse_bin::report::Args),
    /// Serve an HTTP service through the terse layer: TOON and compact lines for any upstream.
    Gateway(gateway::Args),
    /// Run a stdio MCP server behind terse: its tool results as TOON or compact lines.
    Mcp(terse_bin::mcp::Args),
}

fn main() -> ExitCode {
    malloc::setup();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Gateway(args) => return gateway::run(&args),
        Command::Mcp(args) => return terse_bin::mcp::run(&args),
        Command::Encode(args) => encode::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Report(args) => {
            terse_bin::report::run(&args).map_err(|e| CliError::Report(e.to_string()))
        }
    };
    match result.and_then(|text| output::write_stdout(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`terse encode big.json | head`) is not an error.
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", terse_bin::logging::one_line(&err.to_string()));
            ExitCode::FAILURE
        }
    }
}
