use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{title}")]
struct Note {
    #[compact(ib)]
    id: u32,
    #[compact(line = "{title}")]
    title: String,
    #[compact(id = true)]
    slug: String,
}

fn main() {}
