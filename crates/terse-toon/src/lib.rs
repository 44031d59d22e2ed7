//! TOON (Token-Oriented Object Notation) for `serde_json` values.
//!
//! An encoder and a strict or lenient decoder for TOON as the
//! [spec v4](https://github.com/toon-format/spec) defines it, checked against
//! every official conformance fixture. TOON carries the JSON data model in
//! fewer tokens: indentation instead of braces, and one header plus one row
//! per record for uniform arrays of objects.
//!
//! ```
//! use serde_json::json;
//! use terse_toon::{decode, encode};
//!
//! let value = json!({"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Linus"}]});
//! let text = encode(&value, &Default::default());
//! assert_eq!(text, "users[2]{id,name}:\n  1,Ada\n  2,Linus");
//! assert_eq!(decode(&text, &Default::default()).unwrap(), value);
//! ```
//!
//! [`encode_json`] reads JSON text without building a `serde_json::Value`:
//! it parses the text once into a borrowed [`document::Document`], which is
//! public for callers that want to read JSON the same way (it implements
//! `Serialize`, and `Deserializer` for typed reads).
//!
//! Object key order is part of a TOON document, so this crate turns on
//! `serde_json`'s `preserve_order` feature.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod decode;
pub mod document;
mod encode;
mod error;
mod exact;
#[cfg(test)]
mod json_strategies;
mod options;
mod quoting;
mod words;

pub use error::{DecodeError, Error};
pub use exact::{exact_canonical, has_inexact_number, number_is_exact};
pub use options::{DecodeOptions, Delimiter, EncodeOptions};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// Encodes a JSON value as TOON text.
///
/// ```
/// let text = terse_toon::encode(&serde_json::json!({"tags": ["a", "b"]}), &Default::default());
/// assert_eq!(text, "tags[2]: a,b");
///
/// let orders = serde_json::json!({"orders": [
///     {"id": 1, "customer": {"name": "Ada", "country": "DK"}, "total": 99.5},
///     {"id": 2, "customer": {"name": "Bob", "country": "UK"}, "total": 149},
/// ]});
/// assert_eq!(
///     terse_toon::encode(&orders, &Default::default()),
///     "orders[2]{id,customer{name,country},total}:\n  1,Ada,DK,99.5\n  2,Bob,UK,149"
/// );
/// ```
///
/// The output has no trailing newline. Uniform arrays of objects become
/// tables (with nested field groups for uniform nested objects), objects
/// whose values share one shape become keyed tables, and everything else
/// uses indented fields and `- ` list items, as spec v4 (through 4.4)
/// prescribes. The text is byte for byte what the reference implementation
/// (`@toon-format/toon` 4.4) writes. Numbers: integers exactly; floats with
/// the shortest digits that read back to the same `f64`, laid out as
/// JavaScript's `Number.prototype.toString` does: plain decimal from 1e-6 up
/// to 1e21, exponent form outside (`0.000001`, `1e-7`, `1e+21`), and `-0.0`
/// as `0`.
///
/// ```
/// let value = serde_json::json!([0.000001, 1e-7, 1e20, 1e21, -0.0, 2.5]);
/// assert_eq!(
///     terse_toon::encode(&value, &Default::default()),
///     "[6]: 0.000001,1e-7,100000000000000000000,1e+21,0,2.5"
/// );
/// ```
pub fn encode(value: &Value, options: &EncodeOptions) -> String {
    // Without a bound the emitter never refuses a write.
    encode::encode_value(value, options, usize::MAX).unwrap_or_default()
}

/// Encodes a JSON value as TOON text of at most `max_output_bytes` bytes.
///
/// The same text as [`encode()`] when it fits. When it would not, the encoder
/// stops at the write that would pass the bound and answers an error for
/// which [`Error::is_output_limit`] is true. The bound is exact: every write
/// is checked before it lands (one comparison), so the text never holds, and
/// its buffer never reserves, a byte past `max_output_bytes`, even when one
/// line or one string alone is longer. This matters because TOON can be far
/// longer than its JSON: each level of `[[[[...]]]]` adds a line indented one
/// level deeper.
///
/// ```
/// use terse_toon::{encode, encode_limited};
///
/// let value = serde_json::json!({"tags": ["a", "b"]});
/// let options = Default::default();
/// assert_eq!(encode_limited(&value, &options, 12).unwrap(), "tags[2]: a,b");
/// assert_eq!(encode_limited(&value, &options, 12).unwrap(), encode(&value, &options));
/// assert!(encode_limited(&value, &options, 11).unwrap_err().is_output_limit());
/// ```
pub fn encode_limited(
    value: &Value,
    options: &EncodeOptions,
    max_output_bytes: usize,
) -> Result<String, Error> {
    encode::encode_value(value, options, max_output_bytes)
}

