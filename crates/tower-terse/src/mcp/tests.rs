//! Unit tests of the message rewrite and of the service through `oneshot`.
//! The same cases through a real server are in `tests/tests/mcp_layer.rs`.

use std::convert::Infallible;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use tower::{ServiceExt, service_fn};
use tower_layer::Layer;

use super::*;

const CALL: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_events","arguments":{}}}"#;

fn users() -> String {
    json!({"users": [
        {"id": 1, "name": "Ada", "role": "admin"},
        {"id": 2, "name": "Linus", "role": "member"},
        {"id": 3, "name": "Grace", "role": "member"},
    ]})
    .to_string()
}

fn result(id: Value, text: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"kept": true},
    }})
    .to_string()
}

fn rewrite(config: &McpConfig, format: Format, request: &str, response: &str) -> Option<String> {
    let session = Session::with_format(Arc::new(config.clone()), format, true);
    assert_eq!(session.client_message(request), None);
    session.server_message(response)
}

#[test]
fn tool_calls_are_read_from_single_requests_and_batches() {
    let batch = format!(
        r#"[{CALL},{{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{{"name":"x"}}}},{{"jsonrpc":"2.0","method":"notifications/initialized"}},{{"jsonrpc":"2.0","id":9,"method":"tools/list"}},7]"#
    );
    let session = Session::with_format(Arc::default(), Format::Toon, true);
    assert_eq!(session.client_message(&batch), None);
    assert_eq!(
        session.pending(),
        2,
        "two calls; tools/list is not rewritten"
    );
    // The escaped id `"a\u0062"` is the id `"ab"`.
    assert!(
        session
            .server_message(&result(json!("ab"), &users()))
            .is_some()
    );
    assert!(
        session
            .server_message(&result(json!(3), &users()))
            .is_some()
    );
    assert!(
        session
            .server_message(&result(json!(9), &users()))
            .is_none()
    );
    for request in ["{\"jsonrpc\":", "{}", "[1, 2]"] {
        assert_eq!(session.client_message(request), None);
    }
    assert_eq!(session.pending(), 0);
}

#[test]
fn json_text_blocks_become_toon_and_everything_else_is_kept_byte_for_byte() {
    let config = McpConfig::default();
    let response = format!(
        r#"{{ "jsonrpc" : "2.0", "result": {{"content": [{{"type":"text","text":{}}}, {{"type":"text","text":"plain words"}}, {{"type":"image","data":"AAAA","mimeType":"image/png"}}], "structuredContent": {{"a": [1, 2]}}, "_meta": {{"x": 1}}}}, "id": 3 }}"#,
        Value::String(users())
    );
    let out = rewrite(&config, Format::Toon, CALL, &response).unwrap();
    let toon = "users[3]{id,name,role}:\n  1,Ada,admin\n  2,Linus,member\n  3,Grace,member";
    assert_eq!(
        out,
        response.replace(
            &Value::String(users()).to_string(),
            &Value::String(toon.into()).to_string()
        )
    );
}

#[test]
fn toon_only_where_it_costs_fewer_tokens() {
    let config = McpConfig::default();
    // Nesting costs TOON a line and an indent per level.
    let out = rewrite(&config, Format::Toon, CALL, &result(json!(3), "[[[[1]]]]"));
    assert_eq!(out, None);
    for text in ["\"just a string\"", "42", "not json", "{oops", "[1,"] {
        assert_eq!(
            rewrite(&config, Format::Toon, CALL, &result(json!(3), text)),
            None,
            "{text}"
        );
    }
}

#[test]
fn errors_and_other_messages_pass() {
    let config = McpConfig::default();
    let mut error_result: Value = serde_json::from_str(&result(json!(3), &users())).unwrap();
    error_result["result"]["isError"] = json!(true);
    let cases = [
        error_result.to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "bad"}}).to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"content": [{"type": "text", "text": users()}]}}).to_string(),
        result(json!(4), &users()),
        result(json!("3"), &users()),
        // A repeated key is not guessed at.
        result(json!(3), &users()).replacen(r#""jsonrpc":"2.0""#, r#""id":3,"jsonrpc":"2.0""#, 1),
    ];
    for case in cases {
        assert_eq!(rewrite(&config, Format::Toon, CALL, &case), None, "{case}");
    }
    let mut not_error = error_result.clone();
    not_error["result"]["isError"] = json!(false);
    assert!(rewrite(&config, Format::Toon, CALL, &not_error.to_string()).is_some());
}

