//! Reading a record into its resource type, with errors that say where and
//! what, and never what the record holds.
//!
//! serde's messages quote the offending value (`invalid type: string
//! "alice@example.com", expected u32`); a log line built from them would leak
//! response data and let a handler's output flood the logs with it. The
//! error here keeps the field path, the type that was expected and the kind
//! of JSON value found there, and nothing else.

use serde::Deserialize;
use serde_path_to_error::{Path, Segment};
use terse_toon::document::Node;

use super::RecordError;
use super::resource::kind_of;

/// At most this many bytes of a path go into a message (keys of a map field
/// come from the record).
const MAX_PATH: usize = 120;

/// Deserializes `record` into `T`.
///
/// # Errors
///
/// A [`RecordError`] such as ``field `attendees`: expected u32, found a
/// string`` when the record does not have the shape of `T`.
pub fn deserialize_record<'t, T: Deserialize<'t>>(record: Node<'t>) -> Result<T, RecordError> {
    // Tracking the path costs every record a path segment per field; it is
    // only needed for the message. Reading is deterministic, so a record
    // that fails plainly fails again at the same place with the path kept.
    if let Ok(value) = T::deserialize(record) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(record).map_err(|err| {
        let found = node_at(record, err.path()).map(kind_of);
        RecordError::new(describe(err.path(), &err.inner().to_string(), found))
    })
}

/// The value at `path` inside `record`, when the path leads to one.
fn node_at<'t>(record: Node<'t>, path: &Path) -> Option<Node<'t>> {
    path.iter().try_fold(record, |node, segment| match segment {
        Segment::Seq { index } => node.items().nth(*index),
        Segment::Map { key } => node.get(key),
        Segment::Enum { .. } | Segment::Unknown => Some(node),
    })
}

/// The message for a failure at `path`, from serde's `message` and the kind
/// of value `found` there.
fn describe(path: &Path, message: &str, found: Option<&str>) -> String {
    let mut out = match path.iter().next() {
        None => String::from("the record"),
        Some(_) => format!("field `{}`", cut(&path.to_string())),
    };
    match (expected(message), found) {
        (Expectation::Whole(what), _) => {
            out.push_str(": ");
            out.push_str(what);
        }
        (Expectation::Type(what), Some(found)) => {
            out.push_str(&format!(": expected {what}, found {found}"));
        }
        (Expectation::Type(what), None) => out.push_str(&format!(": expected {what}")),
        (Expectation::Unknown, Some(found)) => {
            out.push_str(&format!(": {found} the field's type does not accept"));
        }
        (Expectation::Unknown, None) => out.push_str(": not accepted by the field's type"),
    }
    out
}

/// What of serde's message may be repeated.
enum Expectation<'m> {
    /// The message names only keys and types (`missing field `title``).
    Whole(&'m str),
    /// The message quotes a value; only what it expected is kept.
    Type(&'m str),
    /// A message of the type's own, which may quote anything.
    Unknown,
}

fn expected(message: &str) -> Expectation<'_> {
    // serde's own wording (serde::de::Error's provided methods).
    const QUOTING: [&str; 5] = [
        "invalid type: ",
        "invalid value: ",
        "invalid length ",
        "unknown variant ",
        "unknown field ",
    ];
    if message.starts_with("missing field `") || message.starts_with("duplicate field `") {
        return Expectation::Whole(cut(message));
    }
    if QUOTING.iter().any(|prefix| message.starts_with(prefix)) {
        // What was expected comes last, after the quoted value, so the last
        // `, expected ` is serde's even when the value holds those words.
        if let Some(at) = message.rfind(", expected ") {
            return Expectation::Type(cut(&message[at + ", expected ".len()..]));
        }
    }
    Expectation::Unknown
}

/// `text`, cut to [`MAX_PATH`] bytes on a character boundary.
fn cut(text: &str) -> &str {
    if text.len() <= MAX_PATH {
        return text;
    }
    let mut end = MAX_PATH;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;
    use terse_toon::document::Document;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code, reason = "read only to check the shape")]
    struct Meeting {
        id: u32,
        title: String,
        tags: Vec<Tag>,
        #[serde(default)]
        status: Option<Status>,
        #[serde(default)]
        extra: BTreeMap<String, u8>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code, reason = "read only to check the shape")]
    struct Tag {
        name: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Status {
        Confirmed,
    }

    fn error(record: serde_json::Value) -> String {
        let document = Document::from_value(&record);
        deserialize_record::<Meeting>(document.root())
            .unwrap_err()
            .message()
            .to_owned()
    }

    #[test]
    fn errors_name_the_path_the_type_and_the_kind_never_the_value() {
        let secret = "alice@example.com, expected the moon";
        let cases = [
            (
                json!({"id": secret, "title": "t", "tags": []}),
                "field `id`: expected u32, found a string",
            ),
            (
                json!({"id": 1, "title": "t", "tags": [{"name": "a"}, {"name": 7}]}),
                "field `tags[1].name`: expected a string, found a number",
            ),
            (
                json!({"id": 1, "tags": []}),
                "the record: missing field `title`",
            ),
            (
                json!({"id": 1, "title": "t", "tags": [], "status": secret}),
                "field `status`: expected `confirmed`, found a string",
            ),
            (
                json!({"id": 1, "title": "t", "tags": [], "extra": {"k": 300}}),
                "field `extra.k`: expected u8, found a number",
            ),
            (
                json!("alice@example.com"),
                "the record: expected struct Meeting, found a string",
            ),
            // A struct may be read from an array, field by field.
            (
                json!([1, 2]),
                "field `[1]`: expected a string, found a number",
            ),
        ];
        for (record, message) in cases {
            let got = error(record);
            assert_eq!(got, message);
            assert!(!got.contains("alice"), "{got}");
        }
    }

    #[test]
    fn messages_stay_short_whatever_the_keys() {
        let key = "k".repeat(10_000);
        let message = error(json!({"id": 1, "title": "t", "tags": [], "extra": {key: -1}}));
        assert!(message.len() < 200, "{}", message.len());
    }
}
