//! TOON decoder.

use crate::{DecodeError, DecodeOptions};
use serde_json::Value;

/// Decodes TOON bytes into a JSON value.
pub(crate) fn decode_bytes(input: &[u8], options: &DecodeOptions) -> Result<Value, DecodeError> {
    let _ = (input, options);
    todo!("decoder")
}
