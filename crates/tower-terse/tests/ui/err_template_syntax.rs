use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title} {? [{id}]")]
struct Unclosed {
    id: u32,
    title: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title} } {id}")]
struct StrayBrace {
    id: u32,
    title: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title}\n{id}")]
struct TwoLines {
    id: u32,
    title: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{} {id}")]
struct EmptyPlaceholder {
    id: u32,
}

// Every error of one template in one build.
#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title|uper} } {} {id")]
struct Several {
    id: u32,
    title: String,
}

fn main() {}
