//! Shared helpers for the workspace integration tests.

pub mod api_values;
pub mod bomb;
pub mod corpus;
pub mod docs;
pub mod fixtures;
pub mod held_slot;
pub mod json_formats;
pub mod mcp_conformance;
pub mod mcp_everything;
pub mod near_tie;
pub mod prerequisite;
pub mod process;
pub mod python;
pub mod reference;
pub mod reports;
pub mod server;
pub mod values;
pub mod warnings;
