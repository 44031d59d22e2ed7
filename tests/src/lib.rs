//! Shared helpers for the workspace integration tests.

pub mod fixtures;
