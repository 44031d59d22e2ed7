use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title}")]
struct Note {
    slug: String,
    title: String,
}

fn main() {}
