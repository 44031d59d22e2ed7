//! The calendar MCP server through the terse MCP layer: over HTTP with a
//! real client, and with the official Python SDK's client. One test binary,
//! one module per subject.

mod layer_http;
mod python_sdk;
