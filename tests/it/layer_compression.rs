//! The layer inside tower-http's CompressionLayer, and compressed bodies from
//! handlers, which the layer never touches.

use axum::{Json, Router, routing::get};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client, token_count};
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;
use tower_terse::TerseLayer;

fn tickets() -> Value {
    let rows: Vec<Value> = (1..=40)
        .map(|n| json!({"id": n, "title": format!("Ticket number {n}"), "state": if n % 3 == 0 { "closed" } else { "open" }, "assignee": "sam"}))
        .collect();
    json!({"items": rows})
}

fn routes() -> Router {
    Router::new().route("/tickets", get(|| async { Json(tickets()) }))
}

#[tokio::test]
async fn compressed_toon_is_correct_when_decompressed() {
    let app = routes()
        .layer(TerseLayer::new())
        .layer(CompressionLayer::new());
    let server = TestServer::spawn(app).await;
    let expected = terse_toon::encode(&tickets(), &Default::default());

    let raw = raw_client()
        .get(server.url("/tickets?format=toon"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.headers()["content-encoding"], "gzip");
    assert_eq!(raw.headers()["content-type"], "text/toon; charset=utf-8");
    let count = token_count(&raw);
    assert_eq!(count, tower_terse::tokens::estimate(expected.as_bytes()));
    let compressed = raw.bytes().await.unwrap();
    assert!(compressed.len() < expected.len());

    // A client that undoes gzip reads exactly the TOON document.
    let response = reqwest::Client::new()
        .get(server.url("/tickets?format=toon"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), expected);
}

#[tokio::test]
async fn a_compressed_body_from_the_handler_is_left_alone() {
    // Compression inside the layer: the layer sees a gzip body it must not touch.
    let compressed_inside = ServiceBuilder::new()
        .layer(TerseLayer::new())
        .service(routes().layer(CompressionLayer::new()));
    let layered = TestServer::spawn(Router::new().fallback_service(compressed_inside)).await;
    let bare = TestServer::spawn(routes().layer(CompressionLayer::new())).await;

    let fetch = |server: &TestServer, path: &str| {
        raw_client()
            .get(server.url(path))
            .header("accept-encoding", "gzip")
            .header("x-prefer-format", "toon")
            .send()
    };
    let got = fetch(&layered, "/tickets?fields=id&format=toon")
        .await
        .unwrap();
    let expected = fetch(&bare, "/tickets?fields=id&format=toon")
        .await
        .unwrap();
    assert_eq!(got.headers()["content-encoding"], "gzip");
    assert_eq!(got.headers()["content-type"], "application/json");
    assert!(got.headers().get("x-token-count").is_none());
    assert!(got.headers().get("content-length").is_none());
    assert_eq!(got.bytes().await.unwrap(), expected.bytes().await.unwrap());

    let decompressed = reqwest::Client::new()
        .get(layered.url("/tickets?format=toon"))
        .send()
        .await
        .unwrap();
    assert_eq!(decompressed.text().await.unwrap(), tickets().to_string());
}
