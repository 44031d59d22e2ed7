//! Small bodies that cost much: work is accounted by what it costs, not by
//! the bytes that came in. An MCP answer of a few kilobytes nested 60
//! levels deep writes far more TOON (each line indented by its depth), and
//! a short TOON request whose long table key every row repeats decodes to
//! half a megabyte of JSON. Both take a slot of the layer's one
//! [`BlockingLimit`] like any costly rewrite: with the only slot held by
//! other work, the MCP answer goes to the client as the server wrote it
//! (counted as busy) and the TOON request is refused with a 503, where
//! both used to run on the async worker. Cheap work of the same size still
//! runs in place. Real servers on loopback, a real client.

use std::time::Duration;

use axum::body::Body;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use terse_tests::bomb::deep_records;
use terse_tests::held_slot::hold_slot;
use terse_tests::server::{TestServer, post_mcp, raw_client};
use tower_terse::mcp::{McpLayer, OFFLOAD_BYTES};
use tower_terse::settings::BlockingLimit;
use tower_terse::{Format, TerseLayer};

/// A limit of one slot that never waits.
fn one_slot() -> BlockingLimit {
    BlockingLimit::new(1).with_wait(Duration::ZERO)
}

/// The endpoint's answer to a `tools/call` with id `id`: a few kilobytes
/// of records nested 60 levels deep, whose TOON is mostly the indentation
/// of each line.
fn deep_answer(id: &Value) -> String {
    let answer = json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": deep_records(60, 200)}]}})
    .to_string();
    assert!(answer.len() < OFFLOAD_BYTES / 2, "{}", answer.len());
    answer
}

/// An MCP endpoint answering every call with [`deep_answer`]: as JSON on
/// `/mcp`, as one server-sent event on `/sse`.
async fn mcp_server(layer: McpLayer) -> TestServer {
    let json = |body: String| async move {
        let request: Value = serde_json::from_str(&body).expect("JSON-RPC");
        axum::response::Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(deep_answer(&request["id"])))
            .expect("response")
    };
    let events = |body: String| async move {
        let request: Value = serde_json::from_str(&body).expect("JSON-RPC");
        axum::response::Response::builder()
            .header("content-type", "text/event-stream")
            .body(Body::from(format!(
                "event: message\ndata: {}\n\n",
                deep_answer(&request["id"])
            )))
            .expect("response")
    };
    TestServer::spawn(
        Router::new()
            .route("/mcp", post(json))
            .route("/sse", post(events))
            .layer(layer),
    )
    .await
}

/// The text of what a `tools/call` to `path` got back: the JSON answer, or
/// the data of the one event.
async fn call(server: &TestServer, path: &str, id: u32) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "tree", "arguments": {}}});
    let text = post_mcp(server, path, &call).await;
    match text.strip_prefix("event: message\ndata: ") {
        Some(event) => event.trim_end().to_owned(),
        None => text,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_mcp_answer_that_renders_large_takes_the_slot_over_http() {
    let limit = one_slot();
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .smart_fallback(false)
        .blocking_limit(limit.clone());
    let server = mcp_server(layer).await;

    let held = hold_slot(&limit).await;
    // The slot taken: the answer, and the event, go out as the server
    // wrote them, each counted.
    for (path, busy) in [("/mcp", 1), ("/sse", 2)] {
        let passed = call(&server, path, 1).await;
        assert!(
            passed == deep_answer(&json!(1)),
            "{path}: rewritten while the slot was held: {}",
            &passed[..120]
        );
        assert_eq!(limit.busy(), busy, "{path}");
    }
    held.release().await;

    // The slot free: both are rewritten, past the threshold they came in
    // under half of.
    for path in ["/mcp", "/sse"] {
        let rewritten = call(&server, path, 2).await;
        let answer: Value = serde_json::from_str(&rewritten).expect("a JSON-RPC answer");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .expect("a text block");
        assert!(text.starts_with("level: 59\n"), "{path}: {}", &text[..80]);
        assert!(
            rewritten.len() > OFFLOAD_BYTES,
            "{path}: {}",
            rewritten.len()
        );
    }
    assert_eq!((limit.busy(), limit.available()), (2, 1));
}

/// Echoes the JSON the handler got.
async fn echo(Json(value): Json<Value>) -> Json<Value> {
    Json(value)
}

async fn post_toon(server: &TestServer, toon: String) -> (u16, Value) {
    let response = raw_client()
        .post(server.url("/echo"))
        .header("content-type", "text/toon")
        .body(toon)
        .send()
        .await
        .expect("POST");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let value = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{err}: {text}"));
    (status, value)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_toon_request_that_decodes_large_takes_the_slot() {
    let limit = one_slot();
    // The default threshold: a costly decoding is far past it, the body
    // far below.
    let layer = TerseLayer::new().blocking_limit(limit.clone());
    let server = TestServer::spawn(Router::new().route("/echo", post(echo)).layer(layer)).await;
    let key = "k".repeat(512);
    let costly = format!("t[1000]{{{key}}}:\n{}", "  x\n".repeat(1000));
    assert!(costly.len() < 8 << 10);
    let cheap = format!("t[1000]{{id}}:\n{}", "  1\n".repeat(1000));
    assert!(cheap.len() < costly.len());

    let held = hold_slot(&limit).await;
    // Cheap to decode: decoded in place, slot or not.
    let (status, value) = post_toon(&server, cheap.clone()).await;
    assert_eq!(status, 200, "{value}");
    assert_eq!(value["t"][999], json!({"id": 1}));
    // Costly: it needs the slot, and the handler needs the JSON, so it is
    // refused rather than decoded on the worker.
    let (status, refusal) = post_toon(&server, costly.clone()).await;
    assert_eq!(status, 503, "{refusal}");
    assert_eq!(refusal["error"]["code"], "busy", "{refusal}");
    held.release().await;

    let (status, value) = post_toon(&server, costly).await;
    assert_eq!(status, 200);
    let rows = value["t"].as_array().expect("the rows");
    assert_eq!(rows.len(), 1000);
    assert_eq!(rows[999][key.as_str()], "x");
    assert!(value.to_string().len() > 1000 * 512);
}
