use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "pair", line = "{0}")]
struct Pair(u32, String);

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "unit", line = "-")]
struct Unit;

fn main() {}
