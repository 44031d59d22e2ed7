use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id} {title|uper}")]
struct Typo {
    id: u32,
    title: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id|markdown}")]
struct Unknown {
    id: u32,
}

fn main() {}
