use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id|trunc}")]
struct MissingCount {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id|trunc(ten)}")]
struct NotANumber {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id|upper(1)}")]
struct UnexpectedArgument {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id|join}")]
struct MissingText {
    id: u32,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{id|default(n/a}")]
struct UnclosedArgument {
    id: u32,
}

fn main() {}
