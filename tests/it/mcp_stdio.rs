//! `terse mcp` between the official MCP Python SDK's stdio client and a
//! FastMCP stdio server (`tests/python/mcp_stdio_server.py`), all three
//! real processes: the server's own results without a format; TOON that
//! the reference decoder reads back to the same JSON, in fewer exact
//! tokens; compact lines for a templated tool; the `format` argument
//! offered, honoured and stripped; the hint and the `_meta` counts.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use terse_tests::python::{
    MCP_STDIO_SCRIPT, mcp_python, mcp_stdio_session, session_calls, text_of,
};
use terse_tests::reference::Reference;
use tower_terse::tokens;

/// Every kind of result the server makes.
fn calls() -> Value {
    json!([
        ["list_events", {"date": "2025-06-02", "days": 2}],
        ["list_users", {}],
        ["get_user", {"id": 3}],
        ["greet", {"name": "Ada"}],
        ["fail", {"reason": "test"}],
        ["forecast", {"city": "Lisbon", "days": 5}],
        ["count", {"steps": 4}],
        ["summarize", {"topic": "TOON"}],
        ["convert", {"value": 2.5, "format": ".2f"}],
        ["echo", {"text": "hi", "times": 2}],
    ])
}

const TEMPLATE: &str = r#"
[[mcp.tool]]
name = "list_events"
list = "events"
noun = "event"
line = "{start|time}-{end|time} {title}{? [{location}]}"
"#;

/// The server, started directly.
fn server(python: &Path) -> Vec<OsString> {
    vec![python.into(), MCP_STDIO_SCRIPT.into()]
}

/// The server behind `terse mcp ARGS`.
fn behind_terse(python: &Path, args: &[&str]) -> Vec<OsString> {
    let mut command: Vec<OsString> = vec![env!("CARGO_BIN_EXE_terse-mcp").into()];
    command.extend(args.iter().map(OsString::from));
    command.push("--".into());
    command.extend(server(python));
    command
}

fn session(python: &Path, calls: &Value, command: &[OsString], env: &[(&str, &OsStr)]) -> Value {
    let command: Vec<&OsStr> = command.iter().map(OsString::as_os_str).collect();
    mcp_stdio_session(python, calls, &command, env)
}

/// A config file in the temporary folder, named after the test.
fn config(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "terse-mcp-stdio-{name}-{}.toml",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("write the config");
    path
}

