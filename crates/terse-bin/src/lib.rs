//! The library half of the `terse` command: the parts other crates can call.
//!
//! [`report`] measures a running service's list endpoints in tokens;
//! [`mcp`] runs a stdio MCP server behind terse.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod logging;
pub mod mcp;
pub mod report;
