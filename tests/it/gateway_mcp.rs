//! `[mcp]`: the gateway in front of an MCP server written with the official
//! Python SDK (FastMCP, Streamable HTTP), called by the same SDK's client,
//! both as real processes. Tool results come as the cheapest of the
//! server's JSON (which FastMCP writes with `indent=2`) minified and TOON
//! (by default), or compact lines when asked, and as the server's own when
//! JSON is asked; the server answering with
//! event streams and with plain JSON.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use terse_tests::json_formats::minify;
use terse_tests::python::{
    PythonUpstream, mcp_python, mcp_session, session_calls, spawn_gateway, text_of,
};
use terse_tests::reference::Reference;
use terse_tests::server::raw_client;
use terse_tests::values::difference;

/// `[layer] default_format = "toon"`: the HTTP layer would rewrite any
/// JSON it saw, so results identical to the server's show it never sees
/// the MCP endpoint's answers.
const CONFIG: &str = r#"
[layer]
default_format = "toon"

[mcp]
path = "/mcp"

[[mcp.tool]]
name = "list_events"
list = "events"
noun = "event"
line = "{start|time}-{end|time} {title}{? [{location}]}"
"#;

/// What the SDK's client got from the endpoint at `url`, sending
/// `X-Prefer-Format: prefer` unless `prefer` is empty.
async fn session(python: &Path, url: String, prefer: &str) -> Value {
    let python = python.to_owned();
    let prefer = prefer.to_owned();
    tokio::task::spawn_blocking(move || mcp_session(&python, &url, &prefer, None))
        .await
        .expect("the client task")
}

