use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize, CompactLine)]
#[serde(rename_all = "camelCase")]
#[compact(noun = "event", line = "{start-at|time} {summary}")]
struct Event {
    id: u32,
    start_at: String,
    #[serde(rename = "summary_text")]
    summary: String,
}

fn main() {}
