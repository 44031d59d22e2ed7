//! The derive checks each record's shape before rendering its line. Whatever
//! it checks against internally, a record must be accepted exactly when it
//! deserializes into the type, and refused with serde's own message.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};
use tower_terse::CompactLine;
use tower_terse::compact::RenderContext;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Confirmed,
    Tentative,
}

/// Plain data attributes only: every `String` can be checked without being
/// kept.
#[derive(Debug, Serialize, Deserialize, CompactLine)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[compact(noun = "event", line = "{title} {status}{? ({tags|join(/)})}")]
struct Event {
    id: u64,
    title: String,
    #[serde(alias = "where")]
    location: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    note: Option<Vec<String>>,
    status: Status,
    attendees: u8,
    #[serde(rename = "meta")]
    extra: BTreeMap<String, i32>,
    std_string: std::string::String,
}

fn not_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() {
        return Err(serde::de::Error::custom("title is empty"));
    }
    Ok(text)
}

fn untitled() -> String {
    "untitled".to_owned()
}

/// Field attributes with functions: those fields keep their own type.
#[derive(Debug, Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title}")]
struct Note {
    id: u64,
    #[serde(deserialize_with = "not_empty")]
    title: String,
    #[serde(default = "untitled")]
    subtitle: String,
    body: String,
}

/// A container attribute the check cannot copy: the type checks itself.
#[derive(Debug, Default, Serialize, Deserialize, CompactLine)]
#[serde(default)]
#[compact(noun = "draft", line = "{title}")]
struct Draft {
    id: u64,
    title: String,
}

/// The record is accepted by the derive exactly when serde accepts it; the
/// reason keeps what serde expected (or the key it missed), never the value.
fn assert_same_verdict<T: CompactLine + std::fmt::Debug>(record: Value) {
    let cx = RenderContext::at_unix(0);
    let serde = serde_json::from_value::<T>(record.clone()).map(|_| ());
    let derive = T::line_from_json(&record, &cx).map(|_| ());
    match (serde, derive) {
        (Ok(()), Ok(())) => {}
        (Err(serde), Err(derive)) => {
            let (serde, derive) = (serde.to_string(), derive.message().to_owned());
            if let Some(at) = serde.rfind(", expected ") {
                let expected = &serde[at + ", expected ".len()..];
                assert!(derive.contains(expected), "{record}: {derive} / {serde}");
            } else if serde.starts_with("missing field") {
                assert!(derive.ends_with(&serde), "{record}: {derive} / {serde}");
            }
        }
        (serde, derive) => panic!("{record}\nserde: {serde:?}\nderive: {derive:?}"),
    }
}

fn event() -> Value {
    json!({
        "id": 1, "title": "Standup", "location": null, "tags": ["a", "b"], "note": ["x"],
        "status": "confirmed", "attendees": 3, "meta": {"k": 1}, "stdString": "s",
    })
}

fn with(mut record: Value, key: &str, value: Value) -> Value {
    record[key] = value;
    record
}

fn without(mut record: Value, key: &str) -> Value {
    record.as_object_mut().unwrap().remove(key);
    record
}

#[test]
fn strings_are_checked_like_strings() {
    for (key, value) in [
        ("title", json!(42)),
        ("title", json!(null)),
        ("title", json!(["x"])),
        ("title", json!({"x": 1})),
        ("title", json!(true)),
        ("title", json!(1.5)),
        ("title", json!("")),
        ("title", json!("line\nbreak")),
        ("location", json!(7)),
        ("location", json!("Room 1")),
        ("tags", json!("a")),
        ("tags", json!([1])),
        ("tags", json!([])),
        ("note", json!([null])),
        ("note", json!(null)),
        ("note", json!("x")),
        ("stdString", json!(-1)),
    ] {
        assert_same_verdict::<Event>(with(event(), key, value));
    }
}

#[test]
fn other_fields_and_attributes_are_checked_like_the_type() {
    for record in [
        event(),
        with(event(), "status", json!("cancelled")),
        with(event(), "status", json!(1)),
        with(event(), "attendees", json!(300)),
        with(event(), "attendees", json!(-1)),
        with(event(), "meta", json!({"k": "v"})),
        with(event(), "unknown", json!(1)),
        with(without(event(), "location"), "where", json!("Room 2")),
        without(event(), "tags"),
        without(event(), "title"),
        without(event(), "location"),
        without(event(), "stdString"),
        json!({}),
    ] {
        assert_same_verdict::<Event>(record);
    }
}

#[test]
fn fields_with_functions_keep_their_checks() {
    let note = json!({"id": 1, "title": "Groceries", "body": "milk"});
    assert_same_verdict::<Note>(note.clone());
    assert_same_verdict::<Note>(with(note.clone(), "title", json!("")));
    assert_same_verdict::<Note>(with(note.clone(), "title", json!(3)));
    assert_same_verdict::<Note>(with(note.clone(), "subtitle", json!(3)));
    assert_same_verdict::<Note>(with(note.clone(), "body", json!(3)));
    assert_same_verdict::<Note>(without(note, "body"));
    let cx = RenderContext::at_unix(0);
    let err = Note::line_from_json(&json!({"id": 1, "title": "", "body": ""}), &cx).unwrap_err();
    // The function's own message may quote the value, so it stays out.
    assert_eq!(
        err.message(),
        "field `title`: a string the field's type does not accept"
    );
}

#[test]
fn container_attributes_it_cannot_copy_keep_the_type_s_check() {
    for record in [
        json!({"id": 1, "title": "Plan"}),
        json!({"id": 1}),
        json!({}),
        json!({"id": "1"}),
        json!({"title": 5}),
    ] {
        assert_same_verdict::<Draft>(record);
    }
}
