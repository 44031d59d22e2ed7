//! Unit tests of [`Session`]: the format argument, the hint, per-tool
//! formats, the `_meta` counts and the bound on pending requests. The same
//! through real processes are in `tests/it/mcp_stdio*.rs`.

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
    let session = Session::new(&layer());
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
    // Not a format name: the tool does not run (the server answers a
    // ping), the client gets -32602 naming the allowed values.
    let sent = parse(
        &session
            .client_message(&call(3, "list_users", json!({"format": "yaml"})))
            .expect("refused"),
    );
    assert_eq!(sent, json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    let refused = parse(&session.server_message(&answer(3, json!({}))).unwrap());
    assert_eq!(refused["id"], 3);
    assert_eq!(refused["error"]["code"], -32602);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("\"yaml\"") && message.ends_with("json, toon"),
        "{message}"
    );
    // `compact` where the tool has no template: refused the same way.
    session
        .client_message(&call(4, "list_users", json!({"format": "compact"})))
        .expect("refused");
    let refused = parse(&session.server_message(&answer(4, json!({}))).unwrap());
    assert_eq!(refused["error"]["code"], -32602);
    // A tool's own `format` reaches it.
    assert_eq!(
        session.client_message(&call(5, "convert", json!({"format": ".2f"}))),
        None
    );
    assert_eq!(session.pending(), 1, "the default (TOON) for convert");
}

#[test]
fn the_format_argument_is_stripped_before_any_tools_list() {
    let session = Session::new(&layer().default_format(Format::Json));
    let sent = session
        .client_message(&call(1, "unlisted", json!({"format": "toon", "q": 1})))
        .expect("stripped");
    assert_eq!(parse(&sent)["params"]["arguments"], json!({"q": 1}));
    let out = parse(
        &session
            .server_message(&answer(1, text_result(&users())))
            .expect("served as TOON"),
    );
    assert!(
        out["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[3]{id,name,role}:")
    );
    // Without the argument: the default, JSON, and nothing waits.
    assert_eq!(
        session.client_message(&call(2, "unlisted", json!({}))),
        None
    );
    assert_eq!(session.pending(), 0);
}

#[test]
fn file_contents_are_never_rewritten_by_default() {
    let session = Session::new(&McpLayer::new());
    for (id, tool) in [
        (1, "read_text_file"),
        (2, "read_multiple_files"),
        (3, "git_diff_staged"),
        (4, "fetch"),
    ] {
        session.client_message(&call(id, tool, json!({})));
        assert_eq!(
            session.server_message(&answer(id, text_result(&users()))),
            None,
            "{tool}"
        );
    }
    // A directory listing is not a file's content: rewritten by default.
    session.client_message(&call(5, "list_users", json!({})));
    assert!(
        session
            .server_message(&answer(5, text_result(&users())))
            .is_some()
    );
    // A tool's own format wins over the patterns.
    let session = Session::new(&McpLayer::new().tool_format("fetch", Format::Toon));
    session.client_message(&call(6, "fetch", json!({})));
    assert!(
        session
            .server_message(&answer(6, text_result(&users())))
            .is_some()
    );
}

#[test]
fn cancelled_requests_are_forgotten_from_either_side() {
    let session = Session::new(&McpLayer::new());
    session.client_message(&call(1, "list_users", json!({})));
    session.client_message(&call(2, "list_users", json!({})));
    assert_eq!(session.pending(), 2);
    let cancel = |id: u32| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "gone"}})
        .to_string()
    };
    assert_eq!(session.client_message(&cancel(1)), None);
    assert_eq!(session.pending(), 1);
    assert_eq!(session.server_message(&cancel(2)), None);
    assert_eq!(session.pending(), 0);
}

