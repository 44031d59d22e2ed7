//! Reading the one input document from a file or standard input.

use crate::error::CliError;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads all of `path`, or all of standard input when `path` is `None` or `-`.
pub fn read_bytes(path: Option<&Path>) -> Result<Vec<u8>, CliError> {
    match path {
        Some(path) if path != Path::new("-") => {
            std::fs::read(path).map_err(|source| CliError::Read {
                path: Some(path.to_path_buf()),
                source,
            })
        }
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|source| CliError::Read { path: None, source })?;
            Ok(bytes)
        }
    }
}

/// Reads a JSON document as text; bytes that are not UTF-8 are invalid JSON.
pub fn read_json_text(path: Option<&PathBuf>) -> Result<String, CliError> {
    let bytes = read_bytes(path.map(PathBuf::as_path))?;
    String::from_utf8(bytes).map_err(|err| {
        let at = err.utf8_error().valid_up_to();
        CliError::Json(format!("input is not valid UTF-8 (byte {})", at + 1))
    })
}
