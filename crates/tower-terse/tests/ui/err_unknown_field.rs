use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "note", line = "{titel} {? [{author.name}]} {zzz|upper}")]
struct Note {
    id: u32,
    title: String,
    body: String,
}

fn main() {}
