//! Unit tests of [`Session`]: the format argument, the hint, per-tool
//! formats, the `_meta` counts and the bound on pending requests. The same
//! through real processes are in `tests/tests/mcp_stdio*.rs`.

use serde_json::{Value, json};

use super::*;
use crate::mcp::{HINT, McpTool};

fn users() -> String {
    json!([
        {"id": 1, "name": "Ada", "role": "admin"},
        {"id": 2, "name": "Linus", "role": "member"},
        {"id": 3, "name": "Grace", "role": "member"},
    ])
    .to_string()
}

fn call(id: u32, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

fn answer(id: u32, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn tools() -> Value {
    json!({"tools": [
        {"name": "list_users", "description": "Users.", "inputSchema": {"type": "object"}},
        {"name": "list_events", "inputSchema": {"type": "object", "properties": {"day": {"type": "string"}}}},
        {"name": "convert", "inputSchema": {"type": "object", "properties": {"format": {"type": "string"}}}},
        {"name": "read_file", "inputSchema": {"type": "object", "properties": {}}},
    ]})
}

fn layer() -> McpLayer {
    McpLayer::new()
        .format_argument(true)
        .tool_format("read_file", Format::Json)
        .tool(
            "list_events",
            McpTool::from_template("events", "event", "{title}").unwrap(),
        )
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_format_argument_is_offered_stripped_and_honoured() {
    let mut session = Session::new(&layer());
    assert_eq!(
        session.client_message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        None
    );
    let listed = parse(
        &session
            .server_message(&answer(1, tools()))
            .expect("offered"),
    );
    let tools = &listed["result"]["tools"];
    let format = |i: usize| tools[i]["inputSchema"]["properties"]["format"].clone();
    assert_eq!(format(0)["enum"], json!(["json", "toon"]));
    assert_eq!(format(1)["enum"], json!(["json", "toon", "compact"]));
    assert_eq!(format(2), json!({"type": "string"}), "its own, kept");
    assert_eq!(
        format(3),
        Value::Null,
        "a tool left alone is offered nothing"
    );
    assert_eq!(
        tools[1]["inputSchema"]["properties"]["day"],
        json!({"type": "string"})
    );

    // Stripped, and honoured.
    let sent = session
        .client_message(&call(
            2,
            "list_users",
            json!({"format": "toon", "limit": 3}),
        ))
        .expect("stripped");
    assert_eq!(parse(&sent)["params"]["arguments"], json!({"limit": 3}));
    let out = parse(
        &session
            .server_message(&answer(2, text_result(&users())))
            .unwrap(),
    );
    assert!(
        out["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[3]{id,name,role}:")
    );
    // Not a format name: stripped all the same, the default (JSON) served.
    let sent = session
        .client_message(&call(3, "list_users", json!({"format": "yaml"})))
        .expect("stripped");
    assert_eq!(parse(&sent)["params"]["arguments"], json!({}));
    assert_eq!(
        session.server_message(&answer(3, text_result(&users()))),
        None
    );
    // A tool's own `format` reaches it.
    assert_eq!(
        session.client_message(&call(4, "convert", json!({"format": ".2f"}))),
        None
    );
    // A tool never offered it (not listed) keeps it too.
    assert_eq!(
        session.client_message(&call(5, "unlisted", json!({"format": "toon"}))),
        None
    );
    assert_eq!(session.pending(), 0, "JSON calls wait for nothing");
}

#[test]
fn a_tool_left_alone_is_never_rewritten() {
    let mut session = Session::new(&layer().default_format(Format::Toon));
    session.client_message(&call(1, "read_file", json!({})));
    assert_eq!(
        session.server_message(&answer(1, text_result(&users()))),
        None
    );
    session.client_message(&call(2, "list_users", json!({})));
    assert!(
        session
            .server_message(&answer(2, text_result(&users())))
            .is_some()
    );
}

#[test]
fn the_hint_goes_where_it_is_asked() {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#;
    let mut session = Session::new(&McpLayer::new().hint(McpHint::Instructions));
    session.client_message(init);
    let out = session
        .server_message(&answer(0, json!({"instructions": "Calendar tools."})))
        .unwrap();
    assert_eq!(
        parse(&out)["result"]["instructions"],
        format!("Calendar tools.\n{HINT}")
    );

    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .tool_format("read_file", Format::Json)
        .hint(McpHint::Descriptions);
    let mut session = Session::new(&layer);
    assert_eq!(session.client_message(init), None);
    assert_eq!(
        session.server_message(&answer(0, json!({}))),
        None,
        "not asked there"
    );
    session.client_message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let out = parse(&session.server_message(&answer(1, tools())).unwrap());
    let tools = &out["result"]["tools"];
    assert_eq!(tools[0]["description"], format!("Users.\n{HINT}"));
    assert_eq!(tools[1]["description"], HINT);
    assert_eq!(tools[3].get("description"), None, "left alone: no hint");
    assert_eq!(
        tools[0]["inputSchema"],
        json!({"type": "object"}),
        "no argument offered"
    );
}

#[test]
fn counts_go_in_meta_when_asked() {
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .meta_counts(true);
    let mut session = Session::new(&layer);
    session.client_message(&call(1, "list_users", json!({})));
    let result = json!({"content": [{"type": "text", "text": users()}], "_meta": {"kept": 1}});
    let out = parse(&session.server_message(&answer(1, result)).unwrap());
    let meta = &out["result"]["_meta"];
    assert_eq!(meta["kept"], 1);
    let counts = &meta["terse/tokens"];
    assert_eq!(counts["format"], "toon");
    assert!(counts["served"].as_u64().unwrap() < counts["json"].as_u64().unwrap());
    // The rendering core's counts, exact with the tokenizer compiled in.
    #[cfg(feature = "exact-tokens")]
    {
        let served = out["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(counts["counted"], "exact o200k_base");
        assert_eq!(counts["json"], crate::tokens::exact(&users()));
        assert_eq!(counts["served"], crate::tokens::exact(served));
    }
    #[cfg(not(feature = "exact-tokens"))]
    assert_eq!(counts["counted"], "estimate");
}

#[test]
fn counts_cover_every_rewritten_block_and_only_those() {
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .meta_counts(true);
    let mut session = Session::new(&layer);
    session.client_message(&call(2, "list_users", json!({})));
    let result = json!({"content": [
        {"type": "text", "text": users()},
        {"type": "text", "text": "not JSON, left alone"},
        {"type": "text", "text": users()},
    ]});
    let out = parse(&session.server_message(&answer(2, result)).unwrap());
    let counts = &out["result"]["_meta"]["terse/tokens"];
    let one = {
        let mut session = Session::new(&layer);
        session.client_message(&call(3, "list_users", json!({})));
        let result = json!({"content": [{"type": "text", "text": users()}]});
        parse(&session.server_message(&answer(3, result)).unwrap())["result"]["_meta"]
            ["terse/tokens"]
            .clone()
    };
    assert_eq!(counts["json"], 2 * one["json"].as_u64().unwrap());
    assert_eq!(counts["served"], 2 * one["served"].as_u64().unwrap());
}

#[test]
fn server_requests_and_errors_are_not_answers_to_rewrite() {
    let mut session = Session::new(&McpLayer::new().default_format(Format::Toon));
    session.client_message(&call(7, "list_users", json!({})));
    // The server's own request with the same id (its own id space).
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage",
        "params": {"content": [{"type": "text", "text": users()}]}});
    assert_eq!(session.server_message(&request.to_string()), None);
    assert_eq!(session.pending(), 1);
    let error = json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -1, "message": "no"}});
    assert_eq!(session.server_message(&error.to_string()), None);
    assert_eq!(session.pending(), 0, "an error answers the call");
}

