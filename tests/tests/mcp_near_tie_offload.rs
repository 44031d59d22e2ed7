//! Where an MCP rewrite's smart fallback does its work, as the HTTP
//! layer's does: parsing and encoding a text block costs in proportion to
//! the block and its output, counting both renderings exactly, which only
//! a near tie needs, several times more. So an answer renders on the async
//! worker when its encoding is cheap enough, and only a near tie whose
//! exact counts would take it past `OFFLOAD_BYTES` leaves for the blocking
//! pool, under the `BlockingLimit`, to be counted there.
//!
//! Observed through the limit, over MCP's HTTP transport: with its one
//! slot held and no wait, what needs the pool goes out as the server wrote
//! it (counted busy), what does not is rewritten on the worker.

use std::sync::mpsc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::routing::post;
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::mcp::{McpLayer, OFFLOAD_BYTES};
use tower_terse::tokens::{Counting, Served, choose, exact};
use tower_terse::{BlockingLimit, Format, OffWorkers};

/// Orders with a nested customer and an items table: TOON and JSON are
/// within a few percent, a near tie.
fn orders(count: usize) -> String {
    let words = ["Maple", "River", "Stone", "Orbit", "Harbor", "Delta"];
    let statuses = ["paid", "shipped", "pending", "refunded"];
    let data: Vec<Value> = (0..count)
        .map(|i| {
            json!({
                "id": format!("ord_{i:05}"),
                "status": statuses[i % 4],
                "customer": {
                    "id": 1000 + i * 7,
                    "name": format!("{} {}", words[i % 6], words[(i / 6) % 6]),
                    "address": {"city": words[(i * 5) % 6], "zip": format!("{}", 10000 + i * 37)},
                },
                "items": (0..1 + i % 3)
                    .map(|j| json!({"sku": format!("SKU-{}", 100 + (i * 13 + j) % 900), "qty": 1 + j, "price": (i * 7 + j) as f64 / 4.0}))
                    .collect::<Vec<_>>(),
                "total": (i * 11) as f64 / 8.0,
                "notes": if i % 3 == 0 { Value::Null } else { json!("leave at the door") },
            })
        })
        .collect();
    json!({"data": data, "total": count, "page": 1}).to_string()
}

/// Flat uniform rows: TOON wins clearly, decided on the estimates.
fn rows(count: usize) -> String {
    let rows: Vec<Value> = (0..count)
        .map(|i| {
            json!({"id": i, "name": format!("user {i}"), "email": format!("user{i}@example.com"),
                   "active": i % 3 != 0, "score": (i * 17 % 1000) as f64 / 10.0})
        })
        .collect();
    Value::Array(rows).to_string()
}

/// A small record whose TOON and JSON are a near tie.
const RECORD: &str = r#"{"id":"evt_1004","title":"Incident retro #142","start_at":"2026-03-02T15:00:00Z","end_at":"2026-03-02T16:00:00Z","location":"Room 4.12","organizer":"jonas@example.com","attendees":8,"status":"confirmed"}"#;

fn toon_of(json: &str) -> String {
    let value: Value = serde_json::from_str(json).expect("JSON");
    terse_toon::encode(&value, &terse_toon::EncodeOptions::default())
}

/// The tool's JSON text: each tool answers with one document.
fn document(tool: &str) -> String {
    match tool {
        "orders" => orders(40),
        "rows" => rows(120),
        _ => RECORD.to_owned(),
    }
}

/// The server's answer to call `id` of `tool`: one text block.
fn answer(id: &Value, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": document(tool)}]}})
    .to_string()
}

/// An MCP endpoint answering each call with its tool's document.
async fn mcp_server(layer: McpLayer) -> TestServer {
    let handler = |body: String| async move {
        let request: Value = serde_json::from_str(&body).expect("JSON-RPC");
        let tool = request["params"]["name"].as_str().unwrap_or_default();
        axum::response::Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(answer(&request["id"], tool)))
            .expect("response")
    };
    TestServer::spawn(Router::new().route("/mcp", post(handler)).layer(layer)).await
}

/// What a call of `tool` got back: the whole answer, and its text block.
async fn call(server: &TestServer, tool: &str, id: u32) -> (String, String) {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}});
    let response = raw_client()
        .post(server.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(call.to_string())
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 200);
    let text = response.text().await.expect("body");
    let value: Value = serde_json::from_str(&text).expect("a JSON-RPC answer");
    let block = value["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_owned();
    (text, block)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_near_tie_costing_too_much_to_count_here_leaves_the_worker() {
    let (orders, rows) = (document("orders"), document("rows"));
    // The documents are what they are meant to be, and each answer is well
    // under the threshold: its encoding is work for the worker.
    let orders_toon = toon_of(&orders);
    let tie = choose(&orders, &orders_toon, Counting::Estimate);
    assert!(tie.decided_exactly, "orders: not a near tie: {tie:?}");
    let rows_toon = toon_of(&rows);
    let clear = choose(&rows, &rows_toon, Counting::Estimate);
    assert!(
        !clear.decided_exactly && clear.served == Served::Toon,
        "rows: not a clear TOON win: {clear:?}"
    );
    let record_choice = choose(RECORD, &toon_of(RECORD), Counting::Estimate);
    assert!(record_choice.decided_exactly, "record: {record_choice:?}");
    for tool in ["orders", "rows"] {
        let len = answer(&json!(1), tool).len();
        assert!(len < OFFLOAD_BYTES / 4, "{tool}: {len}");
    }

    let limit = BlockingLimit::new(1).with_wait(Duration::ZERO);
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .blocking_limit(limit.clone());
    let server = mcp_server(layer).await;

    // Hold the limit's one slot.
    let (release, held) = mpsc::channel::<()>();
    let holder = {
        let limit = limit.clone();
        tokio::spawn(async move { limit.off_the_workers(move || held.recv()) })
    };
    while limit.available() > 0 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }

    // A clear win is rendered and decided on the worker: it needed no slot.
    let (_, block) = call(&server, "rows", 1).await;
    assert!(block == rows_toon, "not its TOON: {}", &block[..80]);
    assert_eq!(limit.busy(), 0, "the clear win asked for a slot");

    // The near tie is encoded on the worker, but counting both texts
    // exactly is work for the pool, which has no slot: the answer goes out
    // as the server wrote it.
    let (whole, block) = call(&server, "orders", 2).await;
    assert!(block == orders, "not the JSON: {}", &block[..80]);
    assert!(whole == answer(&json!(2), "orders"), "{}", &whole[..120]);
    assert_eq!(limit.busy(), 1);

    // A small near tie is settled exactly on the worker.
    let (_, block) = call(&server, "record", 3).await;
    let expected = match record_choice.served {
        Served::Toon => toon_of(RECORD),
        Served::Json => RECORD.to_owned(),
    };
    assert_eq!(block, expected);
    assert_eq!(limit.busy(), 1);

    // With the slot free, the near tie is settled exactly off the worker:
    // the text with fewer exact tokens.
    release.send(()).expect("release");
    let held = holder.await.expect("holder");
    assert!(matches!(held, OffWorkers::Done(Ok(()))), "{held:?}");
    let (_, block) = call(&server, "orders", 4).await;
    if exact(&orders_toon) < exact(&orders) {
        assert!(block == orders_toon, "not the TOON: {}", &block[..80]);
    } else {
        assert!(block == orders, "not the JSON: {}", &block[..80]);
    }
    assert_eq!(limit.busy(), 1);
    assert_eq!(limit.available(), 1);
}
