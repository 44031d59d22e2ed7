//! Serve existing JSON APIs to LLM agents in fewer tokens.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod tokens;

pub use terse_toon as toon;
