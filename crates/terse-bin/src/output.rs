//! Writing the result to standard output.

use crate::error::CliError;
use std::io::{ErrorKind, Write};

/// Writes `text` and a final newline to standard output in one piece, so that
/// nothing at all is written when a subcommand fails before this point.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    let result = stdout
        .write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                stdout.write_all(b"\n")
            }
        })
        .and_then(|()| stdout.flush());
    result.map_err(|err| match err.kind() {
        ErrorKind::BrokenPipe => CliError::BrokenPipe,
        _ => CliError::Write(err),
    })
}
