use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", line = "{id}", list = "")]
struct Empty {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", line = "{id}", list = "data.tickets")]
struct Dotted {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", line = "{id}", list = 3, list = "a")]
struct NotText {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", line = "{id}", list = "a", list = "b")]
struct Twice {
    id: u32,
}

fn main() {}
