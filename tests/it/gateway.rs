//! `terse gateway` in front of a real FastAPI service (uvicorn, installed
//! from PyPI once per machine): every format, compact lines from a config
//! template, errors untouched, streaming both ways, compression, headers,
//! timeouts, and hostile clients and upstreams.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use terse_tests::python::{PythonUpstream, spawn_gateway};
use terse_tests::server::{raw_client, raw_h2c_client};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CONFIG: &str = r#"
[gateway]
response_timeout = "1s"
idle_timeout = "1s"

[layer]
max_body_bytes = 65536

[[resource]]
route = "/api/tasks"
noun = "task"
line = "{title}{? [{project}]} due {due|date}"

[[resource]]
route = "/api/users/{id}/tasks"
noun = "task"
line = "{owner}: {title|upper}"
"#;

/// One upstream for the whole binary; it exits with the test process.
fn upstream() -> Option<&'static PythonUpstream> {
    static UPSTREAM: OnceLock<Option<PythonUpstream>> = OnceLock::new();
    UPSTREAM
        .get_or_init(|| PythonUpstream::start(None))
        .as_ref()
}

async fn setup() -> Option<(String, String)> {
    let upstream = upstream()?;
    let (gateway, _task) = spawn_gateway(CONFIG, &upstream.url()).await;
    Some((gateway, upstream.url()))
}

