//! The gateway's attack suite for request and response headers: spoofed
//! client addresses (a WSGI upstream reads `X_Forwarded_For` as
//! `X-Forwarded-For`), a 304 that would relabel a cached TOON body as JSON,
//! and malformed `Host` headers and HTTP/2 `:authority` that would be
//! echoed into rewritten URLs. Raw bytes over TCP where a client library
//! would refuse to send them.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};
use terse_tests::python::{PythonUpstream, spawn_gateway};
use terse_tests::server::{TestServer, body_of, raw_client, status_of};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower_terse::TerseLayer;

const CONFIG: &str = r#"
[gateway]
header_read_timeout = "2s"
response_timeout = "5s"
"#;

/// The address a test sends from, and so the only one the upstream may see.
const LOOPBACK: &str = "127.0.0.1";

/// The spoofed client address.
const SPOOFED: &str = "10.6.6.6";

/// An upstream that counts the requests it gets: `/echo` answers the
/// headers it was sent, `/moved` redirects to itself (its `Location` and
/// `Link` built from the `Host` it got, which is its own address).
async fn upstream(seen: Arc<AtomicUsize>) -> TestServer {
    let echoed = seen.clone();
    let router = Router::new()
        .route(
            "/echo",
            get(move |headers: HeaderMap| {
                echoed.fetch_add(1, Ordering::SeqCst);
                async move {
                    let headers: serde_json::Map<String, Value> = headers
                        .iter()
                        .map(|(k, v)| (k.to_string(), json!(v.to_str().unwrap_or(""))))
                        .collect();
                    axum::Json(json!({"headers": headers}))
                }
            }),
        )
        .route(
            "/moved",
            get(move |headers: HeaderMap| {
                seen.fetch_add(1, Ordering::SeqCst);
                async move {
                    let own = headers["host"].to_str().unwrap_or("").to_owned();
                    Response::builder()
                        .status(302)
                        .header("location", format!("http://{own}/echo"))
                        .header("link", format!("<http://{own}/echo?page=2>; rel=\"next\""))
                        .body(Body::empty())
                        .expect("response")
                }
            }),
        );
    TestServer::spawn(router).await
}

/// One raw exchange: `request` as written, the whole answer until the
/// gateway closes (the request should say `Connection: close`).
async fn raw(addr: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the gateway answers and closes")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

/// The value of header `name` in a raw answer's head.
fn header_of<'a>(answer: &'a str, name: &str) -> Option<&'a str> {
    let head = answer.split_once("\r\n\r\n").map_or(answer, |(h, _)| h);
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