#[test]
fn pending_requests_are_bounded() {
    let mut session = Session::new(&McpLayer::new().default_format(Format::Toon));
    for id in 0..(MAX_PENDING as u32 + 10) {
        session.client_message(&call(id, "list_users", json!({})));
    }
    assert_eq!(session.pending(), MAX_PENDING);
    let past = MAX_PENDING as u32 + 5;
    assert_eq!(
        session.server_message(&answer(past, text_result(&users()))),
        None
    );
    assert!(
        session
            .server_message(&answer(0, text_result(&users())))
            .is_some()
    );
}

#[test]
fn a_large_result_is_rewritten() {
    let users: Vec<Value> = (0..3000)
        .map(|id| json!({"id": id, "name": format!("user {id}"), "role": "member"}))
        .collect();
    let mut session = Session::new(&McpLayer::new().format_argument(true));
    session.client_message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    session.server_message(&answer(1, tools()));
    session.client_message(&call(2, "list_users", json!({"format": "toon"})));
    let text = Value::Array(users).to_string();
    let out = session.server_message(&answer(2, text_result(&text)));
    assert!(out.is_some());
}

#[test]
fn a_block_whose_rendering_the_budget_cannot_hold_is_kept_as_it_is() {
    let users = users();
    let working = crate::render::working_bytes(
        users.as_bytes(),
        Format::Toon,
        false,
        &crate::toon::EncodeOptions::default(),
        crate::mcp::Config::default().max_output_bytes(),
    );
    // Room for less than the rendering: refused, the block kept.
    let budget = crate::MemoryBudget::new(working - 1);
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .memory_budget(budget.clone());
    let mut session = Session::new(&layer);
    session.client_message(&call(1, "list_users", json!({})));
    let result = json!({"content": [{"type": "text", "text": users.clone()}]});
    assert_eq!(session.server_message(&answer(1, result)), None);
    assert_eq!((budget.refused(), budget.in_use()), (1, 0));

    // Room for it: rewritten, and nothing is held once it is done.
    let budget = crate::MemoryBudget::new(working);
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .memory_budget(budget.clone());
    let mut session = Session::new(&layer);
    session.client_message(&call(1, "list_users", json!({})));
    let result = json!({"content": [{"type": "text", "text": users}]});
    let out = parse(&session.server_message(&answer(1, result)).unwrap());
    assert!(
        out["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with('[')
    );
    assert_eq!((budget.refused(), budget.in_use()), (0, 0));
}