async fn get(
    client: &reqwest::Client,
    url: &str,
) -> (reqwest::StatusCode, reqwest::header::HeaderMap, String) {
    let response = client.get(url).send().await.expect("request");
    let status = response.status();
    let headers = response.headers().clone();
    (status, headers, response.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn every_way_of_asking_for_toon_gets_toon() {
    let Some((gateway, direct)) = setup().await else {
        return;
    };
    let client = raw_client();
    let url = format!("{gateway}/api/tasks?limit=3");
    let asks = [
        client.get(format!("{url}&format=toon")),
        client.get(format!("{url}&format=TOON")),
        client.get(&url).header("x-prefer-format", "toon"),
        client
            .get(&url)
            .header("accept", "text/toon, application/json;q=0.5"),
    ];
    for ask in asks {
        let response = ask.send().await.expect("request");
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["content-type"],
            "text/toon; charset=utf-8"
        );
        assert!(response.headers().contains_key("x-token-count"));
        let body = response.text().await.unwrap();
        assert!(
            body.starts_with("data[3]{id,title,project,due,done,notes}:\n  1,Task 1,apollo,"),
            "{body}"
        );
    }
    // JSON asked, or nothing asked: the upstream's bytes, counted.
    let (_, _, upstream_body) = get(&client, &format!("{direct}/api/tasks?limit=3")).await;
    for ask in [format!("{url}&format=json"), url.clone()] {
        let (status, headers, body) = get(&client, &ask).await;
        assert_eq!(status, 200);
        assert_eq!(headers["content-type"], "application/json");
        assert!(headers.contains_key("x-token-count"));
        assert_eq!(body, upstream_body);
    }
    // HTTP/2 with prior knowledge.
    let (status, headers, _) = get(&raw_h2c_client(), &format!("{url}&format=toon")).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/toon; charset=utf-8");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn compact_lines_come_from_the_config_templates() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let client = raw_client();
    let (status, headers, body) = get(
        &client,
        &format!("{gateway}/api/tasks?limit=3&format=compact"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/json");
    let envelope: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        envelope,
        json!({
            "format": "compact",
            "summary": "3 of 20 tasks",
            "lines": ["Task 1 [apollo] due 2026-03-01", "Task 2 due 2026-03-02", "Task 3 [apollo] due 2026-03-03"],
            "ids": [1, 2, 3],
            "meta": {"total": 20, "limit": 3, "offset": 0, "has_more": true},
        })
    );
    let (_, _, body) = get(
        &client,
        &format!("{gateway}/api/users/ada/tasks?format=compact"),
    )
    .await;
    let envelope: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        envelope["lines"],
        json!(["ada: TASK 1", "ada: TASK 2", "ada: TASK 3"])
    );
    // A route without a resource: JSON, silently.
    let (_, headers, body) = get(&client, &format!("{gateway}/api/tasks/2?format=compact")).await;
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["id"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn fields_keep_the_named_keys_and_the_id() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let (status, _, body) = get(
        &raw_client(),
        &format!("{gateway}/api/tasks?limit=2&fields=title"),
    )
    .await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["data"],
        json!([{"id": 1, "title": "Task 1"}, {"id": 2, "title": "Task 2"}])
    );
    let (status, _, body) = get(
        &raw_client(),
        &format!("{gateway}/api/tasks?limit=10&fields=title,due&format=toon"),
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.starts_with("data[10]{id,title,due}:"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn errors_pass_through_untouched() {
    let Some((gateway, direct)) = setup().await else {
        return;
    };
    let client = raw_client();
    for path in ["/api/tasks/999", "/api/boom"] {
        let (direct_status, direct_headers, direct_body) =
            get(&client, &format!("{direct}{path}")).await;
        for format in ["toon", "compact", "json"] {
            let (status, headers, body) =
                get(&client, &format!("{gateway}{path}?format={format}")).await;
            assert_eq!(status, direct_status, "{path}");
            assert_eq!(body, direct_body, "{path}");
            assert_eq!(headers["content-type"], direct_headers["content-type"]);
            assert!(!headers.contains_key("x-token-count"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn sse_arrives_event_by_event() {
    let Some((gateway, direct)) = setup().await else {
        return;
    };
    let client = raw_client();
    let response = client
        .get(format!("{gateway}/api/events?format=toon"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["content-type"],
        "text/event-stream; charset=utf-8"
    );
    let mut stream = response.bytes_stream();
    let first = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("the first event arrives while the upstream holds the rest")
        .unwrap()
        .unwrap();
    assert_eq!(&first[..], b"data: first\n\n");
    // Only now does the upstream send the rest.
    client
        .post(format!("{direct}/api/events/release"))
        .send()
        .await
        .unwrap();
    let mut rest = Vec::new();
    while let Some(chunk) = stream.next().await {
        rest.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(rest, b"data: second\n\ndata: last\n\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn a_gzip_upstream_is_rewritten_and_compressed_as_the_client_asks() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let url = format!("{gateway}/api/gzip?format=toon");
    let (status, headers, body) = get(&raw_client(), &url).await;
    assert_eq!(status, 200);
    assert!(!headers.contains_key("content-encoding"));
    assert_eq!(headers["content-type"], "text/toon; charset=utf-8");
    assert!(
        body.starts_with("data[20]{id,title,project,due,done,notes}:"),
        "{body}"
    );
    // A client that takes gzip gets the TOON gzipped.
    let response = raw_client()
        .get(&url)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    assert_eq!(
        response.headers()["content-type"],
        "text/toon; charset=utf-8"
    );
    let decoding = reqwest::Client::new();
    let (_, _, decoded) = get(&decoding, &url).await;
    assert_eq!(decoded, body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn a_one_mib_request_body_streams_through_intact() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let body: Vec<u8> = (0..1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        body.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    let response = raw_client()
        .post(format!("{gateway}/api/echo?x=1"))
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let echo: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(echo["length"], body.len());
    assert_eq!(echo["query"], "x=1");
    let expected = terse_tests_sha256(&body);
    assert_eq!(echo["sha256"], expected);
}

/// SHA-256 by the `sha256sum` command, not to add a hashing crate.
fn terse_tests_sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn hop_by_hop_headers_are_dropped_and_forwarded_ones_added() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let response = raw_client()
        .get(format!("{gateway}/api/echo"))
        .header("connection", "x-private")
        .header("x-private", "1")
        .header("keep-alive", "timeout=5")
        .header("te", "trailers")
        .header("proxy-authorization", "Basic eA==")
        .header("x-forwarded-for", "10.1.2.3")
        .header("x-end-to-end", "kept")
        .send()
        .await
        .unwrap();
    let echo: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    let headers: Vec<(String, String)> = serde_json::from_value(echo["headers"].clone()).unwrap();
    let get = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    for gone in ["x-private", "keep-alive", "te", "proxy-authorization"] {
        assert_eq!(get(gone), None, "{gone} reached the upstream");
    }
    assert_eq!(get("x-end-to-end"), Some("kept"));
    // The client is no trusted proxy: its own list is replaced.
    assert_eq!(get("x-forwarded-for"), Some("127.0.0.1"));
    assert_eq!(get("x-forwarded-proto"), Some("http"));
    assert_eq!(get("x-forwarded-host"), gateway.strip_prefix("http://"));
    assert_eq!(get("accept-encoding"), Some("identity"));

    let (_, headers, _) = get_headers(&format!("{gateway}/api/hop")).await;
    for gone in ["x-hop-secret", "keep-alive", "proxy-thing"] {
        assert!(!headers.contains_key(gone), "{gone} reached the client");
    }
    assert_eq!(headers["x-kept"], "1");
}

async fn get_headers(url: &str) -> (reqwest::StatusCode, reqwest::header::HeaderMap, String) {
    get(&raw_client(), url).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn a_down_upstream_is_a_502_until_it_is_back() {
    let Some(first) = PythonUpstream::start(None) else {
        return;
    };
    let port = first.addr().port();
    let (gateway, _task) = spawn_gateway(CONFIG, &first.url()).await;
    let url = format!("{gateway}/api/tasks?limit=10&format=toon");
    assert_eq!(get_headers(&url).await.0, 200);
    drop(first);
    let (status, headers, body) = get_headers(&url).await;
    assert_eq!(status, 502);
    assert_eq!(headers["content-type"], "application/json");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], "upstream_unavailable");
    let _back = PythonUpstream::start(Some(port)).expect("the upstream starts again");
    let (status, headers, _) = get_headers(&url).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/toon; charset=utf-8");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn a_slow_upstream_is_a_504_and_the_gateway_keeps_serving() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let started = Instant::now();
    let (status, _, body) = get_headers(&format!("{gateway}/api/slow?seconds=5")).await;
    assert_eq!(status, 504);
    assert!(started.elapsed() < Duration::from_secs(4));
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"]["code"], "upstream_timeout");
    assert_eq!(get_headers(&format!("{gateway}/api/tasks/1")).await.0, 200);
}

/// Sends `request` raw and gives the status line of the answer.
async fn raw_status(gateway: &str, request: &[u8]) -> String {
    let addr = gateway.strip_prefix("http://").unwrap();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(request).await;
    let mut answer = vec![0; 256];
    let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("an answer")
        .unwrap_or(0);
    String::from_utf8_lossy(&answer[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn header_floods_are_refused() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let mut many = String::from("GET /api/tasks/1 HTTP/1.1\r\nhost: x\r\n");
    for i in 0..500 {
        many.push_str(&format!("x-h{i}: {i}\r\n"));
    }
    many.push_str("\r\n");
    assert_eq!(
        raw_status(&gateway, many.as_bytes()).await,
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    let huge = format!(
        "GET /api/tasks/1 HTTP/1.1\r\nhost: x\r\nx-big: {}\r\n\r\n",
        "a".repeat(200_000)
    );
    let status = raw_status(&gateway, huge.as_bytes()).await;
    assert!(status.is_empty() || status.contains("431"), "{status}");
    assert_eq!(get_headers(&format!("{gateway}/api/tasks/1")).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn an_endless_upstream_body_streams_and_a_client_may_leave() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    for _ in 0..3 {
        let response = raw_client()
            .get(format!("{gateway}/api/endless?format=toon"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let mut stream = response.bytes_stream();
        let mut read = 0;
        // Well past `max_body_bytes` (64 KiB): the layer gave up reading
        // and streams the rest as it comes.
        while read < 1 << 20 {
            read += stream.next().await.expect("more").unwrap().len();
        }
        // The client leaves mid-body.
    }
    assert_eq!(get_headers(&format!("{gateway}/api/tasks/1")).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn a_stalled_upstream_body_ends_after_the_idle_timeout() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    // Asked for TOON, the layer reads the body whole: the stalled body is
    // answered 502 in the envelope, never left hanging.
    let started = Instant::now();
    let (status, _, body) = tokio::time::timeout(
        Duration::from_secs(10),
        get(&raw_client(), &format!("{gateway}/api/stall?format=toon")),
    )
    .await
    .expect("the gateway does not wait forever");
    assert_eq!(status, 502, "{body}");
    assert!(body.contains("body_failed"), "{body}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // Nobody asked for a rewrite and the length is unknown: the JSON streams
    // as it comes (NDJSON, long polls), and the stalled body is cut after
    // the idle timeout, its first bytes delivered.
    let started = Instant::now();
    let response = raw_client()
        .get(format!("{gateway}/api/stall"))
        .send()
        .await
        .expect("the head comes at once");
    assert_eq!(response.status(), 200);
    let mut response = response;
    let first = response.chunk().await.expect("the first bytes");
    assert_eq!(first.as_deref(), Some(&b"{\"data\":[{\"id\":1},"[..]));
    let rest = tokio::time::timeout(Duration::from_secs(10), response.chunk())
        .await
        .expect("the gateway does not wait forever");
    assert!(
        rest.is_err(),
        "the stalled body is cut, not ended: {rest:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn a_client_leaving_mid_request_body_harms_nothing() {
    let Some((gateway, _)) = setup().await else {
        return;
    };
    let addr = gateway.strip_prefix("http://").unwrap();
    for _ in 0..5 {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"POST /api/echo HTTP/1.1\r\nhost: x\r\ncontent-length: 1048576\r\n\r\n")
            .await
            .unwrap();
        stream.write_all(&[b'x'; 10_000]).await.unwrap();
        drop(stream);
    }
    let response = raw_client()
        .post(format!("{gateway}/api/echo"))
        .body("done")
        .send()
        .await
        .unwrap();
    let echo: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(echo["length"], 4);
}
