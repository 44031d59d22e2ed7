//! `_meta["terse/tokens"]` on rewritten tool results (see
//! [`McpLayer::meta_counts`](super::McpLayer::meta_counts)).

use serde_json::{Value, json};

use crate::format::Format;

/// The `_meta` key of the counts.
pub(crate) const KEY: &str = "terse/tokens";

/// How the counts were made, as the entry labels them.
#[cfg(feature = "exact-tokens")]
const COUNTED: &str = "exact o200k_base";
#[cfg(not(feature = "exact-tokens"))]
const COUNTED: &str = "estimate";

fn count(text: &str) -> usize {
    #[cfg(feature = "exact-tokens")]
    return crate::tokens::exact(text);
    #[cfg(not(feature = "exact-tokens"))]
    crate::tokens::estimate(text.as_bytes())
}

/// `new`, the rewrite of `old`, with the counts of the result of the
/// response `id` added to its `_meta`; `None` when either does not parse.
pub(crate) fn add(old: &str, new: &str, id: &str, format: Format) -> Option<String> {
    let old: Value = serde_json::from_str(old).ok()?;
    let mut new: Value = serde_json::from_str(new).ok()?;
    let before = texts(response(&old, id)?);
    let result = response_mut(&mut new, id)?
        .get_mut("result")?
        .as_object_mut()?;
    let after = texts(result.get("content")?);
    let (mut json, mut served) = (0, 0);
    for (old, new) in before.iter().zip(&after) {
        if old != new {
            json += count(old);
            served += count(new);
        }
    }
    let meta = result
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    meta.as_object_mut()?.insert(
        KEY.to_owned(),
        json!({"format": format.as_str(), "json": json, "served": served, "counted": COUNTED}),
    );
    Some(new.to_string())
}

/// The text of each text block of a result's `content` (or of a response,
/// through its result), `""` for other blocks.
fn texts(value: &Value) -> Vec<&str> {
    let content = value
        .get("result")
        .and_then(|result| result.get("content"))
        .unwrap_or(value);
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .map(|block| block.get("text").and_then(Value::as_str).unwrap_or(""))
                .collect()
        })
        .unwrap_or_default()
}

fn is_response(message: &Value, id: &str) -> bool {
    message.get("method").is_none()
        && message
            .get("id")
            .and_then(|found| serde_json::to_string(found).ok())
            .is_some_and(|found| found == id)
}

fn response<'v>(message: &'v Value, id: &str) -> Option<&'v Value> {
    match message {
        Value::Array(batch) => batch.iter().find(|m| is_response(m, id)),
        message => is_response(message, id).then_some(message),
    }
}

fn response_mut<'v>(message: &'v mut Value, id: &str) -> Option<&'v mut Value> {
    match message {
        Value::Array(batch) => batch.iter_mut().find(|m| is_response(m, id)),
        message => is_response(message, id).then_some(message),
    }
}
