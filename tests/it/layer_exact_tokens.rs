//! `TerseLayer::exact_token_count`: X-Token-Count from the o200k_base
//! tokenizer instead of the estimate, through a real server.

use axum::{Json, Router, routing::get};
use serde_json::{Value, json};
use terse_tests::server::TestServer;
use tower_terse::TerseLayer;
use tower_terse::tokens::{estimate, exact};

fn events() -> Value {
    let rows: Vec<Value> = (0..40)
        .map(|i| {
            json!({
                "id": format!("evt_{i:03}"),
                "title": format!("Reunión de equipo número {i} 🗓️"),
                "start_at": format!("2026-03-{:02}T09:00:00Z", i % 28 + 1),
                "room": if i % 3 == 0 { Value::Null } else { json!("Blue") },
            })
        })
        .collect();
    json!({ "data": rows })
}

async fn serve(layer: TerseLayer) -> TestServer {
    let app = Router::new()
        .route("/events", get(|| async { Json(events()) }))
        .layer(layer);
    TestServer::spawn(app).await
}

/// The body and its X-Token-Count for one request.
async fn fetch(server: &TestServer, path: &str) -> (String, usize) {
    let response = reqwest::get(server.url(path)).await.unwrap();
    assert_eq!(response.status(), 200);
    let count = response.headers()["x-token-count"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    (response.text().await.unwrap(), count)
}

#[tokio::test]
async fn exact_counting_counts_the_body_as_sent_for_each_format() {
    let server = serve(TerseLayer::new().exact_token_count(true)).await;
    for path in ["/events?format=json", "/events?format=toon"] {
        let (body, count) = fetch(&server, path).await;
        assert_eq!(count, exact(&body), "{path}");
    }
    let (toon, _) = fetch(&server, "/events?format=toon").await;
    assert!(
        !toon.starts_with('{'),
        "TOON is cheaper for flat rows: {toon}"
    );
}

#[tokio::test]
async fn the_estimate_is_the_default() {
    let server = serve(TerseLayer::new()).await;
    let (body, count) = fetch(&server, "/events?format=toon").await;
    assert_eq!(count, estimate(body.as_bytes()));
    // The estimate stays close to the exact count of the same body.
    let exact = exact(&body) as f64;
    assert!((count as f64 - exact).abs() / exact < 0.10);
}

/// A small record whose TOON and JSON are a near tie: the smart fallback
/// counts both exactly to choose, and the header carries that exact count
/// rather than the estimate.
#[tokio::test]
async fn a_near_tie_settled_exactly_shows_the_exact_count() {
    let record = r#"{"id":"evt_1004","title":"Incident retro #142","start_at":"2026-03-02T15:00:00Z","end_at":"2026-03-02T16:00:00Z","location":"Room 4.12","organizer":"jonas@example.com","attendees":8,"status":"confirmed"}"#;
    let value: Value = serde_json::from_str(record).unwrap();
    let toon = terse_toon::encode(&value, &terse_toon::EncodeOptions::default());
    let choice =
        tower_terse::tokens::choose(record, &toon, tower_terse::tokens::Counting::Estimate);
    assert!(choice.decided_exactly, "not a near tie: {choice:?}");
    let app = Router::new()
        .route(
            "/record",
            get(move || async move { ([("content-type", "application/json")], record) }),
        )
        .layer(TerseLayer::new());
    let server = TestServer::spawn(app).await;
    let (body, count) = fetch(&server, "/record?format=toon").await;
    assert_eq!(count, exact(&body), "{body}");
    assert_ne!(
        count,
        estimate(body.as_bytes()),
        "the estimate differs here"
    );
}
