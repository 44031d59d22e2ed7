//! Everything the layer may not rewrite arrives exactly as the handler made it.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use axum::{Json, Router, routing::get};
use bytes::Bytes;
use futures_util::stream;
use serde_json::json;
use terse_tests::server::{TestServer, raw_client};
use tokio::sync::Notify;
use tokio::time::timeout;
use tower_terse::TerseLayer;

const LIMIT: usize = 1024;

/// A JSON object of exactly `len` bytes.
fn json_of_len(len: usize) -> String {
    format!(r#"{{"pad":"{}"}}"#, "x".repeat(len - 10))
}

fn reply(status: u16, headers: &[(&str, &str)], body: impl Into<Body>) -> Response {
    let mut builder = Response::builder().status(status);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body.into()).unwrap()
}

/// The body in chunks of `size` bytes, with no length known up front.
fn chunked(text: String, size: usize) -> Body {
    let chunks: Vec<Result<Bytes, Infallible>> = text
        .into_bytes()
        .chunks(size)
        .map(|chunk| Ok(Bytes::copy_from_slice(chunk)))
        .collect();
    Body::from_stream(stream::iter(chunks))
}

const JSON: (&str, &str) = ("content-type", "application/json");

fn routes() -> Router {
    Router::new()
        .route(
            "/not-found",
            get(|| async { reply(404, &[JSON], r#"{"id":1,"error":"no such user"}"#) }),
        )
        .route(
            "/server-error",
            get(|| async { reply(500, &[JSON], r#"[{"id":1}]"#) }),
        )
        .route(
            "/problem",
            get(|| async {
                reply(
                    400,
                    &[("content-type", "application/problem+json")],
                    r#"{"title":"bad"}"#,
                )
            }),
        )
        .route(
            "/not-modified",
            get(|| async { reply(304, &[("etag", "\"v1\"")], Body::empty()) }),
        )
        .route(
            "/no-content",
            get(|| async { reply(204, &[JSON], Body::empty()) }),
        )
        .route(
            "/reset",
            get(|| async { reply(205, &[JSON], Body::empty()) }),
        )
        .route(
            "/partial",
            get(|| async {
                reply(
                    206,
                    &[JSON, ("content-range", "bytes 0-6/20")],
                    r#"[{"id":"#,
                )
            }),
        )
        .route(
            "/text",
            get(|| async { reply(200, &[("content-type", "text/plain")], "id: 1") }),
        )
        .route(
            "/html",
            get(|| async { reply(200, &[("content-type", "text/html")], "<p>[1]</p>") }),
        )
        .route(
            "/ndjson",
            get(|| async {
                reply(
                    200,
                    &[("content-type", "application/x-ndjson")],
                    "{\"id\":1}\n{\"id\":2}\n",
                )
            }),
        )
        .route(
            "/untyped",
            get(|| async { reply(200, &[], r#"[{"id":1}]"#) }),
        )
        .route(
            "/invalid",
            get(|| async { reply(200, &[JSON, ("etag", "\"v2\"")], r#"{"id": 1,"#) }),
        )
        .route(
            "/invalid-utf8",
            get(|| async { reply(200, &[JSON], &b"{\"name\":\"\xff\"}"[..]) }),
        )
        .route(
            "/invalid-chunked",
            get(|| async {
                reply(
                    200,
                    &[JSON],
                    chunked("[{\"id\":1},{\"id\":2},".repeat(10), 7),
                )
            }),
        )
        .route(
            "/over-declared",
            get(|| async { reply(200, &[JSON], json_of_len(LIMIT + 1)) }),
        )
        .route(
            "/over-streamed",
            get(|| async { reply(200, &[JSON], chunked(json_of_len(LIMIT + 1), 100)) }),
        )
        .route(
            "/over-streamed-far",
            get(|| async { reply(200, &[JSON], chunked(json_of_len(LIMIT * 8), 300)) }),
        )
        .route(
            "/at-limit-streamed",
            get(|| async { reply(200, &[JSON], chunked(json_of_len(LIMIT), 100)) }),
        )
}

/// Status, headers (without `date`) and body bytes.
type Snapshot = (u16, Vec<(String, String)>, Bytes);

async fn snapshot(server: &TestServer, path: &str, prefer: Option<&str>) -> Snapshot {
    let mut request = raw_client().get(server.url(path));
    if let Some(format) = prefer {
        request = request.header("x-prefer-format", format);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| *name != "date")
        .map(|(name, value)| {
            (
                name.to_string(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    headers.sort();
    (status, headers, response.bytes().await.expect("body"))
}

/// A 2xx JSON body the layer could not rewrite goes out as it came, saying
/// which format it is and why another was not served
/// (`X-Response-Format: json`, with `; fallback=...` when another format
/// was asked), and varying on the headers
/// that ask for one: those two headers taken off, the answer is the bare
/// one. Errors get neither.
fn without_format_headers(got: Snapshot, query: &str) -> Snapshot {
    let (status, mut headers, body) = got;
    let format = headers
        .iter()
        .position(|(name, _)| name == "x-response-format")
        .map(|at| headers.remove(at).1);
    if let Some(format) = format {
        assert!((200..300).contains(&status), "{query}: {status}");
        assert!(
            format == "json" || format.starts_with("json; fallback="),
            "{query}: {format}"
        );
        let vary = headers.iter().position(|(name, _)| name == "vary");
        let vary = vary.map(|at| headers.remove(at).1);
        assert_eq!(vary.as_deref(), Some("Accept, X-Prefer-Format"), "{query}");
    }
    (status, headers, body)
}

async fn servers() -> (TestServer, TestServer) {
    let bare = TestServer::spawn(routes()).await;
    let layered = TestServer::spawn(routes().layer(TerseLayer::new().max_body_bytes(LIMIT))).await;
    (bare, layered)
}

/// Every way of asking for a rewrite, against `path`: the layered server must
/// answer exactly as the bare one.
async fn assert_untouched(bare: &TestServer, layered: &TestServer, path: &str) {
    let expected = snapshot(bare, path, None).await;
    for query in [
        "format=toon",
        "format=json",
        "format=compact",
        "fields=id",
        "format=toon&fields=id",
    ] {
        let with_query = if path.contains('?') {
            format!("{path}&{query}")
        } else {
            format!("{path}?{query}")
        };
        let got = snapshot(layered, &with_query, None).await;
        assert_eq!(
            without_format_headers(got, &with_query),
            expected,
            "{with_query}"
        );
    }
    assert_eq!(
        without_format_headers(snapshot(layered, path, Some("toon")).await, path),
        expected,
        "{path} with header"
    );
}

#[tokio::test]
async fn error_statuses_pass_through() {
    let (bare, layered) = servers().await;
    for path in ["/not-found", "/server-error", "/problem"] {
        assert_untouched(&bare, &layered, path).await;
    }
}

#[tokio::test]
async fn not_modified_passes_through_varying_on_the_format_headers() {
    let (bare, layered) = servers().await;
    let (status, mut headers, body) = snapshot(&bare, "/not-modified", None).await;
    // A 304 stands for the representation the request chose, so it varies
    // on the headers that choose it, as the 200 it revalidates does.
    headers.push(("vary".to_owned(), "Accept, X-Prefer-Format".to_owned()));
    headers.sort();
    let expected = (status, headers, body);
    assert_eq!(
        snapshot(&layered, "/not-modified", None).await,
        expected,
        "/not-modified"
    );
    // What was not modified is the TOON the client holds: its tag is the
    // TOON's, as on the 200 it revalidates.
    let (status, mut headers, body) = expected;
    for (name, value) in &mut headers {
        if name == "etag" {
            *value = "W/\"v1-toon\"".to_owned();
        }
    }
    let toon = (status, headers, body);
    assert_eq!(
        snapshot(&layered, "/not-modified?format=toon", None).await,
        toon
    );
    assert_eq!(
        snapshot(&layered, "/not-modified", Some("toon")).await,
        toon
    );
}

#[tokio::test]
async fn no_content_reset_and_partial_content_pass_through() {
    let (bare, layered) = servers().await;
    for path in ["/no-content", "/reset", "/partial"] {
        assert_untouched(&bare, &layered, path).await;
    }
}

#[tokio::test]
async fn other_content_types_pass_through() {
    let (bare, layered) = servers().await;
    for path in ["/text", "/html", "/ndjson", "/untyped"] {
        assert_untouched(&bare, &layered, path).await;
    }
}

#[tokio::test]
async fn invalid_json_passes_through_intact() {
    let (bare, layered) = servers().await;
    for path in ["/invalid", "/invalid-utf8", "/invalid-chunked"] {
        assert_untouched(&bare, &layered, path).await;
    }
    let (_, _, body) = snapshot(&layered, "/invalid?format=toon", None).await;
    assert_eq!(&body[..], br#"{"id": 1,"#);
}

#[tokio::test]
async fn bodies_over_the_limit_pass_through_intact() {
    let (bare, layered) = servers().await;
    for path in ["/over-declared", "/over-streamed", "/over-streamed-far"] {
        assert_untouched(&bare, &layered, path).await;
    }
    let (_, headers, body) = snapshot(&layered, "/over-streamed?format=toon", None).await;
    assert_eq!(body, json_of_len(LIMIT + 1));
    assert!(
        headers
            .iter()
            .any(|(name, value)| name == "transfer-encoding" && value == "chunked")
    );
    let (_, _, body) = snapshot(&layered, "/over-declared?format=toon", None).await;
    assert_eq!(body, json_of_len(LIMIT + 1));
}

#[tokio::test]
async fn a_body_exactly_at_the_limit_is_rewritten() {
    let (_, layered) = servers().await;
    let (status, headers, body) = snapshot(&layered, "/at-limit-streamed?format=toon", None).await;
    assert_eq!(status, 200);
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("content-type"), Some("text/toon; charset=utf-8"));
    assert_eq!(
        header("content-length"),
        Some(body.len().to_string().as_str())
    );
    let expected = terse_toon::encode_json(&json_of_len(LIMIT), &Default::default()).unwrap();
    assert_eq!(body, expected);
}

/// A stream whose second part waits for the test's signal.
fn gated(first: &'static str, second: &'static str, gate: Arc<Notify>) -> Body {
    let parts = stream::unfold(0, move |step| {
        let gate = gate.clone();
        async move {
            match step {
                0 => Some((Ok::<_, Infallible>(Bytes::from(first)), 1)),
                1 => {
                    gate.notified().await;
                    Some((Ok(Bytes::from(second)), 2))
                }
                _ => None,
            }
        }
    });
    Body::from_stream(parts)
}

/// Reads one chunk, failing instead of hanging if it never comes.
async fn next_chunk(response: &mut reqwest::Response) -> Bytes {
    timeout(Duration::from_secs(5), response.chunk())
        .await
        .expect("a chunk should arrive while the stream is still open")
        .expect("read")
        .expect("a chunk, not the end")
}

#[tokio::test]
async fn server_sent_events_reach_the_client_before_the_stream_ends() {
    let gate = Arc::new(Notify::new());
    let handler_gate = gate.clone();
    let router = Router::new()
        .route(
            "/events",
            get(move || {
                let gate = handler_gate.clone();
                async move {
                    reply(
                        200,
                        &[
                            ("content-type", "text/event-stream"),
                            ("cache-control", "no-cache"),
                        ],
                        gated("data: {\"id\":1}\n\n", "data: {\"id\":2}\n\n", gate),
                    )
                }
            }),
        )
        .layer(TerseLayer::new());
    let server = TestServer::spawn(router).await;
    let mut response = raw_client()
        .get(server.url("/events?format=toon"))
        .header("accept", "text/toon")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert!(response.headers().get("x-token-count").is_none());
    assert_eq!(next_chunk(&mut response).await, "data: {\"id\":1}\n\n");
    gate.notify_one();
    assert_eq!(next_chunk(&mut response).await, "data: {\"id\":2}\n\n");
    assert!(response.chunk().await.unwrap().is_none());
}

#[tokio::test]
async fn a_json_stream_found_over_the_limit_keeps_streaming() {
    static FIRST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let first: &'static str = FIRST.get_or_init(|| format!("[\"{}\"", "y".repeat(LIMIT)));
    let gate = Arc::new(Notify::new());
    let handler_gate = gate.clone();
    let router = Router::new()
        .route(
            "/feed",
            get(move || {
                let gate = handler_gate.clone();
                async move { reply(200, &[JSON], gated(first, ",\"z\"]", gate)) }
            }),
        )
        .layer(TerseLayer::new().max_body_bytes(LIMIT));
    let server = TestServer::spawn(router).await;
    let mut response = raw_client()
        .get(server.url("/feed?format=toon"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    assert!(response.headers().get("x-token-count").is_none());
    assert_eq!(next_chunk(&mut response).await, first);
    gate.notify_one();
    assert_eq!(next_chunk(&mut response).await, ",\"z\"]");
    assert!(response.chunk().await.unwrap().is_none());
}

#[tokio::test]
async fn a_response_marked_passthrough_is_never_touched() {
    let body = || json!({"data": [{"id": 1, "title": "signed"}, {"id": 2, "title": "bytes"}]});
    let routes = move |layer: Option<TerseLayer>| {
        let router = Router::new().route(
            "/signed",
            get(move || async move { (tower_terse::Passthrough, Json(body())) }),
        );
        match layer {
            Some(layer) => router.layer(layer),
            None => router,
        }
    };
    let bare = TestServer::spawn(routes(None)).await;
    let layered = TestServer::spawn(routes(Some(TerseLayer::new()))).await;
    let expected = snapshot(&bare, "/signed", None).await;
    for path in [
        "/signed",
        "/signed?format=toon",
        "/signed?format=compact",
        "/signed?fields=title",
    ] {
        assert_eq!(snapshot(&layered, path, None).await, expected, "{path}");
    }
    assert_eq!(snapshot(&layered, "/signed", Some("toon")).await, expected);
}
