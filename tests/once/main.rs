//! The warning a compression layer inside `TerseLayer` earns: logged once
//! per process, so this test has a process of its own (in the shared `it`
//! binary, `layer_compression` sends compressed bodies through the layer
//! and would use the one warning up first). A real server on loopback.

use axum::{Json, Router, routing::get};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, header, raw_client};
use terse_tests::warnings::Warnings;
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;
use tower_terse::{CompactLine, TerseLayer};

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "event", line = "{title} in {room}")]
struct Meeting {
    id: String,
    title: String,
    room: String,
}

fn events() -> Value {
    let rows: Vec<Value> = (1..=12)
        .map(|n| json!({"id": format!("evt_{n:02}"), "title": format!("Planning {n}"), "room": "Blue"}))
        .collect();
    json!({"data": rows, "meta": {"total": 12}})
}

// The only test of this binary: the warning is once per process. The
// runtime is the test's own thread, where the layer runs and the scoped
// subscriber listens.
#[tokio::test]
async fn compression_inside_the_layer_is_named_and_logged_once() {
    let capture = Warnings::default();
    let _scoped = tracing::subscriber::set_default(capture.clone());
    let routes = Router::new().route("/events", get(|| async { Json(events()) }));
    let inside = ServiceBuilder::new()
        .layer(TerseLayer::new().resource::<Meeting>("/events"))
        .service(routes.layer(CompressionLayer::new()));
    let server = TestServer::spawn(Router::new().fallback_service(inside)).await;
    for _ in 0..3 {
        let response = raw_client()
            .get(server.url("/events?format=toon"))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(
            header(&response, "content-encoding").as_deref(),
            Some("gzip")
        );
        assert_eq!(
            header(&response, "x-response-format").as_deref(),
            Some("json; fallback=compressed")
        );
    }
    let logged: Vec<String> = capture.take();
    let warnings: Vec<&String> = logged
        .iter()
        .filter(|line| line.contains("CompressionLayer"))
        .collect();
    assert_eq!(warnings.len(), 1, "{logged:?}");
    assert!(warnings[0].starts_with("WARN "), "{}", warnings[0]);
    assert!(
        warnings[0].contains("outside"),
        "the warning names the fix: {}",
        warnings[0]
    );
    // A client that does not ask for compression gets the rewrite.
    let plain = server.get("/events?format=toon", &[]).await;
    assert_eq!(header(&plain, "x-response-format").as_deref(), Some("toon"));
}