#[test]
fn a_batch_of_answers_is_rewritten_in_one_pass() {
    let session = Session::new(&McpLayer::new().meta_counts(true));
    let calls: Vec<Value> = (0..200)
        .map(|id| parse(&call(id, "list_users", json!({}))))
        .collect();
    session.client_message(&Value::Array(calls).to_string());
    assert_eq!(session.pending(), 200);
    let mut answers: Vec<Value> = (0..200)
        .map(|id| parse(&answer(id, text_result(&users()))))
        .collect();
    // A notification and an unknown answer between them pass as they are.
    answers.insert(
        7,
        json!({"jsonrpc": "2.0", "method": "notifications/progress"}),
    );
    answers.insert(9, parse(&answer(999, text_result(&users()))));
    let out = parse(
        &session
            .server_message(&Value::Array(answers.clone()).to_string())
            .unwrap(),
    );
    let out = out.as_array().unwrap();
    assert_eq!(out.len(), 202);
    assert_eq!(out[7], answers[7]);
    assert_eq!(out[9], answers[9]);
    for message in out
        .iter()
        .filter(|m| m["id"] != 999 && m.get("id").is_some())
    {
        let text = message["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("[3]{id,name,role}:"), "{message}");
        assert_eq!(message["result"]["_meta"]["terse/tokens"]["format"], "toon");
    }
    assert_eq!(session.pending(), 0);
}

#[test]
fn a_tool_left_alone_is_never_rewritten() {
    let session = Session::new(&layer().default_format(Format::Toon));
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
    let session = Session::new(&McpLayer::new().hint(McpHint::Instructions));
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
    let session = Session::new(&layer);
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
    let session = Session::new(&layer);
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
    let session = Session::new(&layer);
    session.client_message(&call(2, "list_users", json!({})));
    let result = json!({"content": [
        {"type": "text", "text": users()},
        {"type": "text", "text": "not JSON, left alone"},
        {"type": "text", "text": users()},
    ]});
    let out = parse(&session.server_message(&answer(2, result)).unwrap());
    let counts = &out["result"]["_meta"]["terse/tokens"];
    let one = {
        let session = Session::new(&layer);
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
    let session = Session::new(&McpLayer::new().default_format(Format::Toon));
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
fn past_the_pending_limit_the_oldest_are_forgotten_and_rewriting_goes_on() {
    let session = Session::new(&McpLayer::new().default_format(Format::Toon));
    for id in 0..5000 {
        session.client_message(&call(id, "list_users", json!({})));
    }
    assert_eq!(session.pending(), MAX_PENDING);
    // The oldest were forgotten: their answers pass as they are.
    assert_eq!(
        session.server_message(&answer(0, text_result(&users()))),
        None
    );
    // Every newer one, and a call after them, is still rewritten.
    assert!(
        session
            .server_message(&answer(4999, text_result(&users())))
            .is_some()
    );
    session.client_message(&call(5000, "list_users", json!({})));
    assert!(
        session
            .server_message(&answer(5000, text_result(&users())))
            .is_some()
    );
}

#[test]
fn a_large_result_is_rewritten() {
    let users: Vec<Value> = (0..3000)
        .map(|id| json!({"id": id, "name": format!("user {id}"), "role": "member"}))
        .collect();
    let session = Session::new(&McpLayer::new().format_argument(true));
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
        crate::mcp::McpConfig::default().render.max_output_bytes,
    );
    // Room for less than the rendering: refused, the block kept.
    let budget = crate::budget::MemoryBudget::new(working - 1);
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .memory_budget(budget.clone());
    let session = Session::new(&layer);
    session.client_message(&call(1, "list_users", json!({})));
    let result = json!({"content": [{"type": "text", "text": users.clone()}]});
    assert_eq!(session.server_message(&answer(1, result)), None);
    assert_eq!((budget.refused(), budget.in_use()), (1, 0));

    // Room for it: rewritten, and nothing is held once it is done.
    let budget = crate::budget::MemoryBudget::new(working);
    let layer = McpLayer::new()
        .default_format(Format::Toon)
        .memory_budget(budget.clone());
    let session = Session::new(&layer);
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

#[test]
fn the_work_of_an_answer_is_what_rendering_it_costs_not_its_size() {
    use crate::mcp::OFFLOAD_BYTES;
    let layer = McpLayer::new().smart_fallback(false);
    let session = Session::new(&layer);
    let answer = |id: u64, text: &str| {
        serde_json::json!({"jsonrpc": "2.0", "id": id,
            "result": {"content": [{"type": "text", "text": text}]}})
        .to_string()
    };
    let flat = serde_json::to_string(
        &(0..200)
            .map(|i| serde_json::json!({"id": i, "name": format!("user {i}")}))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut deep = flat.clone();
    for level in 0..60 {
        deep = format!(r#"{{"level":{level},"child":{deep}}}"#);
    }
    let (flat, deep) = (answer(1, &flat), answer(2, &deep));
    assert!(deep.len() < OFFLOAD_BYTES / 4, "{}", deep.len());
    // Nobody waits for them: no work.
    assert_eq!(session.measure(&deep, OFFLOAD_BYTES).work, 0);
    for id in [1, 2] {
        session.client_message(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","arguments":{{}}}}}}"#
        ));
    }
    // A flat list costs a few times its size (read, written, and read
    // again as a block); the same list nested deep
    // costs past the threshold, most of it indentation.
    let work = session.measure(&flat, OFFLOAD_BYTES).work;
    assert!(flat.len() < work && work < 6 * flat.len(), "{work}");
    assert!(session.measure(&deep, OFFLOAD_BYTES).work >= OFFLOAD_BYTES);
    // A message past the threshold is not read to know it.
    let large = answer(1, &"x".repeat(OFFLOAD_BYTES));
    assert_eq!(session.measure(&large, OFFLOAD_BYTES).work, large.len());
}

#[test]
fn a_measured_answer_is_rewritten_from_its_reading_to_the_same_bytes() {
    use crate::mcp::OFFLOAD_BYTES;
    // A batch: two calls (one with a block that is not JSON, one with two
    // JSON blocks), a refused call, an error, a cancellation and a
    // notification, with the server's own spacing.
    let layer = McpLayer::new()
        .format_argument(true)
        .meta_counts(true)
        .tool(
            "list_users",
            McpTool::from_template("users", "user", "{name}").unwrap(),
        );
    let blocks = json!({"content": [
        {"type": "text", "text": users()},
        {"type": "image", "data": "AA=="},
        {"type": "text", "text": format!("[{},{}]", users(), users())},
    ]});
    let batch = format!(
        "[ {} ,\n{}, {}, {}, {}, {} ]",
        answer(1, text_result("plain words")),
        answer(2, blocks),
        answer(3, json!({})),
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -1, "message": "no"}}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}),
    );
    let calls = [
        call(1, "list_users", json!({})),
        call(2, "list_users", json!({"format": "compact"})),
        call(3, "list_users", json!({"format": "yaml"})),
        call(4, "list_users", json!({})),
        call(5, "list_users", json!({})),
    ];
    let session = |layer: &McpLayer| {
        let session = Session::new(layer);
        for call in &calls {
            session.client_message(call);
        }
        session
    };
    let (read_twice, read_once) = (session(&layer), session(&layer));
    let expected = read_twice.server_message(&batch).expect("a rewrite");
    let measured = read_once.measure(&batch, OFFLOAD_BYTES);
    assert!(measured.work > batch.len(), "{}", measured.work);
    assert!(measured.read.as_ref().unwrap().answers[1].blocks.is_some());
    assert_eq!(
        read_once.server_message_measured(&batch, measured),
        Some(expected)
    );
    assert_eq!((read_once.pending(), read_twice.pending()), (0, 0));

    // A reading of other text (of another length) is not taken for it.
    let other = session(&layer);
    let measured = other.measure(&answer(9, json!({})), OFFLOAD_BYTES);
    let single = answer(1, text_result(&users()));
    assert_eq!(
        other.server_message_measured(&single, measured),
        read_twice_single(&layer, &calls[0], &single)
    );
}

/// `single` rewritten by a fresh session that read `call`, without a
/// measurement.
fn read_twice_single(layer: &McpLayer, call: &str, single: &str) -> Option<String> {
    let session = Session::new(layer);
    session.client_message(call);
    session.server_message(single)
}
