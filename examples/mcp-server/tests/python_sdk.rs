//! The official MCP Python SDK as the client of this server, spawned as a
//! real process: TOON with `X-Prefer-Format: toon`, compact lines with
//! `?format=compact`, the server's own results without either.
//!
//! The SDK is installed once per run into a virtual environment under the
//! target directory; without python3 (with venv and pip) or PyPI the tests
//! report a missing prerequisite (`terse_tests::prerequisite`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};
use terse_tests::prerequisite;
use terse_tests::python::install_venv;
use terse_tests::reference::Reference;

/// The SDK version the tests run.
const SDK: &str = "mcp==1.30.0";

/// Connects with the SDK, lists the tools, calls each, prints one JSON
/// document: `{"tools": [...], "calls": [{"tool", "result"}]}`.
const DRIVER: &str = r#"
import asyncio, json, sys
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

CALLS = [
    ("list_events", {"date": "2025-06-02"}),
    ("list_events", {"date": "2025-06-02", "days": 7}),
    ("get_event", {"id": "evt_20250602_2"}),
    ("find_free_slots", {"date": "2025-06-03", "duration_minutes": 30}),
    ("weather_forecast", {"city": "Lisbon", "days": 7}),
    ("get_event", {"id": "evt_nope"}),
]

async def main(url, prefer):
    headers = {"X-Prefer-Format": prefer} if prefer else None
    async with streamablehttp_client(url, headers=headers) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            calls = []
            for name, arguments in CALLS:
                result = await session.call_tool(name, arguments)
                calls.append({"tool": name, "result": result.model_dump(mode="json", by_alias=True, exclude_none=True)})
    print(json.dumps({"tools": sorted(tool.name for tool in tools.tools), "calls": calls}))

asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None))
"#;

/// The virtual environment's python, with the SDK; `None` when it cannot
/// be had (reported once per test).
fn python() -> Option<PathBuf> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    prerequisite::require(PYTHON.get_or_init(install).clone())
}

fn install() -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mcp-python-sdk");
    let python = install_venv(&dir, &[SDK])?;
    std::fs::write(dir.join("driver.py"), DRIVER).map_err(|err| err.to_string())?;
    Ok(python)
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
fn session(python: &PathBuf, url: &str, prefer: &str) -> Value {
    let dir = python
        .parent()
        .and_then(|bin| bin.parent())
        .expect("venv dir");
    let output = Command::new(python)
        .arg(dir.join("driver.py"))
        .args([url, prefer])
        .output()
        .expect("run the python driver");
    assert!(
        output.status.success(),
        "the python driver failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or("");
    serde_json::from_str(last).unwrap_or_else(|err| panic!("{err}: {stdout}"))
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
fn the_python_sdk_gets_toon_that_decodes_to_the_servers_json() {
    let Some(python) = python() else { return };
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
    let decoded = reference.run(
        r#"
import { readFileSync } from 'node:fs';
import { decode } from '@toon-format/toon';
const cases = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((c) => decode(c.toon))));
"#,
        Value::Array(cases.clone()).to_string().as_bytes(),
    );
    let decoded: Vec<Value> = serde_json::from_slice(&decoded).expect("the driver's answer");
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
fn without_a_format_the_python_sdk_gets_the_servers_own_results() {
    let Some(python) = python() else { return };
    let plain_server = Server::start(&["--without-layer"]);
    let server = Server::start(&[]);
    let own = session(&python, &plain_server.url, "");
    let through = session(&python, &server.url, "");
    assert_eq!(through, own);
    let json = session(&python, &server.url, "json");
    assert_eq!(json, own);
}

#[test]
fn compact_lines_for_list_events_through_the_query() {
    let Some(python) = python() else { return };
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
fn token_table() {
    let Some(python) = python() else { return };
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
        let count = |call: &Value| terse::tokens::exact(text_of(call));
        let (json, toon, compact) = (count(own), count(toon), count(compact));
        assert!(toon <= json && compact <= toon.max(json));
        table.push_str(&format!(
            "| {} | {json} | {toon} | {compact} |\n",
            own["tool"].as_str().unwrap()
        ));
    }
    let _ = writeln!(std::io::stderr(), "{table}");
}
