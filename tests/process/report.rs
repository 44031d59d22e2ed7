//! What the layer reports per counted response: one `tracing` event (target
//! `terse`) and, with the `metrics` feature, three counters labelled by the
//! route pattern and the format served.

use std::collections::BTreeMap;

use axum::{Json, Router, routing::get};
use serde_json::json;
use terse_tests::server::{TestServer, token_count};
use tower_terse::TerseLayer;
use tower_terse::compact::{CompactResource, Template};

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
    let (_alone, counters, events) = terse_tests::reports::install().await;
    let server = TestServer::spawn(app()).await;

    let mut tokens = BTreeMap::<&str, u64>::new();
    for (path, served) in [
        ("/teams/core/events", "json"),
        ("/teams/ops/events?format=toon", "toon"),
        ("/teams/core/events?format=compact", "compact"),
        ("/tiny?format=toon", "json"),
    ] {
        let response = server.get(path, &[]).await;
        *tokens.entry(served).or_default() += token_count(&response) as u64;
    }
    let json_tokens = tokens["json"] - {
        // `/tiny` fell back to its JSON: its count is its JSON's.
        token_count(&server.get("/tiny", &[]).await) as u64
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

    let logged = events.lines();
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
