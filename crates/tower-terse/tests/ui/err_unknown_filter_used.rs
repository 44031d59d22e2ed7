// An unknown filter is one error: the type still implements `CompactLine`,
// so registering it as a resource adds no second one.
use serde::{Deserialize, Serialize};
use tower_terse::{CompactLine, TerseLayer};

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "event", line = "{title|uper}")]
struct Event {
    id: u32,
    title: String,
}

fn main() {
    let _layer = TerseLayer::new().resource::<Event>("/api/events");
}
