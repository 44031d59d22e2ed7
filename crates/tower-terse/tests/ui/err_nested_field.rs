use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize)]
struct Reporter {
    name: String,
    email: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "ticket", line = "{title} by {reporter.nme}")]
struct Ticket {
    id: u32,
    title: String,
    reporter: Reporter,
}

// Through the wrappers the derive can see: `Option`, `Box`, and a list by
// index; and a list read by name, which never renders anything.
#[derive(Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "review",
    line = "{reviewer.emial} {owner.nam} {watchers.0.mail} {watchers.name}"
)]
struct Review {
    id: u32,
    reviewer: Option<Reporter>,
    owner: Box<Reporter>,
    watchers: Vec<Reporter>,
}

fn main() {}
