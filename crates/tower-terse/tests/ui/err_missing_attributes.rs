use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
struct Bare {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note")]
struct NoLine {
    id: u32,
}

fn main() {}
