//! `#[derive(CompactLine)]` as a service uses it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower_terse::CompactLine;
use tower_terse::compact::{CompactResource, NotCompact, RenderContext, compact_envelope};
use tower_terse::defaults::LIST_KEYS as DEFAULT_LIST_KEYS;

/// 2025-03-01T12:00:00Z
fn cx() -> RenderContext {
    RenderContext::at_unix(1_740_830_400)
}

#[derive(Serialize, Deserialize, CompactLine)]
#[serde(rename_all = "camelCase")]
#[compact(
    noun = "event",
    line = "{startAt|time}-{end_at|time} {title}{? [{location}]}{? {recurrence|flag(🔁)}} ({updatedAt|ago})"
)]
struct Event {
    #[compact(id)]
    event_id: String,
    title: String,
    start_at: String,
    end_at: String,
    location: Option<String>,
    recurrence: Option<String>,
    updated_at: String,
}

fn event(id: &str, location: Value) -> Value {
    json!({
        "eventId": id, "title": "Standup", "startAt": "2025-03-01T09:30:00Z",
        "endAt": "2025-03-01T09:45:00Z", "location": location, "recurrence": "weekly",
        "updatedAt": "2025-03-01T11:55:00Z",
    })
}

#[test]
fn json_and_rust_names_both_resolve_to_json_keys() {
    let line = Event::line_from_json(&event("e1", json!("Room 1")), &cx()).unwrap();
    assert_eq!(line, "09:30-09:45 Standup [Room 1] 🔁 (5m ago)");
    assert_eq!(Event::id_key(), "eventId");
    assert_eq!(Event::noun().count(2), "2 events");
}

#[test]
fn typed_line_matches_json_line() {
    let record = event("e1", Value::Null);
    let typed: Event = serde_json::from_value(record.clone()).unwrap();
    assert_eq!(
        typed.line(&cx()),
        Event::line_from_json(&record, &cx()).unwrap()
    );
    assert_eq!(typed.line(&cx()), "09:30-09:45 Standup 🔁 (5m ago)");
}

#[test]
fn a_record_of_the_wrong_shape_is_an_error() {
    let mut record = event("e1", Value::Null);
    record["title"] = json!(42);
    let err = Event::line_from_json(&record, &cx()).unwrap_err();
    assert_eq!(
        err.message(),
        "field `title`: expected a string, found a number"
    );
    let err = Event::line_from_json(&json!({"eventId": "x"}), &cx()).unwrap_err();
    assert!(err.message().contains("missing field"), "{err}");
}

#[test]
fn envelope_from_a_derived_resource() {
    let body =
        json!({"data": [event("e1", json!("A")), event("e2", Value::Null)], "meta": {"total": 9}});
    let resource = CompactResource::of::<Event>();
    let out = compact_envelope(&body, DEFAULT_LIST_KEYS, &resource, &cx()).unwrap();
    assert_eq!(out["summary"], "2 of 9 events");
    assert_eq!(out["ids"], json!(["e1", "e2"]));
    assert_eq!(out["lines"][1], "09:30-09:45 Standup 🔁 (5m ago)");
    assert_eq!(out["meta"], json!({"total": 9, "has_more": true}));

    let mut bad = body.clone();
    bad["data"][1]["startAt"] = json!(false);
    let err = compact_envelope(&bad, DEFAULT_LIST_KEYS, &resource, &cx()).unwrap_err();
    assert!(matches!(err, NotCompact::Record { index: 1, .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("record 1: field `startAt`: expected "),
        "{err}"
    );
    assert!(err.to_string().ends_with(", found a boolean"), "{err}");
}

#[derive(Serialize, Deserialize, CompactLine)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
#[compact(
    noun = "person",
    plural = "people",
    line = "{FULL-NAME} <{email_address|lower}>{? {nick}}"
)]
struct Person {
    id: u32,
    full_name: String,
    #[serde(rename = "mail")]
    email_address: String,
    #[serde(rename(serialize = "nick", deserialize = "nick"))]
    nickname: Option<String>,
    #[serde(skip)]
    #[allow(dead_code)]
    cache: Option<u8>,
}

#[test]
fn rename_all_rename_and_the_id_field_by_name() {
    let record =
        json!({"ID": 3, "FULL-NAME": "Ada Lovelace", "mail": "ADA@EXAMPLE.ORG", "nick": null});
    assert_eq!(
        Person::line_from_json(&record, &cx()).unwrap(),
        "Ada Lovelace <ada@example.org>"
    );
    assert_eq!(Person::id_key(), "ID");
    assert_eq!(Person::noun().count(2), "2 people");
}

#[derive(Serialize, Deserialize)]
struct Extra {
    color: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "box", line = "{r#type} {color} {size|bytes}")]
struct Crate {
    id: u64,
    r#type: String,
    size: u64,
    #[serde(flatten)]
    extra: Extra,
}

#[test]
fn raw_identifiers_and_flattened_keys() {
    let record = json!({"id": 1, "type": "wood", "size": 2_300_000, "color": "red"});
    // `r#type` is not a template name; `type` is what serde writes.
    assert_eq!(Crate::line_from_json(&record, &cx()).unwrap(), " red 2.3MB");
    assert_eq!(Crate::noun().plural(), "boxes");
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "log line", line = "{msg}{? {{{level|upper}}}}")]
struct Log {
    id: u64,
    msg: String,
    level: Option<String>,
}

#[test]
fn escapes_and_braces_in_derived_lines() {
    let line =
        Log::line_from_json(&json!({"id": 1, "msg": "a\nb\tc", "level": "warn"}), &cx()).unwrap();
    assert_eq!(line, "a\\nb\\tc {WARN}");
    let line = Log::line_from_json(&json!({"id": 1, "msg": "x", "level": null}), &cx()).unwrap();
    assert_eq!(line, "x");
}

#[derive(Deserialize)]
struct Multi {
    id: u32,
    text: String,
}

impl CompactLine for Multi {
    fn noun() -> tower_terse::compact::Noun {
        tower_terse::compact::Noun::new("entry").with_plural("entries")
    }

    fn line(&self, _cx: &RenderContext) -> String {
        format!("#{} {}", self.id, self.text)
    }
}

#[test]
fn hand_written_lines_stay_one_line_in_the_envelope() {
    let body = json!([{"id": 1, "text": "a\nb"}, {"id": 2, "text": "c"}]);
    let out = compact_envelope(
        &body,
        DEFAULT_LIST_KEYS,
        &CompactResource::of::<Multi>(),
        &cx(),
    )
    .unwrap();
    assert_eq!(out["lines"], json!(["#1 a\\nb", "#2 c"]));
    assert_eq!(out["summary"], "2 entries");
    let err = compact_envelope(
        &json!([{"id": "x", "text": "t"}]),
        DEFAULT_LIST_KEYS,
        &CompactResource::of::<Multi>(),
        &cx(),
    );
    assert!(matches!(err, Err(NotCompact::Record { index: 0, .. })));
}
