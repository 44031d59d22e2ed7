//! TOON responses: the codec's output, options, and smart fallback.

use axum::{
    Json, Router,
    routing::{get, post},
};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, header, raw_client, token_count};
use tower_terse::TerseLayer;
use tower_terse::tokens::estimate;
use tower_terse::toon::{Delimiter, EncodeOptions};

fn invoices() -> Value {
    json!({"data": [
        {"id": "inv_1001", "customer": "Acme GmbH", "amount": 1299.5, "currency": "EUR", "status": "paid", "due": "2026-02-01"},
        {"id": "inv_1002", "customer": "Globex, Inc.", "amount": 80, "currency": "USD", "status": "open", "due": "2026-03-15"},
        {"id": "inv_1003", "customer": "Initech", "amount": 45.25, "currency": "USD", "status": "overdue", "due": "2026-01-10"},
    ], "meta": {"total": 3}})
}

/// Deep, narrow nesting: TOON spends more on indentation than JSON on braces.
/// Arrays of arrays: TOON writes a header and an indent for every level,
/// where JSON writes one bracket.
fn nested() -> Value {
    let mut value = json!([1, 2]);
    for _ in 0..8 {
        value = json!([value, [3]]);
    }
    value
}

fn app(layer: TerseLayer) -> Router {
    Router::new()
        .route(
            "/invoices",
            get(|| async { Json(invoices()) }).post(|| async { Json(invoices()) }),
        )
        .route("/nested", get(|| async { Json(nested()) }))
        .route(
            "/echo",
            post(|body: String| async move { ([("content-type", "application/json")], body) }),
        )
        .layer(layer)
}

async fn fetch(server: &TestServer, path: &str) -> (String, usize, String) {
    let response = server.get(path, &[]).await;
    let content_type = header(&response, "content-type").unwrap();
    let count = token_count(&response);
    (content_type, count, response.text().await.unwrap())
}

#[tokio::test]
async fn toon_is_the_codecs_encoding_of_the_whole_document() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let (content_type, count, body) = fetch(&server, "/invoices?format=toon").await;
    assert_eq!(content_type, "text/toon; charset=utf-8");
    assert_eq!(
        body,
        terse_toon::encode(&invoices(), &EncodeOptions::default())
    );
    assert_eq!(count, estimate(body.as_bytes()));
    assert_eq!(
        terse_toon::decode(&body, &Default::default()).unwrap(),
        invoices()
    );
}

#[tokio::test]
async fn other_methods_are_rewritten_too() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let response = raw_client()
        .post(server.url("/invoices?format=toon"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["content-type"],
        "text/toon; charset=utf-8"
    );
    assert_eq!(
        response.text().await.unwrap(),
        terse_toon::encode(&invoices(), &Default::default())
    );
}

#[tokio::test]
async fn toon_options_are_used() {
    let options = EncodeOptions::new()
        .with_delimiter(Delimiter::Pipe)
        .with_indent_size(4);
    let server = TestServer::spawn(app(TerseLayer::new().toon_options(options.clone()))).await;
    let (_, _, body) = fetch(&server, "/invoices?format=toon").await;
    assert_eq!(body, terse_toon::encode(&invoices(), &options));
    assert!(body.contains("|"));
}

#[tokio::test]
async fn smart_fallback_serves_json_when_toon_is_not_cheaper() {
    let json_text = nested().to_string();
    let toon_text = terse_toon::encode(&nested(), &Default::default());
    assert!(
        estimate(toon_text.as_bytes()) >= estimate(json_text.as_bytes()),
        "the fixture must be one where TOON costs more"
    );
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let (content_type, count, body) = fetch(&server, "/nested?format=toon").await;
    assert_eq!(content_type, "application/json");
    assert_eq!(body, json_text);
    assert_eq!(count, estimate(json_text.as_bytes()));

    let server = TestServer::spawn(app(TerseLayer::new().smart_fallback(false))).await;
    let (content_type, count, body) = fetch(&server, "/nested?format=toon").await;
    assert_eq!(content_type, "text/toon; charset=utf-8");
    assert_eq!(body, toon_text);
    assert_eq!(count, estimate(toon_text.as_bytes()));
}

#[tokio::test]
async fn json_text_with_odd_spacing_and_unicode_is_encoded_from_its_bytes() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let text = "{ \"items\" : [ {\"id\":1, \"city\":\"Zürich\", \"emoji\":\"🚀\"},\n {\"id\":2, \"city\":\"東京\", \"emoji\":\"🗼\"} ] }";
    let response = raw_client()
        .post(server.url("/echo?format=toon"))
        .body(text)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["content-type"],
        "text/toon; charset=utf-8"
    );
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        response.text().await.unwrap(),
        terse_toon::encode(&value, &Default::default())
    );
}

#[tokio::test]
async fn render_matches_what_the_layer_serves() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    for (path, value) in [
        ("/invoices?format=toon", invoices()),
        ("/nested?format=toon", nested()),
    ] {
        let (_, _, body) = fetch(&server, path).await;
        assert_eq!(
            body,
            tower_terse::format::render(&value, tower_terse::Format::Toon),
            "{path}"
        );
        assert_eq!(
            body,
            tower_terse::format::render_json(&value.to_string(), tower_terse::Format::Toon)
                .unwrap()
        );
    }
}
