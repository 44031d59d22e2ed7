//! TOON encoder.
//!
//! Two entry points share one emitter:
//!
//! - [`encode_value`] walks a `serde_json::Value`;
//! - [`encode_json_text`] parses JSON text once into a flat, borrowed
//!   [`Document`] (no `Value`, no allocation per string or object) and
//!   walks that. The document reads exactly what `serde_json` reads, so the
//!   result is always `encode_value` of the same data.
//!
//! The emitter ([`emit`]) is generic over the [`tree::Tree`] trait, which both
//! documents implement; the shape rules for tabular and keyed tabular forms
//! are in [`shape`], canonical numbers in [`number`], and quoting in
//! [`crate::quoting`].
//!
//! Output follows spec v4 with the encoder rules of its changelog through
//! 4.4, byte for byte as the reference implementation writes it: numbers in
//! the layout of JavaScript's `Number.prototype.toString`, quoting only
//! where required (a leading U+FEFF only in a root string), `key: []` and
//! `[]` for empty arrays in field and root position, and the first field of
//! a list-item object on the hyphen line.

mod emit;
pub(crate) mod number;
pub(crate) mod out;
mod primitive;
mod shape;
mod tree;

#[cfg(test)]
mod deep_tests;
#[cfg(test)]
mod limit_tests;
#[cfg(test)]
mod tests;

use crate::document::Document;
use crate::{EncodeOptions, Error};
use serde_json::Value;

/// Encodes a JSON value as TOON text of at most `limit` bytes.
pub(crate) fn encode_value(
    value: &Value,
    options: &EncodeOptions,
    limit: usize,
) -> Result<String, Error> {
    emit::emit(value, options, 256, limit).ok_or(Error::OutputLimit { limit })
}

/// Encodes JSON text as TOON text of at most `limit` bytes, without building
/// a `serde_json::Value`.
pub(crate) fn encode_json_text(
    json: &str,
    options: &EncodeOptions,
    limit: usize,
) -> Result<String, Error> {
    encode_json_text_noting_whitespace(json, options, limit).map(|(text, _)| text)
}

/// [`encode_json_text`], and whether the text may have whitespace between
/// its tokens ([`Document::may_have_whitespace`]).
pub(crate) fn encode_json_text_noting_whitespace(
    json: &str,
    options: &EncodeOptions,
    limit: usize,
) -> Result<(String, bool), Error> {
    match Document::parse_fast(json) {
        Some(document) => emit::emit(document.root(), options, output_capacity(json.len()), limit)
            .map(|text| (text, document.may_have_whitespace()))
            .ok_or(Error::OutputLimit { limit }),
        None => slow_path(json, options, limit).map(|text| (text, true)),
    }
}

/// The room reserved for the TOON of `json_len` bytes of JSON. Records
/// come out shorter than their JSON, but nested records of short values
/// a little longer, their indentation outweighing the braces and quotes
/// dropped (the load bench's orders: 14 105 bytes of TOON from 14 056 of
/// JSON), and a buffer that runs out is copied whole into one twice its
/// size. A quarter more than the JSON holds those; room the text never
/// reaches is neither zeroed nor touched.
fn output_capacity(json_len: usize) -> usize {
    json_len.saturating_add(json_len / 4).saturating_add(64)
}

/// Lets `serde_json` read the text: it reports invalid JSON with its own
/// message, found without building what comes before the error.
#[cold]
fn slow_path(json: &str, options: &EncodeOptions, limit: usize) -> Result<String, Error> {
    crate::document::validate::check(json)?;
    let value: Value = serde_json::from_str(json)?;
    encode_value(&value, options, limit)
}
