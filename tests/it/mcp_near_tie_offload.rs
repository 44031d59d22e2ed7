//! Where an MCP rewrite's smart fallback does its work, as the HTTP
//! layer's does: parsing and encoding a text block costs in proportion to
//! the block and its output, counting both renderings exactly, which only
//! a near tie needs, several times more. So an answer renders on the async
//! worker when its encoding is cheap enough, and only a near tie whose
//! exact counts would take it past `OFFLOAD_BYTES` leaves for the blocking
//! pool, under the `BlockingLimit`, to be counted there.
//!
//! Observed through the limit, over MCP's HTTP transport and for whole
//! messages (as `terse mcp` reads stdio): with its one slot held and no
//! wait, what needs the pool goes out as the server wrote it (counted
//! busy), what does not is rewritten on the worker.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::routing::post;
use serde_json::{Value, json};
use terse_tests::held_slot::hold_slot;
use terse_tests::near_tie::{RECORD, checked_toon, orders, rows, toon_of};
use terse_tests::server::{TestServer, post_mcp};
use tower_terse::Format;
use tower_terse::mcp::{McpLayer, OFFLOAD_BYTES, Session};
use tower_terse::settings::BlockingLimit;
use tower_terse::tokens::{Counting, Served, choose, exact};

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
    let text = post_mcp(server, "/mcp", &call).await;
    let block = block_of(&text);
    (text, block)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_near_tie_costing_too_much_to_count_here_leaves_the_worker() {
    let (orders, rows) = (document("orders"), document("rows"));
    // The documents are what they are meant to be, and each answer is well
    // under the threshold: its encoding is work for the worker.
    let (orders_toon, rows_toon) = checked_toon(&orders, &rows);
    let record_choice = choose(RECORD, &toon_of(RECORD), Counting::Estimate);
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
    let held = hold_slot(&limit).await;

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
    held.release().await;
    let (_, block) = call(&server, "orders", 4).await;
    if exact(&orders_toon) < exact(&orders) {
        assert!(block == orders_toon, "not the TOON: {}", &block[..80]);
    } else {
        assert!(block == orders, "not the JSON: {}", &block[..80]);
    }
    assert_eq!(limit.busy(), 1);
    assert_eq!(limit.available(), 1);
}

/// The text block of a rewritten answer.
fn block_of(answer: &str) -> String {
    let value: Value = serde_json::from_str(answer).expect("a JSON-RPC answer");
    value["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_messages_count_only_a_costly_near_tie_on_the_pool() {
    let (orders, rows) = (document("orders"), document("rows"));
    let (orders_toon, rows_toon) = (toon_of(&orders), toon_of(&rows));
    let limit = BlockingLimit::new(1).with_wait(Duration::ZERO);
    let session = Session::new(
        &McpLayer::new()
            .default_format(Format::Toon)
            .blocking_limit(limit.clone()),
    );
    for (id, tool) in [(1, "rows"), (2, "orders"), (3, "orders")] {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}});
        session.client_message(&call.to_string());
    }

    // Hold the limit's one slot.
    let held = hold_slot(&limit).await;
    // The clear win is rewritten here; the near tie's counting finds no
    // slot, and the answer goes as the server wrote it.
    let rewritten = session
        .server_message_offloaded(&answer(&json!(1), "rows"))
        .await
        .expect("the TOON");
    assert!(block_of(&rewritten) == rows_toon, "{}", &rewritten[..120]);
    assert_eq!(limit.busy(), 0);
    let passed = session
        .server_message_offloaded(&answer(&json!(2), "orders"))
        .await;
    assert_eq!(passed, None);
    assert_eq!(limit.busy(), 1);

    held.release().await;
    let settled = session
        .server_message_offloaded(&answer(&json!(3), "orders"))
        .await;
    if exact(&orders_toon) < exact(&orders) {
        let settled = settled.expect("the TOON");
        assert!(block_of(&settled) == orders_toon, "{}", &settled[..120]);
    } else {
        assert_eq!(settled, None, "the JSON, unchanged");
    }
    assert_eq!((limit.busy(), limit.available()), (1, 1));
}