/// The servers (event streams, plain JSON) and the gateway in front of
/// each: `(mode, direct endpoint, endpoint through the gateway)`.
struct Setup {
    python: std::path::PathBuf,
    servers: Vec<(&'static str, PythonUpstream, String)>,
    _gateways: Vec<tokio::task::JoinHandle<()>>,
}

async fn setup() -> Option<Setup> {
    let python = mcp_python()?;
    let mut servers = Vec::new();
    let mut gateways = Vec::new();
    for (mode, json_response) in [("sse", false), ("json", true)] {
        let server = PythonUpstream::start_mcp(json_response)?;
        let (gateway, task) = spawn_gateway(CONFIG, &server.url()).await;
        servers.push((mode, server, format!("{gateway}/mcp")));
        gateways.push(task);
    }
    Some(Setup {
        python,
        servers,
        _gateways: gateways,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn asking_json_the_sdk_gets_the_servers_own_results() {
    let Some(setup) = setup().await else { return };
    for (mode, server, through) in &setup.servers {
        let own = session(&setup.python, format!("{}/mcp", server.url()), "").await;
        assert_eq!(own["session"], true, "{mode}: a session id");
        assert_eq!(
            own["tools"],
            json!([
                "get_event",
                "list_events",
                "slow_report",
                "weather_forecast"
            ])
        );
        assert_eq!(session_calls(&own)[4]["result"]["isError"], true, "{mode}");
        // Nothing asked: TOON where cheaper, the `[mcp]` default.
        let gateway = session(&setup.python, through.clone(), "").await;
        assert_ne!(gateway["calls"], own["calls"], "{mode}");
        let json = session(&setup.python, through.clone(), "json").await;
        assert_eq!(json, own, "{mode}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with PyPI access, and node with npm; run with --include-ignored (.ci/run does)"]
async fn toon_and_compact_through_the_gateway() {
    let Some(setup) = setup().await else { return };
    let mut cases = Vec::new();
    let mut table = String::from(
        "| tool call | JSON | minified | TOON | served | compact |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (mode, server, through) in &setup.servers {
        let own = session(&setup.python, format!("{}/mcp", server.url()), "").await;
        let toon = session(&setup.python, through.clone(), "toon").await;
        let compact = session(&setup.python, through.clone(), "compact").await;
        for ((own, toon), compact) in session_calls(&own)
            .iter()
            .zip(session_calls(&toon))
            .zip(session_calls(&compact))
        {
            let tool = own["tool"].as_str().unwrap();
            for (format, call) in [("toon", toon), ("compact", compact)] {
                // Everything but the text block is the server's own.
                let mut rest = call["result"].clone();
                rest["content"][0]["text"] = own["result"]["content"][0]["text"].clone();
                assert_eq!(rest, own["result"], "{mode} {format} {tool}");
            }
            if own["result"]["isError"] == true {
                assert_eq!(text_of(toon), text_of(own), "{mode}: errors pass");
                assert_eq!(text_of(compact), text_of(own), "{mode}: errors pass");
                continue;
            }
            let json: Value = serde_json::from_str(text_of(own)).unwrap();
            let text = text_of(toon);
            assert_ne!(text, text_of(own), "{mode} {tool} is rewritten");
            // The cheapest of the server's JSON minified and its TOON.
            let minified = minify(text_of(own));
            let toon_text = terse_toon::encode(&json, &Default::default());
            let count = |text: &str| tower_terse::tokens::exact(text);
            assert!(
                count(text) <= count(&minified).min(count(&toon_text)),
                "{mode} {tool}: {text}"
            );
            if text == minified {
                assert_eq!(serde_json::from_str::<Value>(text).unwrap(), json);
            } else {
                let decoded = terse_toon::decode(text, &Default::default())
                    .unwrap_or_else(|err| panic!("{mode} {tool}: {err}\n{text}"));
                assert_eq!(difference(&decoded, &json), None, "{mode} {tool}");
                cases.push(json!({"name": format!("{mode} {tool}"), "toon": text, "json": json}));
            }

            if tool == "list_events" {
                check_compact(text_of(compact), &json);
            } else {
                // No template: the TOON rule.
                assert_eq!(text_of(compact), text, "{mode} {tool}");
            }
            if *mode == "sse" {
                let (json, served, compact) =
                    (count(text_of(own)), count(text), count(text_of(compact)));
                assert!(served < json && compact <= served, "{tool}");
                let arguments = own_arguments(tool, &table);
                let (minified, toon) = (count(&minified), count(&toon_text));
                table.push_str(&format!(
                    "| {tool}{arguments} | {json} | {minified} | {toon} | {served} | {compact} |\n"
                ));
            }
        }
    }
    // Tokens (o200k_base) of each text block, for the record.
    eprintln!("{table}");
    let Some(reference) = Reference::install("gateway-mcp") else {
        return;
    };
    let texts: Vec<&str> = cases.iter().map(|c| c["toon"].as_str().unwrap()).collect();
    for (case, decoded) in cases.iter().zip(reference.decode_all(&texts)) {
        assert_eq!(
            difference(&decoded, &case["json"]),
            None,
            "reference decode of {}",
            case["name"]
        );
    }
}

/// Tells the two `list_events` calls apart in the table.
fn own_arguments(tool: &str, table: &str) -> &'static str {
    match (tool, table.contains("| list_events (1 day)")) {
        ("list_events", false) => " (1 day)",
        ("list_events", true) => " (7 days)",
        _ => "",
    }
}

/// The summary, one `id: line` per event from the config's template, then
/// the other keys.
fn check_compact(text: &str, json: &Value) {
    let events = json["events"].as_array().unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{} events", events.len()).as_str())
    );
    for event in events {
        let time = |key: &str| event[key].as_str().unwrap()[11..16].to_owned();
        let mut expected = format!(
            "{}: {}-{} {}",
            event["id"].as_str().unwrap(),
            time("start"),
            time("end"),
            event["title"].as_str().unwrap()
        );
        if let Some(location) = event["location"].as_str() {
            expected.push_str(&format!(" [{location}]"));
        }
        assert_eq!(lines.next(), Some(expected.as_str()));
    }
    let meta = lines.next().expect("the meta line");
    let meta: Value = serde_json::from_str(meta.strip_prefix("meta: ").unwrap()).unwrap();
    assert_eq!(meta, json["meta"]);
    assert_eq!(lines.next(), None);
}

/// The endpoint's other methods and headers pass both ways, and every
/// other path is the HTTP layer's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn sessions_streams_and_other_paths_pass() {
    let Some(setup) = setup().await else { return };
    let (_, _, through) = &setup.servers[0];
    let client = raw_client();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}},
    });
    let post = |message: &Value| {
        client
            .post(through)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(message.to_string())
    };
    let response = post(&initialize)
        .header("x-prefer-format", "toon")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let session = response.headers()["mcp-session-id"].clone();
    let body = response.text().await.unwrap();
    assert!(body.contains(r#""protocolVersion":"2025-06-18""#), "{body}");
    let headers = |request: reqwest::RequestBuilder| {
        request
            .header("mcp-session-id", session.clone())
            .header("mcp-protocol-version", "2025-06-18")
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = headers(post(&initialized)).send().await.unwrap();
    assert_eq!(response.status(), 202);
    // A tool's log message arrives as it is sent, a second before its
    // result, which is TOON.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "slow_report", "arguments": {}}});
    let sent = Instant::now();
    let mut response = headers(post(&call))
        .header("x-prefer-format", "toon")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = String::new();
    let mut log_at = None;
    while let Some(chunk) = response.chunk().await.unwrap() {
        events.push_str(std::str::from_utf8(&chunk).unwrap());
        if log_at.is_none() && events.contains("working on it") {
            log_at = Some(sent.elapsed());
        }
    }
    let log_at = log_at.expect("the log message");
    assert!(
        sent.elapsed() >= log_at + Duration::from_millis(800),
        "{log_at:?} then {:?}",
        sent.elapsed()
    );
    assert!(
        events.contains(r#""text":"rows[5]{id,value}:\n  1,1\n"#),
        "{events}"
    );
    // The standalone GET stream opens.
    let stream = headers(client.get(through))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    drop(stream);
    // A wrong session is the server's 404, as it says it.
    let response = post(&initialized)
        .header("mcp-session-id", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let response = headers(client.delete(through)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    // Not the endpoint: the HTTP layer, which answers TOON by default.
    let other = through.replace("/mcp", "/mcp/other");
    let response = client.get(&other).send().await.unwrap();
    assert_eq!(response.status(), 404);
}
