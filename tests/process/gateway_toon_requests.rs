//! Request bodies sent as TOON through `terse gateway`: the upstream gets
//! JSON (`Content-Type: application/json`, a `Content-Length`, no
//! `Transfer-Encoding`), whatever it is written in. In front of Django REST
//! framework, FastAPI (a typed Pydantic body) and Express (`express.json()`),
//! which refuse or ignore TOON themselves, the records created from TOON
//! bodies are the decoded TOON. The tokens received and forwarded are
//! counted.

use std::path::Path;

use axum::Router;
use axum::http::HeaderMap;
use axum::routing;
use serde_json::{Value, json};
use terse_tests::python::{PythonUpstream, express_modules, frameworks_python, spawn_gateway};
use terse_tests::server::{TestServer, raw_client};
use terse_tests::values::difference;

/// The 50 records of the README's bulk example.
fn bulk_json() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/requests/tasks_bulk.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("bulk body")).expect("JSON")
}

fn toon(value: &Value) -> String {
    terse_toon::encode(value, &Default::default())
}

fn decoded(toon: &str) -> Value {
    terse_toon::decode(toon, &Default::default()).expect("TOON")
}

async fn post(url: &str, content_type: &str, body: impl Into<reqwest::Body>) -> (u16, Value) {
    let response = raw_client()
        .post(url)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap_or_else(|err| panic!("{url}: {err}"));
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// An upstream that answers what it was sent: headers and JSON body.
async fn seen(headers: HeaderMap, body: axum::body::Bytes) -> axum::Json<Value> {
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
    axum::Json(json!({
        "created": serde_json::from_slice::<Value>(&body).ok(),
        "length": body.len(),
        "content_type": header("content-type"),
        "content_length": header("content-length"),
        "transfer_encoding": header("transfer-encoding"),
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_gets_json_with_its_length_and_the_tokens_are_counted() {
    let (_alone, counters, events) = terse_tests::reports::install().await;
    let upstream = TestServer::spawn(Router::new().route("/tasks", routing::post(seen))).await;
    let (gateway, _task) =
        spawn_gateway("[gateway]\n", &format!("http://{}", upstream.addr())).await;
    let url = format!("{gateway}/tasks");
    let records = bulk_json();
    let text = toon(&records);

    // Declared length, then chunked: the upstream gets the same JSON.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = text
        .as_bytes()
        .chunks(100)
        .map(|c| Ok(c.to_vec()))
        .collect();
    for body in [
        reqwest::Body::from(text.clone()),
        reqwest::Body::wrap_stream(futures_util::stream::iter(chunks)),
    ] {
        let (status, got) = post(&url, "text/toon; charset=utf-8", body).await;
        assert_eq!(status, 200, "{got}");
        assert_eq!(got["created"], decoded(&text));
        assert_eq!(got["content_type"], "application/json");
        assert_eq!(got["content_length"], got["length"].to_string());
        assert_eq!(got["transfer_encoding"], Value::Null);
    }

    // Malformed TOON never reaches the upstream.
    let (status, got) = post(&url, "text/toon", "a: 1\nb[2]: x").await;
    assert_eq!(status, 400, "{got}");
    assert_eq!(got["error"]["code"], "invalid_toon");

    // Counted as received (TOON) and forwarded (JSON), as `X-Token-Count` counts.
    let json_text = decoded(&text).to_string();
    let (received, forwarded) = (
        tower_terse::tokens::estimate(text.as_bytes()),
        tower_terse::tokens::estimate(json_text.as_bytes()),
    );
    assert!(received < forwarded, "{received} < {forwarded}");
    let line = format!("received={received} forwarded={forwarded}");
    assert!(
        events.lines().iter().any(|event| event.contains(&line)),
        "no event with {line}: {:?}",
        events.lines()
    );
    assert!(counters.get("terse_toon_requests_total{}") >= 2);
    assert!(counters.get("terse_request_tokens_received_total{}") >= 2 * received as u64);
    assert!(counters.get("terse_request_tokens_forwarded_total{}") >= 2 * forwarded as u64);
}

/// What one framework is sent and answers.
struct Framework {
    name: &'static str,
    upstream: PythonUpstream,
    /// Where one record is created.
    create: &'static str,
    /// Where the 50-record bulk body goes.
    bulk: &'static str,
    /// What the framework itself answers to a TOON body: its status, and
    /// for one that takes it anyway, what it created from it.
    direct: (u16, Option<Value>),
}

async fn check(framework: Framework) {
    let name = framework.name;
    let upstream = framework.upstream.url();
    let record = json!({"title": "Plan, then ship: v2 🚀", "project": "apollo", "done": false, "estimate": 2.5, "due": "2026-04-01"});
    let one = toon(&record);

    let (status, got) = post(
        &format!("{upstream}{}", framework.create),
        "text/toon",
        one.clone(),
    )
    .await;
    assert_eq!(status, framework.direct.0, "{name} itself: {got}");
    if let Some(created) = &framework.direct.1 {
        assert_eq!(&got["created"], created, "{name} itself");
    }

    let (gateway, _task) = spawn_gateway("[gateway]\n", &upstream).await;
    for (path, body) in [
        (framework.create, one),
        (framework.bulk, toon(&bulk_json())),
    ] {
        let (status, got) = post(&format!("{gateway}{path}"), "text/toon", body.clone()).await;
        assert_eq!(status, 201, "{name} {path}: {got}");
        let expected = decoded(&body);
        let difference = difference(&got["created"], &expected);
        assert!(difference.is_none(), "{name} {path}: {difference:?}");
        assert!(
            got["content_type"]
                .as_str()
                .unwrap()
                .starts_with("application/json"),
            "{name}: {got}"
        );
        assert_eq!(
            got["content_length"],
            expected.to_string().len().to_string(),
            "{name}"
        );
        assert_eq!(got["transfer_encoding"], Value::Null, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Python/PyPI; run with --include-ignored (.ci/run does)"]
async fn django_rest_framework_creates_records_from_toon() {
    let _shared = terse_tests::process::PROCESS.read().await;
    let Some(python) = frameworks_python() else {
        return;
    };
    check(Framework {
        name: "Django REST framework",
        upstream: PythonUpstream::start_framework(&python, "drf_app.py", &[]),
        create: "/tasks/",
        bulk: "/tasks/",
        direct: (415, None),
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Python/PyPI; run with --include-ignored (.ci/run does)"]
async fn fastapi_creates_records_from_toon() {
    let _shared = terse_tests::process::PROCESS.read().await;
    let Some(upstream) = PythonUpstream::start(None) else {
        return;
    };
    check(Framework {
        name: "FastAPI",
        upstream,
        create: "/api/tasks",
        bulk: "/api/tasks/bulk",
        direct: (422, None),
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node/npm; run with --include-ignored (.ci/run does)"]
async fn express_creates_records_from_toon() {
    let _shared = terse_tests::process::PROCESS.read().await;
    let Some(modules) = express_modules() else {
        return;
    };
    check(Framework {
        name: "Express",
        upstream: PythonUpstream::start_framework(
            Path::new("node"),
            "express_app.js",
            &[("NODE_PATH", &modules)],
        ),
        create: "/tasks",
        bulk: "/tasks",
        // `express.json()` skips the body: an empty record.
        direct: (201, Some(json!({}))),
    })
    .await;
}
