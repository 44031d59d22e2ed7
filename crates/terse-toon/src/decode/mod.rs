//! TOON decoder: one pass over the bytes, line by line, straight into a
//! `serde_json::Value`.
//!
//! Errors carry a byte offset while parsing; the line and the column (in
//! characters) are worked out only when an error is returned.

mod header;
mod lines;
mod scalar;
mod structure;
mod table;
#[cfg(test)]
mod tests;

use crate::{DecodeError, DecodeOptions};
use serde_json::Value;

/// The deepest nesting of scopes (and of field groups in a header) the
/// decoder accepts; deeper input is an error, never a stack overflow.
pub(crate) const MAX_DEPTH: usize = 256;

const BOM: &str = "\u{feff}";

/// A decode error at a byte offset of the input.
#[derive(Debug)]
pub(super) struct Fail {
    pos: usize,
    msg: String,
}

impl Fail {
    fn new(pos: usize, msg: impl Into<String>) -> Self {
        Fail {
            pos,
            msg: msg.into(),
        }
    }
}

type PResult<T> = Result<T, Fail>;

/// Decodes TOON bytes into a JSON value; invalid UTF-8 is an error at its
/// position.
pub(crate) fn decode_bytes(input: &[u8], options: &DecodeOptions) -> Result<Value, DecodeError> {
    match std::str::from_utf8(input) {
        Ok(text) => decode_str(text, options),
        Err(err) => {
            let pos = err.valid_up_to();
            let msg = format!("invalid UTF-8 (byte 0x{:02x})", input[pos]);
            Err(locate(input, pos, msg))
        }
    }
}

/// Decodes TOON text into a JSON value.
pub(crate) fn decode_str(text: &str, options: &DecodeOptions) -> Result<Value, DecodeError> {
    if options.indent_size == 0 {
        return Err(DecodeError::new(1, 1, "indent size must be at least 1"));
    }
    let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
    structure::Parser::new(text, start, options)
        .root()
        .map_err(|fail| locate(text.as_bytes(), fail.pos, fail.msg))
}

/// The 1-based line and character column of byte offset `pos`.
fn locate(bytes: &[u8], pos: usize, msg: String) -> DecodeError {
    let pos = pos.min(bytes.len());
    let before = &bytes[..pos];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let mut column = 1 + before[line_start..]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count();
    if line_start == 0 && bytes.starts_with(BOM.as_bytes()) && pos >= BOM.len() {
        column -= 1;
    }
    DecodeError::new(line, column, msg)
}
