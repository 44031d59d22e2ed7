//! Primitive tokens (§4): quoted strings with their escapes (§7.1), literals
//! and numbers.

use super::fail::{Fail, PResult};
use serde_json::{Number, Value};

/// Parses the quoted string that opens at `start` (a `"`), looking no further
/// than `end`. Returns the unescaped text and the offset just after the
/// closing quote.
pub(super) fn quoted(text: &str, start: usize, end: usize) -> PResult<(String, usize)> {
    let bytes = text.as_bytes();
    let body = start + 1;
    let mut i = body;
    // Fast path: no escapes, so the text is one borrowed slice.
    while i < end {
        match bytes[i] {
            b'"' => return Ok((text[body..i].to_owned(), i + 1)),
            b'\\' => break,
            _ => i += 1,
        }
    }
    let mut out = String::with_capacity(i - body + 16);
    out.push_str(&text[body..i]);
    let mut run = i;
    while i < end {
        match bytes[i] {
            b'"' => {
                out.push_str(&text[run..i]);
                return Ok((out, i + 1));
            }
            b'\\' => {
                out.push_str(&text[run..i]);
                i = unescape(text, i, end, &mut out)?;
                run = i;
            }
            _ => i += 1,
        }
    }
    Err(Fail::new(
        start,
        "unterminated string: missing closing `\"`",
    ))
}

/// Decodes the escape at `at` (a backslash) into `out`; returns the offset
/// after it.
fn unescape(text: &str, at: usize, end: usize, out: &mut String) -> PResult<usize> {
    let bytes = text.as_bytes();
    let Some(&kind) = bytes.get(at + 1).filter(|_| at + 1 < end) else {
        return Err(Fail::new(at, "unterminated string: missing closing `\"`"));
    };
    let simple = match kind {
        b'\\' => '\\',
        b'"' => '"',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hex = text
                .get(at + 2..at + 6)
                .filter(|_| at + 6 <= end)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
            let Some(hex) = hex else {
                return Err(Fail::new(
                    at,
                    "invalid escape: `\\u` must be followed by four hex digits",
                ));
            };
            let code = u32::from_str_radix(hex, 16).unwrap_or(0xD800);
            let Some(ch) = char::from_u32(code) else {
                return Err(Fail::new(
                    at,
                    format!("invalid escape `\\u{hex}`: surrogate code points are not allowed"),
                ));
            };
            out.push(ch);
            return Ok(at + 6);
        }
        _ => {
            let shown = text[at + 1..].chars().next().unwrap_or(' ');
            return Err(Fail::new(
                at,
                format!("invalid escape `\\{shown}`; allowed: \\\\ \\\" \\n \\r \\t \\uXXXX"),
            ));
        }
    };
    out.push(simple);
    Ok(at + 2)
}

/// Decodes one value token (`start..end`, already trimmed of spaces).
pub(super) fn primitive(text: &str, start: usize, end: usize) -> PResult<Value> {
    let bytes = &text.as_bytes()[start..end];
    match bytes.first() {
        Some(b'"') => {
            let (s, after) = quoted(text, start, end)?;
            if after != end {
                return Err(Fail::new(
                    after,
                    "unexpected characters after the closing quote",
                ));
            }
            Ok(Value::String(s))
        }
        Some(b't') if bytes == b"true" => Ok(Value::Bool(true)),
        Some(b'f') if bytes == b"false" => Ok(Value::Bool(false)),
        Some(b'n') if bytes == b"null" => Ok(Value::Null),
        Some(b'-' | b'0'..=b'9') => {
            let token = &text[start..end];
            Ok(number(token).unwrap_or_else(|| Value::String(token.to_owned())))
        }
        _ => Ok(Value::String(text[start..end].to_owned())),
    }
}

/// The number a token denotes, or `None` when the token is not in the §4
/// number grammar (`-?digits(.digits)?(e[+-]?digits)?`, no leading zeros) or
/// does not fit a finite `f64`.
///
/// Integers stay exact in `i64`/`u64`; `-0` is 0; a decimal or exponent form
/// with an integer value decodes to that integer (`1e3` is 1000).
pub(super) fn number(token: &str) -> Option<Value> {
    let b = token.as_bytes();
    let negative = b[0] == b'-';
    let mut i = usize::from(negative);
    let int_start = i;
    let mut magnitude: u64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        let digit = u64::from(b[i] - b'0');
        match magnitude.checked_mul(10).and_then(|m| m.checked_add(digit)) {
            Some(m) => magnitude = m,
            None => overflow = true,
        }
        i += 1;
    }
    let int_digits = i - int_start;
    if int_digits == 0 || (int_digits > 1 && b[int_start] == b'0') {
        return None;
    }
    if i == b.len() && !overflow {
        return Some(if !negative || magnitude == 0 {
            Value::Number(magnitude.into())
        } else if magnitude <= i64::MAX as u64 + 1 {
            Value::Number((magnitude as i64).wrapping_neg().into())
        } else {
            Value::Number(Number::from_f64(-(magnitude as f64))?)
        });
    }
    // Up to 15 digits fit a f64 mantissa exactly, so one division by an
    // exact power of ten is correctly rounded (the classic fast path).
    let mut mantissa = magnitude;
    let mut fast = !overflow && int_digits <= 15;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if fast {
                mantissa = mantissa * 10 + u64::from(b[i] - b'0');
                frac_digits += 1;
                fast = int_digits + frac_digits <= 15;
            }
            i += 1;
        }
        if i == frac_start {
            return None;
        }
    }
    if i == b.len() && fast {
        let magnitude = mantissa as f64 / POW10[frac_digits];
        let float = if negative { -magnitude } else { magnitude };
        return Some(Value::Number(
            integral(float).or_else(|| Number::from_f64(float))?,
        ));
    }
    if i < b.len() && (b[i] | 0x20) == b'e' {
        i += 1;
        if i < b.len() && matches!(b[i], b'+' | b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    let float: f64 = token.parse().ok()?;
    Some(Value::Number(
        integral(float).or_else(|| Number::from_f64(float))?,
    ))
}

const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `float` as an exact integer when it is one and fits `u64` or `i64`.
fn integral(float: f64) -> Option<Number> {
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if float.fract() != 0.0 {
        return None;
    }
    if (0.0..TWO_POW_64).contains(&float) || float == 0.0 {
        Some((float as u64).into())
    } else if (-TWO_POW_63..0.0).contains(&float) {
        Some((float as i64).into())
    } else {
        None
    }
}
