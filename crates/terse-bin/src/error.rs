//! The errors a subcommand reports, each printed as one line.

use std::fmt;
use std::path::PathBuf;

/// Why a subcommand failed.
#[derive(Debug)]
pub enum CliError {
    /// The input file (or standard input) could not be read.
    Read {
        /// `None` for standard input.
        path: Option<PathBuf>,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The input is not JSON.
    Json(String),
    /// The input is not valid TOON.
    Toon(terse_toon::DecodeError),
    /// Standard output was closed by its reader.
    BrokenPipe,
    /// Standard output could not be written.
    Write(std::io::Error),
    /// `terse report` could not reach or measure the service.
    Report(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Read {
                path: Some(path),
                source,
            } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            CliError::Read { path: None, source } => {
                write!(f, "cannot read standard input: {source}")
            }
            CliError::Json(message) => write!(f, "invalid JSON: {message}"),
            CliError::Toon(err) => err.fmt(f),
            CliError::BrokenPipe => f.write_str("standard output closed"),
            CliError::Write(err) => write!(f, "cannot write output: {err}"),
            CliError::Report(message) => f.write_str(message),
        }
    }
}

impl From<terse_toon::Error> for CliError {
    fn from(err: terse_toon::Error) -> Self {
        match err {
            terse_toon::Error::Json(err) => CliError::Json(err.to_string()),
            terse_toon::Error::Decode(err) => CliError::Toon(err),
            // The CLI encodes without a bound; any other error is reported as it reads.
            other => CliError::Report(other.to_string()),
        }
    }
}

impl From<serde_json::Error> for CliError {
    fn from(err: serde_json::Error) -> Self {
        CliError::Json(err.to_string())
    }
}
