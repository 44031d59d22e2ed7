use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "shape", line = "{id}")]
enum Shape {
    Circle { id: u32 },
}

fn main() {}
