//! `_meta["terse/tokens"]` on rewritten tool results (see
//! [`McpLayer::meta_counts`](super::McpLayer::meta_counts)).

use serde_json::{Value, json};

use super::message::Counts;
use crate::format::Format;

/// The `_meta` key of the counts.
pub(crate) const KEY: &str = "terse/tokens";

/// `new`, one rewritten response, with `counts` (those of the rewrite of
/// its result) added to the result's `_meta`; `None` when it does not
/// parse. The counts are the rendering core's: exact
/// with the `exact-tokens` feature, since `meta_counts` asks the core to
/// count exactly, and labelled as what they are.
pub(crate) fn add(new: &str, format: Format, counts: Counts) -> Option<String> {
    let mut new: Value = serde_json::from_str(new).ok()?;
    let result = new.get_mut("result")?.as_object_mut()?;
    let counted = if counts.exact {
        "exact o200k_base"
    } else {
        "estimate"
    };
    let meta = result
        .entry("_meta")
        .or_insert_with(|| Value::Object(Default::default()));
    meta.as_object_mut()?.insert(
        KEY.to_owned(),
        json!({"format": format.as_str(), "json": counts.json, "served": counts.served, "counted": counted}),
    );
    Some(new.to_string())
}
