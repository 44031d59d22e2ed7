use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(nuon = "note", line = "{id}", id, summary = "x")]
struct Note {
    id: u32,
}

fn main() {}
