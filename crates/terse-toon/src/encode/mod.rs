//! TOON encoder.

use crate::{EncodeOptions, Error};
use serde_json::Value;

/// Encodes a JSON value as TOON text.
pub(crate) fn encode_value(value: &Value, options: &EncodeOptions) -> String {
    let _ = (value, options);
    todo!("encoder")
}

/// Encodes JSON text as TOON text without building a `serde_json::Value`.
pub(crate) fn encode_json_text(json: &str, options: &EncodeOptions) -> Result<String, Error> {
    let value: Value = serde_json::from_str(json)?;
    Ok(encode_value(&value, options))
}
