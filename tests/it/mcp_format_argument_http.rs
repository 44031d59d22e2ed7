//! The HTTP transport follows the stdio rules: the gateway's `[mcp]` with
//! `format_argument`, `hint` and `meta_counts`, in front of a small MCP
//! endpoint that records every request body it gets, called by a real
//! HTTP client. The `format` argument is offered in `tools/list`,
//! honoured and stripped from `tools/call` (the endpoint never sees it),
//! a tool's own `format` reaches it, and the hint and counts are added.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};
use terse_tests::python::spawn_gateway;
use terse_tests::server::{TestServer, raw_client};

type Seen = Arc<Mutex<Vec<Value>>>;

fn users() -> String {
    json!([
        {"id": 1, "name": "Ada", "role": "admin"},
        {"id": 2, "name": "Linus", "role": "member"},
        {"id": 3, "name": "Grace", "role": "member"},
        {"id": 4, "name": "Ken", "role": "member"},
    ])
    .to_string()
}

/// A result past `OFFLOAD_BYTES`, so its rewrite runs on the blocking pool.
fn many_users() -> String {
    let users: Vec<Value> = (0..3000)
        .map(|id| json!({"id": id, "name": format!("user {id}"), "role": "member"}))
        .collect();
    let text = Value::Array(users).to_string();
    assert!(text.len() > tower_terse::mcp::OFFLOAD_BYTES);
    text
}

/// A JSON-RPC endpoint: `initialize`, `tools/list` (two tools, one with a
/// `format` of its own) and `tools/call` (the users as text, the
/// arguments it got as `structuredContent`).
async fn endpoint(State(seen): State<Seen>, body: String) -> axum::Json<Value> {
    let request: Value = serde_json::from_str(&body).expect("a JSON-RPC request");
    seen.lock().unwrap().push(request.clone());
    let result = match request["method"].as_str() {
        Some("initialize") => {
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "t", "version": "1"}})
        }
        Some("tools/list") => json!({"tools": [
            {"name": "list_users", "description": "Users.", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "many_users", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "convert", "inputSchema": {"type": "object",
                "properties": {"format": {"type": "string"}}}},
        ]}),
        _ if request["params"]["name"] == "many_users" => json!({
            "content": [{"type": "text", "text": many_users()}],
        }),
        _ => json!({
            "content": [{"type": "text", "text": users()}],
            "structuredContent": {"arguments": request["params"]["arguments"].clone()},
        }),
    };
    axum::Json(json!({"jsonrpc": "2.0", "id": request["id"].clone(), "result": result}))
}

/// JSON unless a call names a format, to tell the two apart.
const CONFIG: &str = r#"
[mcp]
path = "/mcp"
default_format = "json"
format_argument = true
hint = "instructions"
meta_counts = true
"#;

async fn call(client: &reqwest::Client, url: &str, id: u32, method: &str, params: Value) -> Value {
    answer(client, url, id, method, params).await["result"].clone()
}

/// The whole JSON-RPC answer.
async fn answer(
    client: &reqwest::Client,
    url: &str,
    id: u32,
    method: &str,
    params: Value,
) -> Value {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string())
        .send()
        .await
        .expect("send");
    assert!(response.status().is_success(), "{}", response.status());
    let text = response.text().await.expect("the answer");
    serde_json::from_str(&text).expect("a JSON answer")
}

#[tokio::test]
async fn the_format_argument_hint_and_counts_over_http() {
    let seen = Seen::default();
    let server = TestServer::spawn(
        Router::new()
            .route("/mcp", post(endpoint))
            .with_state(seen.clone()),
    )
    .await;
    let (gateway, _task) = spawn_gateway(CONFIG, &server.url("")).await;
    let url = format!("{gateway}/mcp");
    let client = raw_client();

    let init = call(&client, &url, 1, "initialize", json!({})).await;
    assert_eq!(init["instructions"], tower_terse::mcp::HINT);
    let tools = call(&client, &url, 2, "tools/list", json!({})).await;
    assert_eq!(
        tools["tools"][0]["inputSchema"]["properties"]["format"]["enum"],
        json!(["json", "toon"])
    );
    assert_eq!(
        tools["tools"][2]["inputSchema"]["properties"]["format"],
        json!({"type": "string"}),
        "a tool's own format is left alone"
    );

    let toon = call(
        &client,
        &url,
        3,
        "tools/call",
        json!({"name": "list_users", "arguments": {"format": "toon", "limit": 4}}),
    )
    .await;
    assert_eq!(
        toon["content"][0]["text"],
        "[4]{id,name,role}:\n  1,Ada,admin\n  2,Linus,member\n  3,Grace,member\n  4,Ken,member"
    );
    assert_eq!(
        toon["structuredContent"]["arguments"],
        json!({"limit": 4}),
        "stripped"
    );
    let counts = &toon["_meta"]["terse/tokens"];
    assert_eq!(counts["format"], "toon");
    assert!(
        counts["served"].as_u64() < counts["json"].as_u64(),
        "{counts}"
    );

    let plain = call(
        &client,
        &url,
        4,
        "tools/call",
        json!({"name": "list_users", "arguments": {}}),
    )
    .await;
    assert_eq!(
        plain["content"][0]["text"],
        users(),
        "no format named: JSON"
    );
    assert!(plain.get("_meta").is_none());

    let own = call(
        &client,
        &url,
        5,
        "tools/call",
        json!({"name": "convert", "arguments": {"format": ".2f"}}),
    )
    .await;
    assert_eq!(
        own["structuredContent"]["arguments"],
        json!({"format": ".2f"})
    );

    let many = call(
        &client,
        &url,
        6,
        "tools/call",
        json!({"name": "many_users", "arguments": {"format": "toon"}}),
    )
    .await;
    let text = many["content"][0]["text"].as_str().expect("a text block");
    let expected: Value = serde_json::from_str(&many_users()).unwrap();
    assert!(
        text.starts_with("[3000]{id,name,role}:\n  0,user 0,member\n"),
        "{}",
        &text[..80]
    );
    assert_eq!(
        terse_toon::decode(text, &Default::default()).expect("TOON"),
        expected
    );

    // Outside the offered names: refused, and the tool never ran.
    let refused = answer(
        &client,
        &url,
        7,
        "tools/call",
        json!({"name": "list_users", "arguments": {"format": "compact"}}),
    )
    .await;
    assert_eq!(refused["id"], 7);
    assert_eq!(refused["error"]["code"], -32602);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("expected one of json, toon"),
        "{refused}"
    );

    let seen = seen.lock().unwrap();
    assert!(seen.iter().any(|r| r["id"] == 7 && r["method"] == "ping"));
    let calls: Vec<&Value> = seen
        .iter()
        .filter(|r| r["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 4);
    assert_eq!(
        calls[0]["params"]["arguments"],
        json!({"limit": 4}),
        "the server never saw it"
    );
}
