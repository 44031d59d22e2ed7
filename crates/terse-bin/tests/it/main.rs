//! `terse` as a process: its subcommands, the gateway it starts, its health
//! endpoints, `terse mcp` and its request log. One test binary, one module
//! per subject.

mod support;

mod cli;
mod gateway;
mod health;
mod mcp;
mod quick_start;
mod request_log;
mod rss;