/// Encodes JSON text straight to TOON text.
///
/// This is the fast path for servers that already hold the JSON bytes of a
/// response: it does not build a `serde_json::Value`, but parses the text
/// once into a borrowed tree and writes TOON from it. The result is always
/// exactly [`encode()`] of the value `serde_json::from_str` reads from `json`
/// (including how numbers are read and that a repeated key keeps its last
/// value). Invalid JSON, and nesting deeper than `serde_json`'s limit of 127
/// levels, is an [`Error::Json`] with `serde_json`'s message; never a panic.
///
/// ```
/// let text = terse_toon::encode_json(r#"{"a":1,"b":[true,null]}"#, &Default::default()).unwrap();
/// assert_eq!(text, "a: 1\nb[2]: true,null");
/// assert!(terse_toon::encode_json("{oops", &Default::default()).is_err());
/// ```
pub fn encode_json(json: &str, options: &EncodeOptions) -> Result<String, Error> {
    encode::encode_json_text(json, options, usize::MAX)
}

/// Encodes JSON text straight to TOON text of at most `max_output_bytes`
/// bytes.
///
/// [`encode_json`] with the exact bound of [`encode_limited`]: the same text
/// when it fits; otherwise an error for which [`Error::is_output_limit`] is
/// true, found at the first write that would pass the bound, with no byte
/// written or reserved past it. Invalid JSON is the same [`Error::Json`] as
/// from [`encode_json`] (and not an output-limit error).
///
/// ```
/// use terse_toon::encode_json_limited;
///
/// let options = Default::default();
/// assert_eq!(encode_json_limited("[[[1]]]", &options, 100).unwrap(), "[1]:\n  - [1]:\n    - [1]: 1");
/// // Nesting costs a line per level in TOON: 9 bytes of JSON, 39 of TOON.
/// assert_eq!(encode_json_limited("[[[[1]]]]", &options, 39).unwrap().len(), 39);
/// let err = encode_json_limited("[[[[1]]]]", &options, 38).unwrap_err();
/// assert!(err.is_output_limit());
/// assert!(!encode_json_limited("[1,", &options, 100).unwrap_err().is_output_limit());
/// ```
pub fn encode_json_limited(
    json: &str,
    options: &EncodeOptions,
    max_output_bytes: usize,
) -> Result<String, Error> {
    encode::encode_json_text(json, options, max_output_bytes)
}

/// [`encode_json_limited`], and whether `json` may have whitespace between
/// its tokens ([`Document::may_have_whitespace`]): `false` when it has
/// none, found while it was read, so that a caller weighing the TOON
/// against the JSON minified need not minify JSON that has nothing to
/// drop.
///
/// [`Document::may_have_whitespace`]: document::Document::may_have_whitespace
///
/// ```
/// use terse_toon::{EncodeOptions, encode_json_limited_noting_whitespace};
///
/// let options = EncodeOptions::default();
/// let (text, spaced) = encode_json_limited_noting_whitespace(r#"{"a":"b c"}"#, &options, 100)?;
/// assert_eq!((text.as_str(), spaced), ("a: b c", false));
/// let (_, spaced) = encode_json_limited_noting_whitespace("{\"a\": 1}", &options, 100)?;
/// assert!(spaced);
/// # Ok::<(), terse_toon::Error>(())
/// ```
///
/// # Errors
///
/// As [`encode_json_limited`].
pub fn encode_json_limited_noting_whitespace(
    json: &str,
    options: &EncodeOptions,
    max_output_bytes: usize,
) -> Result<(String, bool), Error> {
    encode::encode_json_text_noting_whitespace(json, options, max_output_bytes)
}

/// Serializes any `Serialize` value as TOON text with default options.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Point { x: i32, y: i32 }
///
/// assert_eq!(terse_toon::to_string(&Point { x: 1, y: 2 }).unwrap(), "x: 1\ny: 2");
/// ```
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let value = serde_json::to_value(value)?;
    Ok(encode(&value, &EncodeOptions::default()))
}

/// Why [`decode_to_json`] gave no JSON.
#[derive(Debug)]
#[non_exhaustive]
pub enum DecodeToJsonError {
    /// The TOON does not decode.
    Decode(DecodeError),
    /// The JSON would be longer than the bound.
    OutputLimit {
        /// The bound, in bytes.
        limit: usize,
    },
}

