//! `@modelcontextprotocol/server-everything` (npm, stdio) behind `terse
//! mcp --format toon`, called by the official Python SDK's client: every
//! list method (every page) and every tool it lists, called with valid
//! arguments, answer as they do directly; where a text block became TOON,
//! the reference decoder reads back the server's JSON.

use std::ffi::OsStr;
use std::process::Command;

use serde_json::Value;
use terse_tests::mcp_everything;
use terse_tests::python::{client_answer, mcp_python};
use terse_tests::reference::Reference;

/// What the client got from the server `command` starts.
fn session(python: &std::path::Path, command: &[&OsStr]) -> Value {
    client_answer(
        Command::new(python)
            .arg(mcp_everything::CLIENT)
            .args(command),
    )
}

/// A resource's text with its clock readings blanked: the server stamps
/// its dynamic resources with the time they were made.
fn without_clock(block: &Value) -> Value {
    let mut block = block.clone();
    if let Some(text) = block["resource"]["text"].as_str() {
        let blank: String = text
            .chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect();
        block["resource"]["text"] = Value::String(blank);
    }
    block
}

#[test]
#[ignore = "needs Python/PyPI and node/npm; run with --include-ignored (.ci/run does)"]
fn every_list_and_every_tool_works_as_direct() {
    let Some(python) = mcp_python() else { return };
    let Some(server) = mcp_everything::command() else {
        return;
    };
    let Some(reference) = Reference::install("mcp-everything") else {
        return;
    };
    let server: Vec<&OsStr> = server.iter().map(OsStr::new).collect();
    let direct = session(&python, &server);
    let mut behind = vec![
        OsStr::new(env!("CARGO_BIN_EXE_terse-mcp")),
        OsStr::new("--format"),
        OsStr::new("toon"),
        OsStr::new("--"),
    ];
    behind.extend(&server);
    let through = session(&python, &behind);
    for list in [
        "tools",
        "resources",
        "templates",
        "prompts",
        "read",
        "prompt",
    ] {
        assert_eq!(through[list], direct[list], "{list}");
    }
    let tools = direct["tools"][0]["tools"].as_array().expect("tools");
    assert!(
        tools.len() >= 10,
        "the server lists its tools: {}",
        tools.len()
    );
    let (direct, through) = (
        direct["calls"].as_array().expect("calls"),
        through["calls"].as_array().expect("calls"),
    );
    assert_eq!(direct.len(), through.len());
    let mut toon = Vec::new();
    let mut minified = Vec::new();
    for (direct, through) in direct.iter().zip(through) {
        let tool = direct["tool"].as_str().expect("a tool");
        assert_eq!(through["tool"], tool);
        let (d, t) = (&direct["result"], &through["result"]);
        assert_eq!(t["isError"], d["isError"], "{tool}");
        assert_eq!(t["structuredContent"], d["structuredContent"], "{tool}");
        assert_eq!(t["_meta"], d["_meta"], "{tool}");
        let (d, t) = (
            d["content"].as_array().expect("content"),
            t["content"].as_array().expect("content"),
        );
        assert_eq!(t.len(), d.len(), "{tool}");
        for (d, t) in d.iter().zip(t) {
            if d["type"] == "text" && t["text"] != d["text"] {
                let own = d["text"].as_str().expect("text");
                let json: Value = serde_json::from_str(own)
                    .unwrap_or_else(|err| panic!("{tool}: only JSON is rewritten ({err})"));
                let text = t["text"].as_str().expect("text");
                if text == tower_terse::format::minify_json(own) {
                    // The same JSON without its whitespace: cheaper than TOON.
                    let served: Value = serde_json::from_str(text).expect("minified JSON");
                    assert_eq!(served, json, "{tool}: the same JSON, minified");
                    minified.push(tool);
                } else {
                    toon.push((tool, json, text.to_owned()));
                }
                let mut rest = t.clone();
                rest["text"] = d["text"].clone();
                assert_eq!(rest, *d, "{tool}: only the text changes");
            } else {
                assert_eq!(without_clock(t), without_clock(d), "{tool}");
            }
        }
    }
    let names: Vec<&str> = toon.iter().map(|(tool, _, _)| *tool).collect();
    eprintln!("rewritten as TOON: {names:?}; served minified: {minified:?}");
    assert!(
        !toon.is_empty() || !minified.is_empty(),
        "some result is JSON that TOON or the same JSON minified writes cheaper"
    );
    let texts: Vec<&str> = toon.iter().map(|(_, _, text)| text.as_str()).collect();
    for ((tool, json, _), decoded) in toon.iter().zip(reference.decode_all(&texts)) {
        assert_eq!(decoded, *json, "{tool}: the reference reads the TOON back");
    }
}
