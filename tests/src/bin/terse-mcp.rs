//! `terse mcp` as a binary of this crate: the integration tests run the
//! command's own code (`terse_bin::mcp`, the arguments and the proxy that
//! `terse mcp` runs) as a real process between a real client and server.
//! Cargo hands integration tests the binaries of their own package only.

use clap::Parser;
use std::process::ExitCode;

/// `terse mcp`'s arguments, as `terse` parses them.
#[derive(Debug, Parser)]
#[command(name = "terse-mcp")]
struct Cli {
    #[command(flatten)]
    args: terse_bin::mcp::Args,
}

fn main() -> ExitCode {
    terse_bin::mcp::run(&Cli::parse().args)
}
