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

/// Decodes TOON bytes into JSON text of at most `limit` bytes, numbers
/// with the digits they were written with (see [`crate::decode_to_json`]).
pub(crate) fn decode_exact(
    input: &[u8],
    options: &DecodeOptions,
    limit: usize,
) -> Result<Vec<u8>, crate::DecodeToJsonError> {
    scalar::record_exact(true);
    let decoded = decode_bytes(input, options);
    let exact = scalar::record_exact(false);
    let value = decoded.map_err(crate::DecodeToJsonError::Decode)?;
    let mut out = Vec::new();
    write_json(&value, &exact, &mut out, limit)
        .map_err(|()| crate::DecodeToJsonError::OutputLimit { limit })?;
    Ok(out)
}

/// Writes `value` as JSON into `out`, without recursion; the strings whose
/// text is at an address in `exact` are numbers, written as they are.
fn write_json(
    value: &Value,
    exact: &std::collections::HashSet<usize>,
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<(), ()> {
    enum Step<'v> {
        Value(&'v Value),
        Raw(&'static [u8]),
        Key(&'v str),
    }
    let mut stack = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Raw(text) => out.extend_from_slice(text),
            Step::Key(key) => {
                serde_json::to_writer(&mut *out, key).map_err(|_| ())?;
                out.push(b':');
            }
            // The address alone could be a later string's where one was
            // dropped (a key repeated in lenient mode): only number text
            // is ever written bare.
            Step::Value(Value::String(text))
                if exact.contains(&(text.as_ptr() as usize))
                    && crate::exact::is_number_token(text) =>
            {
                out.extend_from_slice(text.as_bytes());
            }
            Step::Value(Value::Array(items)) => {
                out.push(b'[');
                stack.push(Step::Raw(b"]"));
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    if i > 0 {
                        stack.push(Step::Raw(b","));
                    }
                }
            }
            Step::Value(Value::Object(map)) => {
                out.push(b'{');
                stack.push(Step::Raw(b"}"));
                for (i, (key, item)) in map.iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    stack.push(Step::Key(key));
                    if i > 0 {
                        stack.push(Step::Raw(b","));
                    }
                }
            }
            Step::Value(scalar) => serde_json::to_writer(&mut *out, scalar).map_err(|_| ())?,
        }
        if out.len() > limit {
            return Err(());
        }
    }
    Ok(())
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
