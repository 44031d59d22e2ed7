use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id}", noun = "memo")]
#[compact(line = "{title}")]
struct Note {
    #[compact(id, id)]
    id: u32,
    title: String,
}

fn main() {}
