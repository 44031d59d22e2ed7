//! What the layer reports per counted response: one `tracing` event (target
//! `terse`) and, with the `metrics` feature, three counters labelled by the
//! route pattern and the format served.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::{Json, Router, routing::get};
use metrics::{
    Counter, CounterFn, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit,
};
use serde_json::json;
use terse::TerseLayer;
use terse::compact::{CompactResource, Template};
use terse_tests::server::{TestServer, raw_client};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};

/// Every counter, by name and sorted labels.
#[derive(Clone, Default)]
struct Counters(Arc<Mutex<BTreeMap<String, Arc<Value>>>>);

#[derive(Default)]
struct Value(AtomicU64);

impl CounterFn for Value {
    fn increment(&self, value: u64) {
        self.0.fetch_add(value, Ordering::Relaxed);
    }
    fn absolute(&self, value: u64) {
        self.0.store(value, Ordering::Relaxed);
    }
}

fn key_text(key: &Key) -> String {
    let mut labels: Vec<String> = key
        .labels()
        .map(|label| format!("{}={}", label.key(), label.value()))
        .collect();
    labels.sort();
    format!("{}{{{}}}", key.name(), labels.join(","))
}

impl Counters {
    fn get(&self, key: &str) -> u64 {
        let all = self.0.lock().unwrap();
        all.get(key)
            .map_or(0, |value| value.0.load(Ordering::Relaxed))
    }
}

impl Recorder for Counters {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let value = self
            .0
            .lock()
            .unwrap()
            .entry(key_text(key))
            .or_default()
            .clone();
        Counter::from_arc(value)
    }
    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }
    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}

/// Every debug event of target `terse`, as `field=value ...`.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<String>>>);

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let _ = write!(self.0, " {}={:?}", field.name(), value);
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={}", field.name(), value);
    }
}

impl Subscriber for Events {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target() == "terse"
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        self.0.lock().unwrap().push(line.0.trim().to_owned());
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn app() -> Router {
    let events = json!({"data": [
        {"id": 1, "title": "Standup", "room": "4.12", "start": "09:00"},
        {"id": 2, "title": "Review", "room": "4.12", "start": "10:00"},
        {"id": 3, "title": "Retro", "room": "4.13", "start": "16:00"},
    ]});
    // Arrays of arrays: TOON indents each level, JSON does not.
    let nested = json!([[[[1, 2]]], [[[3]]]]);
    Router::new()
        .route(
            "/teams/{team}/events",
            get(move || {
                let events = events.clone();
                async move { Json(events) }
            }),
        )
        .route(
            "/tiny",
            get(move || {
                let nested = nested.clone();
                async move { Json(nested) }
            }),
        )
        .layer(TerseLayer::new().compact_resource(
            "/teams/{id}/events",
            CompactResource::new("event", Template::parse("{start} {title}").unwrap()),
        ))
}

#[tokio::test]
async fn each_counted_response_is_one_event_and_three_counters() {
    let counters = Counters::default();
    metrics::set_global_recorder(counters.clone()).unwrap();
    let events = Events::default();
    tracing::subscriber::set_global_default(events.clone()).unwrap();
    let server = TestServer::spawn(app()).await;

    let mut tokens = BTreeMap::<&str, u64>::new();
    for (path, served) in [
        ("/teams/core/events", "json"),
        ("/teams/ops/events?format=toon", "toon"),
        ("/teams/core/events?format=compact", "compact"),
        ("/tiny?format=toon", "json"),
    ] {
        let response = raw_client().get(server.url(path)).send().await.unwrap();
        let count: u64 = response.headers()["x-token-count"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        *tokens.entry(served).or_default() += count;
    }
    let json_tokens = tokens["json"] - {
        // `/tiny` fell back to its JSON: its count is its JSON's.
        let tiny = raw_client().get(server.url("/tiny")).send().await.unwrap();
        tiny.headers()["x-token-count"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };

    let route = "/teams/{team}/events";
    assert_eq!(
        counters.get(&format!(
            "terse_responses_total{{format=json,route={route}}}"
        )),
        1
    );
    assert_eq!(
        counters.get(&format!(
            "terse_responses_total{{format=toon,route={route}}}"
        )),
        1
    );
    assert_eq!(
        counters.get(&format!(
            "terse_responses_total{{format=compact,route={route}}}"
        )),
        1
    );
    assert_eq!(
        counters.get("terse_responses_total{format=json,route=/tiny}"),
        2
    );
    assert_eq!(
        counters.get(&format!("terse_tokens_total{{format=toon,route={route}}}")),
        tokens["toon"]
    );
    assert_eq!(
        counters.get(&format!(
            "terse_tokens_total{{format=compact,route={route}}}"
        )),
        tokens["compact"]
    );
    // The JSON of the events route costs the same three times over: once
    // served as JSON, and as what TOON and compact lines were measured against.
    assert_eq!(
        counters.get(&format!("terse_json_tokens_total{{route={route}}}")),
        3 * json_tokens
    );
    assert!(tokens["compact"] < json_tokens && tokens["toon"] < json_tokens);

    let logged = events.0.lock().unwrap().clone();
    assert_eq!(logged.len(), 5, "{logged:#?}");
    let toon = logged
        .iter()
        .find(|line| line.contains("served=toon"))
        .unwrap();
    for field in [
        "route=/teams/{team}/events",
        "asked=toon",
        "fallback=false",
        &format!("tokens={}", tokens["toon"]),
        &format!("json_tokens={json_tokens}"),
    ] {
        assert!(toon.contains(field), "{field} in {toon}");
    }
    let fallback = logged
        .iter()
        .find(|line| line.contains("route=/tiny") && line.contains("asked=toon"))
        .unwrap();
    assert!(
        fallback.contains("served=json") && fallback.contains("fallback=true"),
        "{fallback}"
    );
    let plain = logged
        .iter()
        .find(|line| line.contains("asked=none"))
        .unwrap();
    assert!(
        plain.contains("served=json") && plain.contains("fallback=false"),
        "{plain}"
    );
}