#[test]
fn compact_lines_for_a_registered_tool() {
    let tool = McpTool::from_template("events", "event", "{title}{? @{room}}").unwrap();
    let layer = McpLayer::new().tool("list_events", tool);
    let body = json!({"date": "2025-06-02", "events": [
        {"id": "evt_1", "title": "Standup", "room": "Ada"},
        {"id": 7, "title": "Review", "room": null},
        {"id": "a b", "title": "Lunch"},
    ]});
    let out = rewrite(
        &layer.config,
        Format::Compact,
        CALL,
        &result(json!(3), &body.to_string()),
    )
    .unwrap();
    let out: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        out["result"]["content"][0]["text"],
        "3 events\nevt_1: Standup @Ada\n7: Review\n\"a b\": Lunch\nmeta: {\"date\":\"2025-06-02\"}"
    );
    assert_eq!(out["result"]["structuredContent"], json!({"kept": true}));

    // Not a list, or another tool: the TOON rule.
    // (A table of attendees long enough that TOON is clearly cheaper.)
    let attendees: Vec<Value> = (1..=10)
        .map(|m| json!({"name": format!("person {m}"), "seat": m}))
        .collect();
    let single = json!({"id": 1, "title": "Standup", "room": "Ada", "attendees": attendees});
    let out = rewrite(
        &layer.config,
        Format::Compact,
        CALL,
        &result(json!(3), &single.to_string()),
    )
    .unwrap();
    let out: Value = serde_json::from_str(&out).unwrap();
    let text = out["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        crate::toon::decode(text, &Default::default()).unwrap(),
        single
    );
}

