use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;
use tower_terse::compact::{CompactResource, RenderContext};

#[derive(Serialize, Deserialize)]
struct Extra {
    color: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[serde(rename_all = "camelCase")]
#[compact(
    noun = "event",
    line = r#"{startAt|time}-{end_at|time} {title|trunc(40)}{? [{location|upper}]}{? {recurring|flag(🔁)}} {tags|join(, )} {size|bytes} {event_id|short} {updatedAt|ago} {day|date} {note|default("n/a")|lower} {{ok}} {anything.from.flatten}"#
)]
struct Event {
    #[compact(id)]
    event_id: String,
    title: String,
    start_at: String,
    end_at: String,
    location: Option<String>,
    recurring: bool,
    tags: Vec<String>,
    size: u64,
    updated_at: String,
    day: String,
    note: Option<String>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "person", plural = "people", line = "{name}")]
struct Person {
    id: u32,
    name: String,
}

fn main() {
    let _ = CompactResource::of::<Event>();
    let person = Person { id: 1, name: "Ada".into() };
    assert_eq!(person.line(&RenderContext::now()), "Ada");
}
