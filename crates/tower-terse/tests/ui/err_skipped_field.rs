use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "user", line = "{name} {password_hash}")]
struct User {
    #[compact(id)]
    #[serde(skip)]
    id: u32,
    name: String,
    #[serde(skip_serializing)]
    password_hash: String,
}

fn main() {}
