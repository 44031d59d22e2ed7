//! TOON decoder: one pass over the bytes, line by line, straight into a
//! `serde_json::Value` ([`build::Tree`]) or straight into JSON text
//! ([`writer::Writer`]), with the same parser and the same errors.
//!
//! Errors carry a byte offset while parsing; the line and the column (in
//! characters) are worked out only when an error is returned.

mod build;
mod fail;
mod header;
mod json;
mod lines;
mod scalar;
mod structure;
mod table;
#[cfg(test)]
mod tests;
mod writer;

use crate::{DecodeError, DecodeOptions};
use build::Build;
use fail::{Fail, PResult};
use serde_json::Value;

/// The deepest nesting of scopes (and of field groups in a header) the
/// decoder accepts; deeper input is an error, never a stack overflow.
pub(crate) const MAX_DEPTH: usize = 256;

const BOM: &str = "\u{feff}";

/// Decodes TOON bytes into a JSON value; invalid UTF-8 is an error at its
/// position.
pub(crate) fn decode_bytes(input: &[u8], options: &DecodeOptions) -> Result<Value, DecodeError> {
    let text = utf8(input)?;
    parse(text, options, build::Tree::new(options.strict)).map(|(value, _)| value)
}

/// Decodes TOON text into a JSON value.
pub(crate) fn decode_str(text: &str, options: &DecodeOptions) -> Result<Value, DecodeError> {
    parse(text, options, build::Tree::new(options.strict)).map(|(value, _)| value)
}

/// Decodes TOON bytes into JSON text of at most `limit` bytes, numbers
/// with the digits they were written with (see [`crate::decode_to_json`]).
/// The text is written as the document is read: no tree is built.
pub(crate) fn decode_exact(
    input: &[u8],
    options: &DecodeOptions,
    limit: usize,
) -> Result<Vec<u8>, crate::DecodeToJsonError> {
    let text = utf8(input).map_err(crate::DecodeToJsonError::Decode)?;
    // JSON runs longer than its TOON (quotes, braces, the keys rows
    // repeat): room for half as much again saves most regrowth.
    let capacity = input.len().saturating_add(input.len() / 2);
    let writer = writer::Writer::new(options.strict, limit, capacity);
    let ((), writer) = parse(text, options, writer).map_err(crate::DecodeToJsonError::Decode)?;
    if writer.over || writer.out.len() > limit {
        return Err(crate::DecodeToJsonError::OutputLimit { limit });
    }
    Ok(writer.out)
}

/// `input` as text, or an error at its first byte that is not UTF-8.
fn utf8(input: &[u8]) -> Result<&str, DecodeError> {
    std::str::from_utf8(input).map_err(|err| {
        let pos = err.valid_up_to();
        let msg = format!("invalid UTF-8 (byte 0x{:02x})", input[pos]);
        locate(input, pos, msg)
    })
}

/// Reads the document `text` into what `b` builds.
fn parse<B: Build>(
    text: &str,
    options: &DecodeOptions,
    b: B,
) -> Result<(B::Value, B), DecodeError> {
    if options.indent_size == 0 {
        return Err(DecodeError::new(1, 1, "indent size must be at least 1"));
    }
    let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let mut parser = structure::Parser::new(text, start, options, b);
    match parser.root() {
        Ok(value) => Ok((value, parser.b)),
        Err(fail) => Err(locate(text.as_bytes(), fail.pos, fail.msg)),
    }
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
