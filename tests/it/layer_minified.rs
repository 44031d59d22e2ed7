//! The JSON minified, served by the layer on a real server to a real
//! client: a pretty-printed list of nested records, on which TOON costs
//! more than the same JSON minified, goes out to `?format=toon` (and to
//! `?format=compact` where no template applies) minified byte for byte:
//! numbers such as `1.0`, `1e2`, `-0` and `12345678901234567890` digit for
//! digit, escapes as written. A plain request and an error are the
//! handler's bytes.

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;

/// Nested records, written with `indent=2` and numbers a re-serialization
/// would write otherwise.
fn pretty() -> String {
    let record = |i: u32| {
        format!(
            "  {{\n    \"id\": {i},\n    \"price\": 1.0,\n    \"scale\": 1e2,\n    \"offset\": -0,\n    \
             \"big\": 12345678901234567890,\n    \"note\": \"caf\\u00e9 \\/ tab\\t\",\n    \
             \"owner\": {{\n      \"name\": \"user {i}\",\n      \"roles\": [\n        \"admin\",\n        \
             \"dev\"\n      ],\n      \"address\": {{\n        \"city\": \"Paris\"\n      }}\n    }},\n    \
             \"tags\": [\n      {{\n        \"k\": \"a\"\n      }}\n    ]\n  }}"
        )
    };
    let records: Vec<String> = (1..=4).map(record).collect();
    format!("[\n{}\n]\n", records.join(",\n"))
}

/// What the layer must send: the same text without its blanks between
/// tokens, written out here by hand from the same pieces.
fn minified() -> String {
    let record = |i: u32| {
        format!(
            "{{\"id\":{i},\"price\":1.0,\"scale\":1e2,\"offset\":-0,\"big\":12345678901234567890,\
             \"note\":\"caf\\u00e9 \\/ tab\\t\",\"owner\":{{\"name\":\"user {i}\",\"roles\":[\"admin\",\
             \"dev\"],\"address\":{{\"city\":\"Paris\"}}}},\"tags\":[{{\"k\":\"a\"}}]}}"
        )
    };
    let records: Vec<String> = (1..=4).map(record).collect();
    format!("[{}]", records.join(","))
}

#[tokio::test]
async fn nested_records_go_out_minified_digit_for_digit() {
    let router = Router::new()
        .route(
            "/records",
            get(|| async {
                (
                    [("content-type", "application/json"), ("etag", "\"v1\"")],
                    pretty(),
                )
            }),
        )
        .route(
            "/broken",
            get(|| async {
                (
                    StatusCode::BAD_REQUEST,
                    [("content-type", "application/json")],
                    pretty(),
                )
            }),
        )
        .layer(TerseLayer::new());
    let server = TestServer::spawn(router).await;
    let client = raw_client();
    let get = |path: &str| client.get(server.url(path)).send();

    let response = get("/records?format=toon").await.expect("GET");
    let headers = response.headers().clone();
    let body = response.text().await.expect("body");
    assert_eq!(body, minified());
    assert!(
        body.contains("\"price\":1.0,\"scale\":1e2,\"offset\":-0,\"big\":12345678901234567890")
    );
    let toon = terse_toon::encode(
        &serde_json::from_str(&pretty()).expect("JSON"),
        &Default::default(),
    );
    let exact = tower_terse::tokens::exact;
    assert!(exact(&body) < exact(&toon), "TOON would cost less");
    assert_eq!(
        headers["x-response-format"],
        "json; minified; fallback=not-cheaper"
    );
    assert_eq!(headers["etag"], "W/\"v1-json-min\"");
    assert_eq!(headers["content-length"], body.len().to_string().as_str());
    let count: usize = headers["x-token-count"].to_str().unwrap().parse().unwrap();
    // Exact when the choice was a near tie, else the smart fallback's
    // estimate of the JSON (which adds the tokens of its escaped words).
    assert!(
        count == exact(&body) || count == tower_terse::tokens::estimates(&body, &toon).0,
        "X-Token-Count {count} counts what is sent"
    );

    // Compact lines where no template applies: the JSON, minified.
    let response = get("/records?format=compact").await.expect("GET");
    assert_eq!(
        response.headers()["x-response-format"],
        "json; minified; fallback=no-template"
    );
    assert_eq!(response.text().await.expect("body"), minified());

    // Nobody asked: the handler's bytes.
    let response = get("/records").await.expect("GET");
    assert_eq!(response.headers()["etag"], "\"v1\"");
    assert_eq!(response.text().await.expect("body"), pretty());
    let response = get("/records?format=json").await.expect("GET");
    assert_eq!(response.headers()["x-response-format"], "json");
    assert_eq!(response.text().await.expect("body"), pretty());

    // An error is never rewritten.
    let response = get("/broken?format=toon").await.expect("GET");
    assert_eq!(response.status().as_u16(), 400);
    assert!(response.headers().get("x-response-format").is_none());
    assert_eq!(response.text().await.expect("body"), pretty());
}
