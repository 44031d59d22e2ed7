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
//! Object key order is part of a TOON document, so this crate turns on
//! `serde_json`'s `preserve_order` feature.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod decode;
mod encode;
mod error;
mod options;

pub use error::{DecodeError, Error};
pub use options::{DecodeOptions, Delimiter, EncodeOptions};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// Encodes a JSON value as TOON text.
///
/// ```
/// let text = terse_toon::encode(&serde_json::json!({"tags": ["a", "b"]}), &Default::default());
/// assert_eq!(text, "tags[2]: a,b");
/// ```
pub fn encode(value: &Value, options: &EncodeOptions) -> String {
    encode::encode_value(value, options)
}

/// Encodes JSON text straight to TOON text.
///
/// This is the fast path for servers that already hold the JSON bytes of a
/// response: it does not build a `serde_json::Value`. Invalid JSON is an
/// [`Error::Json`], never a panic.
///
/// ```
/// let text = terse_toon::encode_json(r#"{"a":1,"b":[true,null]}"#, &Default::default()).unwrap();
/// assert_eq!(text, "a: 1\nb[2]: true,null");
/// assert!(terse_toon::encode_json("{oops", &Default::default()).is_err());
/// ```
pub fn encode_json(json: &str, options: &EncodeOptions) -> Result<String, Error> {
    encode::encode_json_text(json, options)
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

/// Decodes TOON text into a JSON value.
///
/// ```
/// let value = terse_toon::decode("a: 1\nb[2]: x,y", &Default::default()).unwrap();
/// assert_eq!(value, serde_json::json!({"a": 1, "b": ["x", "y"]}));
/// ```
pub fn decode(input: &str, options: &DecodeOptions) -> Result<Value, DecodeError> {
    decode::decode_bytes(input.as_bytes(), options)
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
