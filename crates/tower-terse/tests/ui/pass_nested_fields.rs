// Nested paths the derive checks, and those it leaves to the run time
// (a missing key there warns once): keys renamed by the nested type,
// `serde_json::Value` and maps, fields marked `unchecked`, and segments
// below the first nested struct.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tower_terse::CompactLine;

#[derive(Serialize, Deserialize)]
struct Team {
    name: String,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Person {
    name: String,
    display_name: String,
    team: Team,
}

#[derive(Serialize, Deserialize)]
struct Renamed {
    #[serde(rename = "nick")]
    name: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type")]
enum Payment {
    Card { last4: String },
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "ticket",
    line = "{reporter.name} {reporter.displayName} {reporter.team.name} {reviewer.name} \
            {owner.name} {watchers.0.name} {watchers.1.team} {extra.anything.at.all} \
            {labels.red} {alias.nick} {payment.type} {payment.last4} {type.name}"
)]
struct Ticket {
    id: u32,
    reporter: Person,
    reviewer: Option<Person>,
    owner: Box<Person>,
    watchers: Vec<Person>,
    extra: serde_json::Value,
    labels: BTreeMap<String, String>,
    #[compact(unchecked)]
    alias: Renamed,
    #[compact(unchecked)]
    payment: Payment,
    r#type: Team,
}

fn main() {}
