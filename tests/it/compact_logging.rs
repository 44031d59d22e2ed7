//! What the layer logs when compact lines cannot be served: a warning for a
//! record that does not fit the resource (its field path and the types, never
//! its values; at most once a minute per route), nothing for a body that is
//! simply not a list or a route without a resource.

use axum::{Json, Router, routing::get};
use serde::{Deserialize, Serialize};
use serde_json::json;
use terse_tests::server::{TestServer, raw_client};
use terse_tests::warnings::Warnings;
use tower_terse::{CompactLine, TerseLayer};

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "event", line = "{title}")]
struct Meeting {
    id: u32,
    title: String,
    attendees: u32,
}

// The runtime is the test's own thread, where the layer runs: a
// subscriber scoped to it hears the layer and no other test.
#[tokio::test]
async fn a_record_that_does_not_fit_is_logged_and_nothing_else_is() {
    let capture = Warnings::default();
    let _scoped = tracing::subscriber::set_default(capture.clone());
    let router = Router::new()
        .route(
            "/teams/{team}/events",
            get(|| async {
                Json(json!({"data": [
                    {"id": 1, "title": "Standup", "attendees": 4},
                    {"id": 2, "title": "Retro", "attendees": "many"},
                ]}))
            }),
        )
        .route(
            "/teams/{team}/events/{id}",
            get(|| async { Json(json!({"id": 1, "title": "Standup", "attendees": 4})) }),
        )
        .route("/rooms", get(|| async { Json(json!([{"id": "x"}])) }))
        .layer(
            TerseLayer::new()
                .resource::<Meeting>("/teams/{id}/events")
                .resource::<Meeting>("/teams/{id}/events/{event}"),
        );
    let server = TestServer::spawn(router).await;
    let get = |path: &'static str| {
        let url = server.url(path);
        async move { raw_client().get(url).send().await.unwrap().status() }
    };

    assert_eq!(get("/teams/core/events?format=compact").await, 200);
    let logged = capture.take();
    assert_eq!(logged.len(), 1, "{logged:?}");
    let line = &logged[0];
    assert!(line.starts_with("WARN "), "{line}");
    assert!(line.contains("route=/teams/{id}/events"), "{line}");
    assert!(line.contains("path=/teams/core/events"), "{line}");
    assert!(
        line.contains("reason=record 1: field `attendees`: expected u32, found a string"),
        "{line}"
    );
    assert!(
        !line.contains("many"),
        "the record's values stay out: {line}"
    );

    // The same fault on every request logs once a minute per route, however
    // many requests hit it.
    for _ in 0..20 {
        assert_eq!(get("/teams/core/events?format=compact").await, 200);
        assert_eq!(get("/teams/ops/events?format=compact").await, 200);
    }
    assert_eq!(capture.take(), Vec::<String>::new());

    assert_eq!(get("/teams/core/events/1?format=compact").await, 200);
    assert_eq!(get("/rooms?format=compact").await, 200);
    assert_eq!(capture.take(), Vec::<String>::new());
}