fn tool<'s>(session: &'s Value, name: &str) -> &'s Value {
    session["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// `call` with its first text block set to `own`'s: what must equal `own`
/// when only that block was rewritten.
fn with_own_text(call: &Value, own: &Value) -> Value {
    let mut rest = call.clone();
    rest["result"]["content"][0]["text"] = own["result"]["content"][0]["text"].clone();
    rest
}

#[test]
#[ignore = "needs Python/PyPI and node/npm; run with --include-ignored (.ci/run does)"]
fn with_format_json_the_client_gets_the_servers_own_results() {
    let Some(python) = mcp_python() else { return };
    let calls = calls();
    let own = session(&python, &calls, &server(&python), &[]);
    let results = session_calls(&own);
    assert_eq!(results[4]["result"]["isError"], true, "fail is an error");
    assert!(results[5]["result"]["structuredContent"]["daily"].is_array());
    assert_eq!(results[6]["progress"].as_array().map(Vec::len), Some(4));
    assert!(
        text_of(&results[7]).contains("short: Summarize TOON"),
        "sampling"
    );
    for args in [
        &["--format", "json"][..],
        &["--format", "json", "--format-argument"],
    ] {
        let through = session(&python, &calls, &behind_terse(&python, args), &[]);
        if args.contains(&"--format-argument") {
            // Only the schemas differ (see the format argument's test).
            assert_eq!(through["calls"], own["calls"], "{args:?}");
        } else {
            assert_eq!(through, own, "{args:?}");
        }
    }
}

#[test]
#[ignore = "needs Python/PyPI and node/npm; run with --include-ignored (.ci/run does)"]
fn toon_decodes_to_the_servers_json_in_fewer_exact_tokens() {
    let Some(python) = mcp_python() else { return };
    let Some(reference) = Reference::install("mcp-stdio-toon") else {
        return;
    };
    let calls = calls();
    let own = session(&python, &calls, &server(&python), &[]);
    // TOON where cheaper is the default: no `--format` needed.
    let toon = session(&python, &calls, &behind_terse(&python, &[]), &[]);
    let compact_config = config("table", &format!("[mcp]\n{TEMPLATE}"));
    let compact_config = compact_config.to_str().expect("UTF-8 path");
    let compact = session(
        &python,
        &calls,
        &behind_terse(
            &python,
            &["--config", compact_config, "--format", "compact"],
        ),
        &[],
    );
    assert_eq!(toon["tools"], own["tools"]);
    let mut rewritten = Vec::new();
    let mut minified = Vec::new();
    let mut table = String::from(
        "| tool call (stdio, FastMCP) | JSON | TOON | compact |\n| --- | ---: | ---: | ---: |\n",
    );
    for ((own, toon), compact) in session_calls(&own)
        .iter()
        .zip(session_calls(&toon))
        .zip(session_calls(&compact))
    {
        let name = own["tool"].as_str().expect("a tool name");
        assert_eq!(
            with_own_text(toon, own),
            *own,
            "{name}: only the text block changes"
        );
        assert_eq!(with_own_text(compact, own), *own, "{name}");
        let (json, served) = (text_of(own), text_of(toon));
        if served == tower_terse::format::minify_json(json) && served != json {
            // The same JSON without its whitespace, where that is cheaper
            // than TOON.
            minified.push(name);
            rewritten.push((name, json, served));
        } else if served != json {
            rewritten.push((name, json, served));
        }
        let count = |text: &str| tokens::exact(text);
        table.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            count(json),
            count(served),
            count(text_of(compact))
        ));
    }
    eprintln!("{table}");
    // What the hint costs (README: when it pays).
    let hint = tower_terse::mcp::HINT;
    eprintln!(
        "hint: {} tokens (+1 for its line break)",
        tokens::exact(hint)
    );
    let names: Vec<&str> = rewritten.iter().map(|(name, _, _)| *name).collect();
    for name in ["list_events", "list_users", "forecast", "count"] {
        assert!(names.contains(&name), "{name} is rewritten: {names:?}");
    }
    for name in ["greet", "fail", "convert"] {
        assert!(!names.contains(&name), "{name} is not JSON or an error");
    }
    eprintln!("served minified: {minified:?}");
    let toon_only: Vec<_> = rewritten
        .iter()
        .filter(|(name, _, _)| !minified.contains(name))
        .collect();
    let texts: Vec<&str> = toon_only.iter().map(|(_, _, toon)| *toon).collect();
    for ((name, json, _), decoded) in toon_only.iter().zip(reference.decode_all(&texts)) {
        let json_value: Value = serde_json::from_str(json).expect("the server's JSON");
        assert_eq!(
            decoded, json_value,
            "{name}: the reference reads the TOON back"
        );
    }
    for (name, json, toon) in &rewritten {
        let json_value: Value = serde_json::from_str(json).expect("the server's JSON");
        if minified.contains(name) {
            let served: Value = serde_json::from_str(toon).expect("minified JSON");
            assert_eq!(served, json_value, "{name}: the same JSON, minified");
        }
        assert!(
            tokens::exact(toon) < tokens::exact(json),
            "{name}: TOON only where it costs fewer tokens"
        );
    }
}

#[test]
#[ignore = "needs Python/PyPI and node/npm; run with --include-ignored (.ci/run does)"]
fn compact_lines_for_a_templated_tool_and_a_tool_left_alone() {
    let Some(python) = mcp_python() else { return };
    let path = config(
        "compact",
        &format!(
            "[mcp]\ndefault_format = \"compact\"\n{TEMPLATE}\n[[mcp.tool]]\nname = \"get_user\"\nformat = \"json\"\n"
        ),
    );
    let calls = calls();
    let own = session(&python, &calls, &server(&python), &[]);
    let compact = session(
        &python,
        &calls,
        &behind_terse(&python, &["--config", path.to_str().expect("UTF-8 path")]),
        &[],
    );
    let (own, compact) = (session_calls(&own), session_calls(&compact));
    let events = text_of(&compact[0]);
    let lines: Vec<&str> = events.lines().collect();
    assert_eq!(lines[0], "8 events", "{events}");
    assert_eq!(
        lines[1], "evt_20250602_1: 10:00-10:45 Lunch [Lisbon office]",
        "{events}"
    );
    assert_eq!(lines.len(), 10, "summary, 8 events, meta: {events}");
    assert!(lines[9].starts_with("meta: {"), "{events}");
    assert_eq!(
        compact[0]["result"]["structuredContent"],
        own[0]["result"]["structuredContent"]
    );
    // No template: TOON, the compact rule's fallback.
    assert!(
        text_of(&compact[1]).starts_with("[8]{id,name,role,active}:"),
        "{}",
        text_of(&compact[1])
    );
    // `format = "json"`: left alone.
    assert_eq!(compact[2], own[2]);
}

