//! Shared helpers for the workspace integration tests.

pub mod corpus;
pub mod fixtures;
pub mod server;
pub mod values;
