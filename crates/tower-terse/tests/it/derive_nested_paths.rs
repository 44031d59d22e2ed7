//! Nested template paths the derive cannot check at compile time (a nested
//! type's own serde renames, `serde_json::Value` fields): a key missing
//! from the record renders empty, as before, and warns once per resource
//! and path, at the first record that lacks it. The warnings are caught by
//! a subscriber scoped to this thread, so tests beside it do not mix in.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower_terse::CompactLine;
use tower_terse::compact::RenderContext;
use tracing::field::{Field, Visit};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Person {
    display_name: String,
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "ticket",
    line = "{title} by {reporter.displayNme}{? ({extra.severty})}"
)]
struct Ticket {
    id: u32,
    title: String,
    reporter: Person,
    extra: Value,
}

/// A second resource with the same mistake: it is reported for its own.
#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "bug", line = "{reporter.displayNme}")]
struct Bug {
    id: u32,
    reporter: Person,
}

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
}

/// Keeps every warning.
struct Capture(Arc<Mutex<Vec<String>>>);

impl tracing::Subscriber for Capture {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::WARN
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        self.0.lock().unwrap().push(message.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn ticket(n: u32) -> Value {
    json!({
        "id": n,
        "title": format!("bug {n}"),
        "reporter": {"displayName": "Ada"},
        "extra": {"severity": "high"},
    })
}

#[test]
fn a_missing_nested_key_warns_once_per_resource_and_path() {
    let cx = RenderContext::at_unix(0);
    let logged = Arc::new(Mutex::new(Vec::new()));
    tracing::subscriber::with_default(Capture(logged.clone()), || {
        for n in 0..5 {
            // The line is what it was: the missing values render empty.
            assert_eq!(
                Ticket::line_from_json(&ticket(n), &cx).unwrap(),
                format!("bug {n} by ")
            );
        }
        assert_eq!(Bug::line_from_json(&ticket(9), &cx).unwrap(), "");
        assert_eq!(Bug::line_from_json(&ticket(10), &cx).unwrap(), "");
    });
    let logged = logged.lock().unwrap().clone();
    assert_eq!(logged.len(), 3, "{logged:#?}");
    assert!(
        logged[0].contains("`reporter` has no key `displayNme`")
            && logged[0].contains("did you mean `displayName`?")
            && logged[0].contains("path=reporter.displayNme"),
        "{logged:#?}"
    );
    assert!(
        logged[1].contains("`extra` has no key `severty`")
            && logged[1].contains("did you mean `severity`?"),
        "{logged:#?}"
    );
    assert!(
        logged[2].contains("compact template `{reporter.displayNme}`"),
        "{logged:#?}"
    );
    // The warning names keys, never values.
    assert!(
        !logged
            .iter()
            .any(|line| line.contains("Ada") || line.contains("high"))
    );
}