#[test]
#[ignore = "needs Python/PyPI and node/npm; run with --include-ignored (.ci/run does)"]
fn the_format_argument_is_offered_honoured_and_stripped() {
    let Some(python) = mcp_python() else { return };
    let path = config(
        "argument",
        &format!("[mcp]\nhint = \"instructions\"\nmeta_counts = true\n{TEMPLATE}"),
    );
    let log =
        std::env::temp_dir().join(format!("terse-mcp-stdio-log-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let calls = json!([
        ["list_users", {"format": "toon"}],
        ["list_users", {}],
        ["list_events", {"date": "2025-06-02", "format": "compact"}],
        ["echo", {"text": "hi", "format": "toon"}],
        ["convert", {"value": 2.5, "format": ".1f"}],
        ["list_users", {"format": "yaml"}],
    ]);
    let own = session(&python, &calls, &server(&python), &[]);
    // JSON unless a call names a format, to tell the two apart.
    let args = [
        "--config",
        path.to_str().expect("UTF-8 path"),
        "--format-argument",
        "--format",
        "json",
    ];
    let through = session(
        &python,
        &calls,
        &behind_terse(&python, &args),
        &[("TERSE_TEST_LOG", log.as_os_str())],
    );

    // Offered: every tool but the one with a `format` of its own, `compact`
    // only where there is a template; nothing else in the schemas changes.
    assert_eq!(through["instructions"], tower_terse::mcp::HINT);
    for own_tool in own["tools"].as_array().expect("tools") {
        let name = own_tool["name"].as_str().expect("a name");
        let mut offered = tool(&through, name).clone();
        let property = offered["inputSchema"]["properties"]
            .as_object_mut()
            .expect("properties")
            .remove("format");
        if name == "convert" {
            offered["inputSchema"]["properties"]["format"] = property.clone().expect("its own");
            assert_eq!(
                property,
                Some(own_tool["inputSchema"]["properties"]["format"].clone())
            );
        } else {
            let expected = if name == "list_events" {
                json!(["json", "toon", "compact"])
            } else {
                json!(["json", "toon"])
            };
            assert_eq!(property.expect("offered")["enum"], expected, "{name}");
        }
        assert_eq!(offered, *own_tool, "{name}");
    }

    // Honoured.
    let (own, through) = (session_calls(&own), session_calls(&through));
    assert!(text_of(&through[0]).starts_with("[8]{id,name,role,active}:"));
    let counts = &through[0]["result"]["_meta"]["terse/tokens"];
    assert_eq!(counts["format"], "toon");
    assert_eq!(counts["counted"], "exact o200k_base");
    assert_eq!(counts["json"], tokens::exact(text_of(&own[1])));
    assert_eq!(counts["served"], tokens::exact(text_of(&through[0])));
    assert_eq!(through[1], own[1], "no format named: the server's JSON");
    assert!(
        text_of(&through[2]).starts_with("4 events\n"),
        "{}",
        text_of(&through[2])
    );
    assert_eq!(
        text_of(&through[4]),
        "2.5",
        "convert's own `format` reached it"
    );
    // An unknown format: refused, naming the allowed values.
    assert_eq!(through[5]["error"]["code"], -32602, "{}", through[5]);
    assert!(
        through[5]["error"]["message"]
            .as_str()
            .expect("a message")
            .ends_with("expected one of json, toon"),
        "{}",
        through[5]
    );

    // Stripped: the server never saw a `format` but convert's.
    let log = std::fs::read_to_string(&log).expect("the server's log");
    let mut seen = 0;
    for line in log.lines() {
        let message: Value = serde_json::from_str(line).expect("a JSON-RPC line");
        if message["method"] == "tools/call" {
            seen += 1;
            let params = &message["params"];
            let has_format = params["arguments"].get("format").is_some();
            assert_eq!(has_format, params["name"] == "convert", "{line}");
        }
    }
    assert_eq!(seen, 5, "every call but the refused one reached the server");
    // Echo answers its arguments: the same data (TOON or JSON, whichever
    // is cheaper) means it got what it would have without terse.
    let echoed: Value = serde_json::from_str(text_of(&own[3])).expect("echo's JSON");
    let through_echo = text_of(&through[3]);
    let through_echo = serde_json::from_str::<Value>(through_echo)
        .or_else(|_| terse_toon::decode(through_echo, &Default::default()))
        .expect("JSON or TOON");
    assert_eq!(through_echo, echoed, "echo got what it would have");
}
