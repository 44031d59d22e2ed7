//! The optional `format` argument: offered in `tools/list` answers, read
//! and removed from `tools/call` requests (see
//! [`McpLayer::format_argument`](super::McpLayer::format_argument)).

use serde_json::{Map, Value, json};

use crate::format::Format;

/// The argument's name in every tool's `inputSchema`.
pub(crate) const ARGUMENT: &str = "format";

/// The format names a call may name: `compact` only for a tool with a
/// template.
pub(crate) fn allowed(compact: bool) -> &'static [&'static str] {
    if compact {
        &["json", "toon", "compact"]
    } else {
        &["json", "toon"]
    }
}

/// The property offered to a tool: `compact` only when it has a template.
pub(crate) fn property(compact: bool) -> Value {
    let names = allowed(compact);
    let description = if compact {
        "How to write this call's result: json (as is), toon (fewer tokens; JSON where not cheaper) or compact (one line per record)."
    } else {
        "How to write this call's result: json (as is) or toon (fewer tokens; JSON where not cheaper)."
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
/// there, else the format it named when `allowed` holds it, or the
/// refusal to answer with (the server never sees the argument either way).
pub(crate) fn take(
    params: &mut Map<String, Value>,
    allowed: &[&str],
) -> Option<Result<Format, String>> {
    let arguments = params.get_mut("arguments")?.as_object_mut()?;
    let value = arguments.remove(ARGUMENT)?;
    let named = value
        .as_str()
        .filter(|name| allowed.iter().any(|a| a.eq_ignore_ascii_case(name)))
        .and_then(|name| name.parse::<Format>().ok());
    Some(named.ok_or_else(|| refusal(&value, allowed)))
}

/// The message of the JSON-RPC error (-32602, invalid params) for a
/// `format` outside `allowed`.
fn refusal(value: &Value, allowed: &[&str]) -> String {
    // A hostile value is not echoed whole.
    let mut shown = value.to_string();
    if shown.len() > 64 {
        let mut end = 64;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push('…');
    }
    format!(
        "invalid `format` argument {shown}: expected one of {}",
        allowed.join(", ")
    )
}

/// The JSON-RPC error answer for a refused call `id` (its raw JSON).
pub(crate) fn error_answer(id: &str, message: &str) -> String {
    let id: Value = serde_json::from_str(id).unwrap_or(Value::Null);
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": INVALID_PARAMS, "message": message}})
        .to_string()
}

/// JSON-RPC's "invalid params".
pub(crate) const INVALID_PARAMS: i64 = -32602;
