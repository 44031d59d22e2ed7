use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "page", line = "{id}")]
struct Page<T> {
    id: u32,
    items: Vec<T>,
}

fn main() {}