impl std::fmt::Display for DecodeToJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeToJsonError::Decode(err) => err.fmt(f),
            DecodeToJsonError::OutputLimit { limit } => {
                write!(f, "the JSON would be longer than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for DecodeToJsonError {}

/// Decodes TOON bytes straight to JSON text of at most `max_output_bytes`
/// bytes, every number with the digits it was written with: one that no
/// `f64` holds as written (`12345678901234567890123`) reaches the JSON
/// exactly, where [`decode`] can only give the nearest float. Otherwise the
/// same JSON `serde_json` writes for [`decode`]'s value.
///
/// The JSON is written as the TOON is read, with no `serde_json::Value`
/// in between. In strict mode the text is dropped as soon as it passes the
/// bound (reading goes on only to report a decode error that comes first).
/// In lenient mode a key repeated later keeps its first place and its last
/// value, which rewrites an object already written: the bound is checked on
/// the final text, and until then the text is at most what the document
/// writes without those rewrites.
///
/// ```
/// let json = terse_toon::decode_to_json(b"id: 12345678901234567890123\nn: 1.50", &Default::default(), 1000)?;
/// assert_eq!(json, br#"{"id":12345678901234567890123,"n":1.5}"#);
/// # Ok::<(), terse_toon::DecodeToJsonError>(())
/// ```
///
/// # Errors
///
/// [`DecodeToJsonError::Decode`] for TOON that does not decode (strictly,
/// per `options`), [`DecodeToJsonError::OutputLimit`] past the bound.
pub fn decode_to_json(
    input: &[u8],
    options: &DecodeOptions,
    max_output_bytes: usize,
) -> Result<Vec<u8>, DecodeToJsonError> {
    decode::decode_exact(input, options, max_output_bytes)
}

/// Decodes TOON text into a JSON value.
///
/// ```
/// let value = terse_toon::decode("a: 1\nb[2]: x,y", &Default::default()).unwrap();
/// assert_eq!(value, serde_json::json!({"a": 1, "b": ["x", "y"]}));
///
/// let err = terse_toon::decode("users[2]{id,name}:\n  1,Ada", &Default::default()).unwrap_err();
/// assert_eq!(err.to_string(), "line 1, column 7: expected 2 rows, found 1");
/// ```
///
/// Numbers: an integer keeps its exact value when it fits `i64` or `u64`;
/// any other number is an `f64`, and a number-shaped token beyond the `f64`
/// range (`1e400`) stays a string. A decimal or exponent form with an integral
/// value decodes as that integer (`1e3` is 1000, `-0` is 0).
///
/// Lenient mode (`strict: false`) keeps only the recoveries the spec
/// (through its unreleased entry after 4.3) allows: declared counts are not
/// checked, blank lines inside arrays are skipped, indentation that is not a
/// multiple of the indent size or jumps more than one level is accepted (a
/// tab counting as one level), and a repeated key keeps its last value.
/// Everything else is an error in both modes: malformed headers, lines
/// indented under a line that opens no block, content after a root array,
/// and rows of the wrong width. In both modes nesting deeper than 256
/// levels is an error.
///
/// ```
/// let lenient = terse_toon::DecodeOptions::new().with_strict(false);
/// assert!(terse_toon::decode("xs[3]: 1,2", &lenient).is_ok());
/// let err = terse_toon::decode("t[1]{a,b}:\n  1", &lenient).unwrap_err();
/// assert_eq!((err.line(), err.column()), (2, 3));
/// ```
pub fn decode(input: &str, options: &DecodeOptions) -> Result<Value, DecodeError> {
    decode::decode_str(input, options)
}

/// Decodes TOON from raw bytes; input that is not valid UTF-8 is an error with
/// its position, never a panic.
///
/// ```
/// let err = terse_toon::decode_slice(b"a: \xff", &Default::default()).unwrap_err();
/// assert_eq!((err.line(), err.column()), (1, 4));
/// ```
pub fn decode_slice(input: &[u8], options: &DecodeOptions) -> Result<Value, DecodeError> {
    decode::decode_bytes(input, options)
}

/// Deserializes a `T` from TOON text (strict mode, indent 2).
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct Point { x: i32, y: i32 }
///
/// let p: Point = terse_toon::from_str("x: 1\ny: 2").unwrap();
/// assert_eq!(p, Point { x: 1, y: 2 });
/// ```
pub fn from_str<T: DeserializeOwned>(input: &str) -> Result<T, Error> {
    let value = decode(input, &DecodeOptions::default())?;
    Ok(serde_json::from_value(value)?)
}
