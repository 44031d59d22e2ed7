//! MCP tool results are reported like responses: each JSON text block of a
//! `tools/call` result that `McpLayer` was asked to rewrite is one `tracing`
//! event and three counters, labelled `mcp:` and the tool's name when the
//! tool is registered and `mcp:other` when it is not (tool names come from
//! requests, so only registered ones become labels).

use axum::{Json, Router, routing::post};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::mcp::{McpLayer, McpTool};
use tower_terse::tokens::estimate;

fn events() -> Value {
    json!({"events": [
        {"id": 1, "title": "Standup", "room": "4.12", "start": "09:00"},
        {"id": 2, "title": "Review", "room": "4.12", "start": "10:00"},
        {"id": 3, "title": "Retro", "room": "4.13", "start": "16:00"},
    ]})
}

/// Flat, uniform rows: TOON costs fewer tokens than their JSON.
fn forecast() -> Value {
    let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
    Value::Array(
        days.iter()
            .enumerate()
            .map(|(i, day)| json!({"day": day, "high": 20 + i, "low": 10 + i, "rain": i * 5}))
            .collect(),
    )
}

/// Arrays of arrays: TOON indents each level, JSON does not.
fn nested() -> Value {
    json!([[[[1, 2]]], [[[3]]]])
}

fn payload(tool: &str) -> Value {
    match tool {
        "list_events" => events(),
        "forecast" => forecast(),
        _ => nested(),
    }
}

/// A minimal MCP endpoint: every `tools/call` is answered with its tool's
/// payload as one JSON text block.
async fn endpoint(Json(request): Json<Value>) -> Json<Value> {
    let text = payload(request["params"]["name"].as_str().unwrap_or_default()).to_string();
    Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "content": [{"type": "text", "text": text}]}}))
}

/// Calls `tool` asking for `format` (none: no header) and returns the text
/// block the client received.
async fn call(server: &TestServer, id: u32, tool: &str, format: Option<&str>) -> String {
    let mut request = raw_client()
        .post(server.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": {}}})
            .to_string(),
        );
    if let Some(format) = format {
        request = request.header("x-prefer-format", format);
    }
    let body = request.send().await.unwrap().text().await.unwrap();
    let answer: Value = serde_json::from_str(&body).unwrap();
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn each_rewritten_tool_result_is_one_event_and_three_counters() {
    let (_alone, counters, reported) = terse_tests::reports::install().await;
    let layer = McpLayer::new().tool(
        "list_events",
        McpTool::from_template("events", "event", "{start} {title}").unwrap(),
    );
    let server = TestServer::spawn(Router::new().route("/mcp", post(endpoint)).layer(layer)).await;

    let compact = call(&server, 1, "list_events", Some("compact")).await;
    let toon = call(&server, 2, "forecast", Some("toon")).await;
    let kept = call(&server, 3, "nested", Some("toon")).await;
    let plain = call(&server, 4, "list_events", Some("json")).await;
    assert!(compact.starts_with("3 events"), "{compact}");
    assert!(toon.starts_with("[7]{"), "{toon}");
    assert_eq!(kept, nested().to_string());
    assert_eq!(plain, events().to_string());

    let get = |key: &str| counters.get(key);
    let json_cost = |tool: &str| estimate(payload(tool).to_string().as_bytes()) as u64;
    let cost = |text: &str| estimate(text.as_bytes()) as u64;
    // Registered: its own label. Asked as JSON: left alone, not counted.
    assert_eq!(
        get("terse_responses_total{format=compact,route=mcp:list_events}"),
        1
    );
    assert_eq!(
        get("terse_tokens_total{format=compact,route=mcp:list_events}"),
        cost(&compact)
    );
    assert_eq!(
        get("terse_json_tokens_total{route=mcp:list_events}"),
        json_cost("list_events")
    );
    assert_eq!(
        get("terse_responses_total{format=json,route=mcp:list_events}"),
        0
    );
    // Not registered: one shared label, TOON where it is cheaper, the JSON
    // kept where it is not.
    assert_eq!(get("terse_responses_total{format=toon,route=mcp:other}"), 1);
    assert_eq!(get("terse_responses_total{format=json,route=mcp:other}"), 1);
    assert_eq!(
        get("terse_tokens_total{format=toon,route=mcp:other}"),
        cost(&toon)
    );
    assert_eq!(
        get("terse_tokens_total{format=json,route=mcp:other}"),
        cost(&kept)
    );
    assert_eq!(
        get("terse_json_tokens_total{route=mcp:other}"),
        json_cost("forecast") + json_cost("nested")
    );
    assert!(cost(&compact) < json_cost("list_events") && cost(&toon) < json_cost("forecast"));

    let logged = reported.lines();
    assert_eq!(logged.len(), 3, "{logged:#?}");
    let fallback = logged
        .iter()
        .find(|line| line.contains("served=json"))
        .unwrap();
    for field in [
        "route=mcp:other",
        "asked=toon",
        "fallback=true",
        &format!("bytes={}", kept.len()),
    ] {
        assert!(fallback.contains(field), "{field} in {fallback}");
    }
    let compact_event = logged
        .iter()
        .find(|line| line.contains("served=compact"))
        .unwrap();
    assert!(
        compact_event.contains("route=mcp:list_events") && compact_event.contains("fallback=false"),
        "{compact_event}"
    );
}
