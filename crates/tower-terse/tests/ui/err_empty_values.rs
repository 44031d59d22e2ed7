use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "", plural = " ", line = "")]
struct Empty {
    id: u32,
}

fn main() {}
