use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = 5, line)]
struct Note {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun "memo")]
struct Memo {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact]
struct Bare {
    id: u32,
}

fn main() {}