async fn call(
    layer: McpLayer,
    request: Request<String>,
    content_type: &'static str,
    answer: String,
) -> (Response<Bytes>, String) {
    let service = layer.layer(service_fn(move |req: Request<McpRequestBody<String>>| {
        let answer = answer.clone();
        async move {
            // The server reads the whole request first, as MCP servers do.
            let _ = req.into_body().collect().await;
            let response = Response::builder()
                .header("content-type", content_type)
                .header("mcp-session-id", "s-1")
                .header("content-length", answer.len())
                .body(Full::new(Bytes::from(answer)))
                .unwrap();
            Ok::<_, Infallible>(response)
        }
    }));
    let response = service.oneshot(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    let text = String::from_utf8(body.to_vec()).unwrap();
    (Response::from_parts(parts, body), text)
}

fn post(prefer: Option<&str>) -> Request<String> {
    let mut builder = Request::post("/mcp").header("accept", "application/json, text/event-stream");
    if let Some(prefer) = prefer {
        builder = builder.header("x-prefer-format", prefer);
    }
    builder.body(CALL.to_owned()).unwrap()
}

#[tokio::test]
async fn json_answers_are_rewritten_when_asked() {
    let answer = result(json!(3), &users());
    let (response, body) = call(
        McpLayer::new(),
        post(Some("toon")),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_ne!(body, answer);
    assert!(response.headers().get("content-length").is_none());
    assert_eq!(response.headers()["mcp-session-id"], "s-1");
    // A JSON default: nothing asked, nothing touched.
    let (response, body) = call(
        McpLayer::new().default_format(Format::Json),
        post(None),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_eq!(body, answer);
    assert_eq!(
        response.headers()["content-length"],
        answer.len().to_string().as_str()
    );
    // The default is TOON where cheaper; asking JSON leaves it alone.
    let (_, body) = call(
        McpLayer::new(),
        post(None),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_ne!(body, answer);
    let (_, body) = call(
        McpLayer::new(),
        post(Some("json")),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_eq!(body, answer);
}

#[tokio::test]
async fn event_streams_are_rewritten_event_by_event() {
    let message = result(json!(3), &users());
    let answer = format!("id: 0\ndata:\n\nid: 1\nevent: message\ndata: {message}\n\n");
    let (_, body) = call(
        McpLayer::new(),
        post(Some("toon")),
        "text/event-stream",
        answer.clone(),
    )
    .await;
    let (head, data) = body.split_once("data: {").unwrap();
    assert_eq!(head, "id: 0\ndata:\n\nid: 1\nevent: message\n");
    let rewritten: Value = serde_json::from_str(&format!("{{{}", data.trim_end())).unwrap();
    assert!(
        rewritten["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("users[3]")
    );
}

#[tokio::test]
async fn limits_leave_answers_as_the_server_made_them() {
    let answer = result(json!(3), &users());
    let small = McpLayer::new().max_request_bytes(16);
    let (_, body) = call(
        small,
        post(Some("toon")),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_eq!(body, answer);
    let small = McpLayer::new().max_message_bytes(64);
    let (_, body) = call(
        small.clone(),
        post(Some("toon")),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_eq!(body, answer);
    let events = format!("data: {answer}\n\n");
    let (_, body) = call(
        small,
        post(Some("toon")),
        "text/event-stream",
        events.clone(),
    )
    .await;
    assert_eq!(body, events);
    let get = Request::get("/mcp")
        .header("x-prefer-format", "toon")
        .body(String::new())
        .unwrap();
    let (_, body) = call(McpLayer::new(), get, "text/event-stream", events.clone()).await;
    assert_eq!(body, events);
}

#[tokio::test]
async fn every_json_media_type_is_rewritten_as_the_http_layer_rewrites_it() {
    let answer = result(json!(3), &users());
    for media in [
        "application/json; charset=utf-8",
        "application/vnd.api+json",
        "application/hal+json",
        "application/ld+json",
    ] {
        let (_, body) = call(McpLayer::new(), post(Some("toon")), media, answer.clone()).await;
        assert_ne!(body, answer, "{media}");
    }
    let (_, body) = call(
        McpLayer::new(),
        post(Some("toon")),
        "text/plain",
        answer.clone(),
    )
    .await;
    assert_eq!(body, answer);
}

#[tokio::test]
async fn layer_settings_change_blocks_as_they_change_responses() {
    // A one-item array: its TOON (`[1]: 1`) is not cheaper than its JSON,
    // so the smart fallback keeps the JSON; without it the block is TOON.
    let one = json!([1]);
    let answer = result(json!(3), &one.to_string());
    let (_, kept) = call(
        McpLayer::new(),
        post(Some("toon")),
        "application/json",
        answer.clone(),
    )
    .await;
    let off = McpLayer::new().settings(&crate::Settings::new().smart_fallback(false));
    let (_, toon) = call(off, post(Some("toon")), "application/json", answer.clone()).await;
    let text = |body: &str| {
        serde_json::from_str::<Value>(body).unwrap()["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(text(&kept), "[1]");
    assert_eq!(
        text(&kept),
        crate::render::public::render_json(&one.to_string(), Format::Toon).unwrap()
    );
    assert_eq!(text(&toon), "[1]: 1");
}

#[tokio::test]
async fn an_answer_past_the_memory_budget_streams_through_unchanged() {
    let answer = result(json!(3), &users());
    let budget = crate::budget::MemoryBudget::new(answer.len() / 2);
    let layer = McpLayer::new().memory_budget(budget.clone());
    let (_, body) = call(
        layer,
        post(Some("toon")),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_eq!(body, answer, "not held, so not rewritten");
    assert_eq!(budget.in_use(), 0);
    assert!(budget.refused() >= 1);

    // With room for the answer and for rendering its block, the same
    // answer is held and rewritten, and the room is given back once the
    // body is gone.
    let rendering = crate::render::working_bytes(
        users().as_bytes(),
        Format::Toon,
        false,
        &crate::toon::EncodeOptions::default(),
        crate::mcp::McpConfig::default().render.max_output_bytes,
    );
    let budget = crate::budget::MemoryBudget::new(answer.len() * 2 + rendering);
    let layer = McpLayer::new().memory_budget(budget.clone());
    let (_, body) = call(
        layer,
        post(Some("toon")),
        "application/json",
        answer.clone(),
    )
    .await;
    assert_ne!(body, answer);
    assert!(body.contains("users[3]{id,name,role}:"), "{body}");
    assert_eq!(budget.in_use(), 0);
    assert_eq!(budget.refused(), 0);
}