fn authority(url: &str) -> &str {
    url.strip_prefix("http://").expect("http URL")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_hosts_are_refused_before_anything_is_forwarded() {
    let seen = Arc::new(AtomicUsize::new(0));
    let up = upstream(seen.clone()).await;
    let (gateway, _task) = spawn_gateway(CONFIG, &up.url("")).await;
    let addr = authority(&gateway);
    let requests = [
        "GET /moved HTTP/1.1\r\nHost: a\"b\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: evil.example/x\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: user@evil.example\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: a.example:8o\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: :80\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n",
        "GET /moved HTTP/1.1\r\nConnection: close\r\n\r\n",
        "GET http://user@a.example/moved HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n",
    ];
    for request in requests {
        let answer = raw(addr, request.as_bytes()).await;
        assert_eq!(status_of(&answer), 400, "{request:?}: {answer}");
        let error = &body_of(&answer)["error"];
        assert_eq!(error["code"], "bad_request_host", "{request:?}: {answer}");
        assert!(error["message"].is_string() && error["hint"].is_string());
        assert_eq!(header_of(&answer, "location"), None, "{answer}");
    }
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "nothing reached the upstream"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn valid_hosts_are_forwarded_and_used_in_rewritten_urls() {
    let seen = Arc::new(AtomicUsize::new(0));
    let up = upstream(seen.clone()).await;
    let (gateway, _task) = spawn_gateway(CONFIG, &up.url("")).await;
    let addr = authority(&gateway);
    for host in ["localhost:8080", "[::1]:9", "example.com", "127.0.0.1"] {
        let request = format!("GET /moved HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let answer = raw(addr, request.as_bytes()).await;
        assert_eq!(status_of(&answer), 302, "{host}: {answer}");
        assert_eq!(
            header_of(&answer, "location"),
            Some(format!("http://{host}/echo").as_str()),
            "{answer}"
        );
        assert_eq!(
            header_of(&answer, "link"),
            Some(format!("<http://{host}/echo?page=2>; rel=\"next\"").as_str()),
            "{answer}"
        );
        let request = format!("GET /echo HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let answer = raw(addr, request.as_bytes()).await;
        assert_eq!(status_of(&answer), 200, "{host}: {answer}");
        assert_eq!(body_of(&answer)["headers"]["x-forwarded-host"], host);
    }
    // HTTP/1.0 may leave `Host` out: nothing to rewrite URLs to.
    let answer = raw(addr, b"GET /moved HTTP/1.0\r\n\r\n").await;
    assert_eq!(status_of(&answer), 302, "{answer}");
    assert_eq!(
        header_of(&answer, "location"),
        Some(up.url("/echo").as_str()),
        "{answer}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_origin_is_used_instead_of_the_host() {
    let up = upstream(Arc::default()).await;
    let config = format!("{CONFIG}public_origin = \"https://api.example.com\"\n");
    let (gateway, _task) = spawn_gateway(&config, &up.url("")).await;
    let response = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
        .get(format!("{gateway}/moved"))
        .header("host", "internal.example:3000")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 302);
    assert_eq!(
        response.headers()["location"],
        "https://api.example.com/echo"
    );
    assert_eq!(
        response.headers()["link"],
        "<https://api.example.com/echo?page=2>; rel=\"next\""
    );
}

/// One HTTP/2 frame: a 9-byte head and `payload`.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("small frame");
    let mut out = len.to_be_bytes()[1..].to_vec();
    out.extend_from_slice(&[kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// An HPACK field as a literal without indexing, name and value as they
/// are (no Huffman): nothing a client library would clean up.
fn literal(name: &str, value: &str) -> Vec<u8> {
    let mut out = vec![0];
    for text in [name, value] {
        out.push(u8::try_from(text.len()).expect("under 127 bytes"));
        out.extend_from_slice(text.as_bytes());
    }
    out
}

/// The status and body of a GET of `/echo` sent over h2c with these
/// `fields` (after the pseudo-fields `:method`, `:scheme`, `:path`);
/// `None` when the stream was reset instead.
async fn h2_get(addr: &str, fields: &[(&str, &str)]) -> Option<(u16, Value)> {
    let mut block = Vec::new();
    for (name, value) in [(":method", "GET"), (":scheme", "http"), (":path", "/echo")]
        .iter()
        .chain(fields)
    {
        block.extend(literal(name, value));
    }
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let mut request = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    request.extend(frame(4, 0, 0, &[]));
    // HEADERS with END_STREAM and END_HEADERS.
    request.extend(frame(1, 0x5, 1, &block));
    stream.write_all(&request).await.expect("write");
    let (mut status, mut body) = (None, Vec::new());
    let read = async {
        loop {
            let mut head = [0u8; 9];
            stream.read_exact(&mut head).await.ok()?;
            let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let (kind, flags) = (head[3], head[4]);
            let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            let mut payload = vec![0u8; len];
            stream.read_exact(&mut payload).await.ok()?;
            match (kind, id) {
                // SETTINGS from the server: acknowledged.
                (4, 0) if flags & 1 == 0 => {
                    stream.write_all(&frame(4, 1, 0, &[])).await.ok()?;
                }
                (1, 1) => status = Some(hpack_status(&payload)),
                (0, 1) => body.extend_from_slice(&payload),
                (3, 1) | (7, 0) => return None,
                _ => {}
            }
            if id == 1 && flags & 1 == 1 {
                return Some(());
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the gateway answers")?;
    let body = serde_json::from_slice(&body).expect("a JSON body");
    Some((status.expect("a HEADERS frame"), body))
}

/// The `:status` an HPACK block starts with: an indexed field of the
/// static table (`:status 200` is 8 ... `:status 500` is 14), or a literal
/// with such a name and a plain value.
fn hpack_status(block: &[u8]) -> u16 {
    const STATIC: [u16; 7] = [200, 204, 206, 304, 400, 404, 500];
    let first = block[0];
    if first & 0x80 != 0 {
        return STATIC[usize::from(first & 0x7f) - 8];
    }
    // A literal with an indexed name: the value is 3 ASCII digits.
    let len = usize::from(block[1] & 0x7f);
    assert!(
        block[1] & 0x80 == 0 && len == 3,
        "a Huffman status: {block:?}"
    );
    std::str::from_utf8(&block[2..5])
        .expect("digits")
        .parse()
        .expect("a status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_authority_is_validated_as_host_is() {
    let seen = Arc::new(AtomicUsize::new(0));
    let up = upstream(seen.clone()).await;
    let (gateway, _task) = spawn_gateway(CONFIG, &up.url("")).await;
    let addr = authority(&gateway);
    let (status, body) = h2_get(addr, &[(":authority", "localhost:8080")])
        .await
        .expect("an answer");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["headers"]["x-forwarded-host"], "localhost:8080");
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    for fields in [
        &[(":authority", "user@evil.example")][..],
        &[(":authority", "a.example"), ("host", "b.example")][..],
        &[("host", "a\"b")][..],
    ] {
        let (status, body) = h2_get(addr, fields).await.expect("an answer");
        assert_eq!(status, 400, "{fields:?}: {body}");
        assert_eq!(body["error"]["code"], "bad_request_host", "{fields:?}");
    }
    // An authority HTTP/2 itself cannot parse may be a reset stream
    // rather than a 400: never forwarded either way.
    if let Some((status, body)) = h2_get(addr, &[(":authority", "a\"b")]).await {
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["error"]["code"], "bad_request_host");
    }
    assert_eq!(seen.load(Ordering::SeqCst), 1, "nothing else reached it");
}

/// A handler that knows only its own tag and sends `Content-Type` and
/// `Content-Length` on its 304, as some servers do.
async fn cached(headers: HeaderMap) -> Response {
    let list = json!({"data": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}).to_string();
    let matched = headers
        .get("if-none-match")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == "\"v1\""));
    Response::builder()
        .status(if matched { 304 } else { 200 })
        .header("content-type", "application/json")
        .header("content-length", list.len())
        .header("etag", "\"v1\"")
        .body(if matched {
            Body::empty()
        } else {
            Body::from(list)
        })
        .expect("response")
}

/// `path` as TOON, then again with the TOON's tag: the 304 describes the
/// TOON representation, never the handler's JSON.
async fn assert_304s_describe_their_representation(base: &str, path: &str) {
    let client = raw_client();
    let toon = client
        .get(format!("{base}{path}?format=toon"))
        .send()
        .await
        .expect("request");
    assert_eq!(toon.status(), 200);
    assert_eq!(toon.headers()["content-type"], "text/toon; charset=utf-8");
    let tag = toon.headers()["etag"].clone();
    assert_eq!(tag, "W/\"v1-toon\"");
    let again = client
        .get(format!("{base}{path}?format=toon"))
        .header("if-none-match", &tag)
        .send()
        .await
        .expect("request");
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"], tag);
    assert_eq!(
        again
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap()),
        Some("text/toon; charset=utf-8"),
        "{:?}",
        again.headers()
    );
    assert!(
        !again.headers().contains_key("content-length"),
        "the JSON's length: {:?}",
        again.headers()
    );
    // The JSON's own 304 keeps the JSON's own headers.
    let json = client
        .get(format!("{base}{path}"))
        .header("if-none-match", "\"v1\"")
        .send()
        .await
        .expect("request");
    assert_eq!(json.status(), 304);
    assert_eq!(json.headers()["etag"], "\"v1\"");
    assert_eq!(json.headers()["content-type"], "application/json");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_layer_relabels_the_handlers_304() {
    let router = Router::new()
        .route("/cached", get(cached))
        .layer(TerseLayer::new());
    let server = TestServer::spawn(router).await;
    assert_304s_describe_their_representation(&server.url(""), "/cached").await;
}

/// Python's own WSGI server (`tests/frameworks/wsgi_echo_app.py`): needs
/// only `python3`, no package.
fn wsgi_upstream() -> Option<PythonUpstream> {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .map_err(|err| format!("cannot run python3 ({err}); install Python 3"));
    terse_tests::prerequisite::require(found)?;
    Some(PythonUpstream::start_framework(
        Path::new("python3"),
        "wsgi_echo_app.py",
        &[],
    ))
}

/// What the WSGI upstream's `/echo` saw: its `HTTP_*` and `REMOTE_ADDR`.
async fn environ(gateway: &str, headers: &[(&str, &str)]) -> serde_json::Map<String, Value> {
    let mut request = raw_client().get(format!("{gateway}/echo"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = request
        .send()
        .await
        .expect("request")
        .bytes()
        .await
        .expect("body");
    let answer: Value = serde_json::from_slice(&body).expect("JSON");
    answer["environ"].as_object().expect("environ").clone()
}

/// Every header a framework may read a client's address from, forged.
const FORGED: [&str; 14] = [
    "X_Forwarded_For",
    "X-Real_IP",
    "X_Real_IP",
    "True-Client-IP",
    "X-Client-IP",
    "X-Cluster-Client-IP",
    "X-Forwarded",
    "Client-IP",
    "Forwarded-For",
    "X-Forwarded-For",
    "X-Real-IP",
    "Forwarded",
    "True_Client_IP",
    "Client_IP",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3; run with --include-ignored (.ci/run does)"]
async fn no_forged_client_address_reaches_a_wsgi_upstream() {
    let Some(up) = wsgi_upstream() else {
        return;
    };
    let (gateway, _task) = spawn_gateway(CONFIG, &up.url()).await;
    let forged: Vec<(&str, &str)> = FORGED.iter().map(|name| (*name, SPOOFED)).collect();
    let seen = environ(&gateway, &forged).await;
    let spoofed: Vec<_> = seen
        .iter()
        .filter(|(_, v)| v.as_str().is_some_and(|v| v.contains(SPOOFED)))
        .collect();
    assert!(spoofed.is_empty(), "{spoofed:?} in {seen:?}");
    assert_eq!(seen["HTTP_X_FORWARDED_FOR"], LOOPBACK, "{seen:?}");
    assert_eq!(seen["HTTP_X_REAL_IP"], LOOPBACK, "{seen:?}");
    for name in [
        "HTTP_TRUE_CLIENT_IP",
        "HTTP_X_CLIENT_IP",
        "HTTP_X_CLUSTER_CLIENT_IP",
        "HTTP_X_FORWARDED",
        "HTTP_CLIENT_IP",
        "HTTP_FORWARDED_FOR",
        "HTTP_FORWARDED",
    ] {
        assert!(!seen.contains_key(name), "{name} in {seen:?}");
    }
    // Other headers pass, underscores or not in their values.
    let seen = environ(&gateway, &[("X-Request-Id", "a_b")]).await;
    assert_eq!(seen["HTTP_X_REQUEST_ID"], "a_b");

    // A trusted proxy's client-address headers are its own to set, but an
    // underscore spelling never joins its `X-Forwarded-For`.
    let trusted = format!("{CONFIG}trusted_proxies = [\"127.0.0.0/8\"]\n");
    let (gateway, _task) = spawn_gateway(&trusted, &up.url()).await;
    let seen = environ(
        &gateway,
        &[
            ("X_Forwarded_For", SPOOFED),
            ("X-Forwarded-For", "203.0.113.9"),
            ("True-Client-IP", "203.0.113.9"),
        ],
    )
    .await;
    assert_eq!(
        seen["HTTP_X_FORWARDED_FOR"], "203.0.113.9, 127.0.0.1",
        "{seen:?}"
    );
    assert_eq!(seen["HTTP_TRUE_CLIENT_IP"], "203.0.113.9", "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3; run with --include-ignored (.ci/run does)"]
async fn a_wsgi_upstreams_304_never_relabels_toon_as_json() {
    let Some(up) = wsgi_upstream() else {
        return;
    };
    let (gateway, _task) = spawn_gateway(CONFIG, &up.url()).await;
    assert_304s_describe_their_representation(&gateway, "/cached").await;
}
