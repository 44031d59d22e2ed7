use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", plural = "tickets", line = "{title}", list = "data.tickets")]
struct Dotted {
    id: u32,
    title: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "user", plural = "users", line = "{name}", list = " ")]
struct Blank {
    id: u32,
    name: String,
}

fn main() {}
