//! The official MCP Python SDK as the client of this server, spawned as a
//! real process: TOON with `X-Prefer-Format: toon`, compact lines with
//! `?format=compact`, the server's own results without either.
//!
//! The SDK is installed once per machine into a virtual environment
//! (`terse_tests::python::mcp_python`), and its client is
//! `tests/python/mcp_client.py`; without python3 (with venv and pip) or
//! PyPI the tests report a missing prerequisite (`terse_tests::prerequisite`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};
use terse_tests::python::{mcp_python, mcp_session};
use terse_tests::reference::Reference;

/// The calls each session makes, as `[tool, arguments]`.
fn calls() -> Value {
    json!([
        ["list_events", {"date": "2025-06-02"}],
        ["list_events", {"date": "2025-06-02", "days": 7}],
        ["get_event", {"id": "evt_20250602_2"}],
        ["find_free_slots", {"date": "2025-06-03", "duration_minutes": 30}],
        ["weather_forecast", {"city": "Lisbon", "days": 7}],
        ["get_event", {"id": "evt_nope"}],
    ])
}

/// The example server as a process on a free loopback port.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-server"))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start mcp-server");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the address");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .to_owned();
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the SDK got from `url`, asking for `prefer` (or nothing).
fn session(python: &Path, url: &str, prefer: &str) -> Value {
    mcp_session(python, url, prefer, Some(&calls()))
}

fn text_of(call: &Value) -> &str {
    call["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block")
}

/// TOON writes numbers canonically (`1.0` is `1`): compare them by value.
fn numbers_as_f64(value: Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => items.into_iter().map(numbers_as_f64).collect(),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (key, numbers_as_f64(value)))
                .collect(),
        ),
        other => other,
    }
}

#[test]
#[ignore = "needs python3 with PyPI access, and node with npm; run with --include-ignored (.ci/run does)"]
fn the_python_sdk_gets_toon_that_decodes_to_the_servers_json() {
    let Some(python) = mcp_python() else { return };
    let plain_server = Server::start(&["--without-layer"]);
    let server = Server::start(&[]);
    let own = session(&python, &plain_server.url, "");
    let toon = session(&python, &server.url, "toon");
    assert_eq!(
        toon["tools"],
        json!([
            "find_free_slots",
            "get_event",
            "list_events",
            "weather_forecast"
        ])
    );
    let own_calls = own["calls"].as_array().unwrap();
    let toon_calls = toon["calls"].as_array().unwrap();
    assert_eq!(own_calls.len(), toon_calls.len());

    let mut cases = Vec::new();
    for (own, toon) in own_calls.iter().zip(toon_calls) {
        let tool = own["tool"].as_str().unwrap();
        // Everything but the text block is the server's.
        let mut rest = toon["result"].clone();
        rest["content"][0]["text"] = own["result"]["content"][0]["text"].clone();
        assert_eq!(rest, own["result"], "{tool}");
        assert_eq!(
            toon["result"].get("structuredContent"),
            own["result"].get("structuredContent"),
            "{tool}"
        );
        if own["result"]["isError"] == true {
            assert_eq!(text_of(toon), text_of(own), "{tool}: errors pass");
            continue;
        }
        let json: Value = serde_json::from_str(text_of(own)).unwrap();
        let text = text_of(toon);
        if tool == "get_event" {
            // One flat object: TOON is not cheaper, so the JSON stays.
            assert_eq!(text, text_of(own), "{tool}");
            continue;
        }
        assert_ne!(text, text_of(own), "{tool} is rewritten");
        let decoded = terse_toon::decode(text, &Default::default())
            .unwrap_or_else(|err| panic!("{tool}: {err}\n{text}"));
        assert_eq!(
            numbers_as_f64(decoded),
            numbers_as_f64(json.clone()),
            "{tool}"
        );
        cases.push(json!({"name": tool, "toon": text, "json": json}));
    }
    assert_eq!(cases.len(), 4);
    let Some(reference) = Reference::install("mcp-python-sdk") else {
        return;
    };
    let texts: Vec<&str> = cases.iter().map(|c| c["toon"].as_str().unwrap()).collect();
    let decoded = reference.decode_all(&texts);
    for (case, decoded) in cases.iter().zip(decoded) {
        assert_eq!(
            numbers_as_f64(decoded),
            numbers_as_f64(case["json"].clone()),
            "reference decode of {}",
            case["name"]
        );
    }
}

#[test]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
fn without_a_format_the_python_sdk_gets_toon_where_cheaper_and_json_when_asked() {
    let Some(python) = mcp_python() else { return };
    let plain_server = Server::start(&["--without-layer"]);
    let server = Server::start(&[]);
    let own = session(&python, &plain_server.url, "");
    // TOON where cheaper is the default: asking for nothing is asking for it.
    let through = session(&python, &server.url, "");
    assert_eq!(through, session(&python, &server.url, "toon"));
    assert_ne!(through, own, "the default rewrites the JSON results");
    // `json` leaves every result as the server wrote it.
    let json = session(&python, &server.url, "json");
    assert_eq!(json, own);
}

#[test]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
fn compact_lines_for_list_events_through_the_query() {
    let Some(python) = mcp_python() else { return };
    for mode in [&[][..], &["--json-response"][..]] {
        let server = Server::start(mode);
        let compact = session(&python, &format!("{}?format=compact", server.url), "");
        let week = &compact["calls"][1];
        assert_eq!(week["tool"], "list_events");
        let structured = &week["result"]["structuredContent"];
        let events = structured["events"].as_array().unwrap();
        let text = text_of(week);
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(format!("{} events", events.len()).as_str())
        );
        for event in events {
            let line = lines.next().expect("a line per event");
            let (id, rest) = line.split_once(": ").unwrap();
            assert_eq!(id, event["id"], "{mode:?}");
            assert!(rest.contains(event["title"].as_str().unwrap()), "{line}");
        }
        assert_eq!(
            lines.next(),
            Some(r#"meta: {"from":"2025-06-02","to":"2025-06-08","timezone":"UTC"}"#)
        );
        // Tools without a template get the TOON rule.
        let weather = text_of(&compact["calls"][4]);
        assert!(weather.starts_with("city: Lisbon\n"), "{weather}");
    }
}

/// Writes the table of the final report: tokens (o200k) of each tool's
/// text block as JSON, TOON and compact lines.
#[test]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
fn token_table() {
    let Some(python) = mcp_python() else { return };
    let server = Server::start(&[]);
    let own = session(&python, &server.url, "");
    let toon = session(&python, &server.url, "toon");
    let compact = session(&python, &server.url, "compact");
    let mut table =
        String::from("| tool call | JSON | TOON | compact |\n| --- | ---: | ---: | ---: |\n");
    for ((own, toon), compact) in own["calls"]
        .as_array()
        .unwrap()
        .iter()
        .zip(toon["calls"].as_array().unwrap())
        .zip(compact["calls"].as_array().unwrap())
    {
        let count = |call: &Value| tower_terse::tokens::exact(text_of(call));
        let (json, toon, compact) = (count(own), count(toon), count(compact));
        assert!(toon <= json && compact <= toon.max(json));
        table.push_str(&format!(
            "| {} | {json} | {toon} | {compact} |\n",
            own["tool"].as_str().unwrap()
        ));
    }
    let _ = writeln!(std::io::stderr(), "{table}");
}
