//! The optional `format` argument: offered in `tools/list` answers, read
//! and removed from `tools/call` requests (see
//! [`McpLayer::format_argument`](super::McpLayer::format_argument)).

use serde_json::{Map, Value, json};

use crate::format::Format;

/// The argument's name in every tool's `inputSchema`.
pub(crate) const ARGUMENT: &str = "format";

/// The property offered to a tool: `compact` only when it has a template.
pub(crate) fn property(compact: bool) -> Value {
    let (names, description): (&[&str], &str) = if compact {
        (
            &["json", "toon", "compact"],
            "How to write this call's result: json (as is), toon (fewer tokens; JSON where not cheaper) or compact (one line per record).",
        )
    } else {
        (
            &["json", "toon"],
            "How to write this call's result: json (as is) or toon (fewer tokens; JSON where not cheaper).",
        )
    };
    json!({"type": "string", "enum": names, "description": description})
}

/// What offering the property to one tool did.
pub(crate) enum Offer {
    /// The property was added.
    Added,
    /// The tool has a `format` of its own, left alone.
    Own,
    /// No schema to add it to.
    NoSchema,
}

/// Adds the property to `tool`'s `inputSchema`.
pub(crate) fn offer(tool: &mut Map<String, Value>, compact: bool) -> Offer {
    let Some(schema) = tool.get_mut("inputSchema").and_then(Value::as_object_mut) else {
        return Offer::NoSchema;
    };
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(properties) = properties.as_object_mut() else {
        return Offer::NoSchema;
    };
    if properties.contains_key(ARGUMENT) {
        return Offer::Own;
    }
    properties.insert(ARGUMENT.to_owned(), property(compact));
    Offer::Added
}

/// Removes the argument from a call's `params`: `None` when it was not
/// there, else the format it named (`None` inside for a name that is not
/// a format, which is removed all the same: the server never sees it).
pub(crate) fn take(params: &mut Map<String, Value>) -> Option<Option<Format>> {
    let arguments = params.get_mut("arguments")?.as_object_mut()?;
    let value = arguments.remove(ARGUMENT)?;
    Some(value.as_str().and_then(|name| name.parse().ok()))
}
