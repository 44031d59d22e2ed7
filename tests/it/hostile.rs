//! The attack suite: requests and handler bodies chosen to crash, stall or
//! balloon a service behind the layer, each sent through a real server on
//! loopback. Every case asserts the answer (status, and the error envelope
//! where the layer refuses) and that the server still serves the next
//! request.

use axum::body::{Body, Bytes};
use axum::response::Response;
use axum::routing::{get as get_route, post};
use axum::{Json, Router};
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;
use tower_terse::compact::{CompactResource, Template};

/// The layer's answer: status, content type and body.
struct Answer {
    status: u16,
    content_type: String,
    body: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|err| {
            panic!(
                "not JSON ({err}): {}",
                String::from_utf8_lossy(&self.body[..self.body.len().min(300)])
            )
        })
    }

    /// The code of the layer's error envelope, after checking its shape.
    fn error_code(&self) -> String {
        let value = self.json();
        let error = &value["error"];
        for key in ["code", "message", "hint"] {
            assert!(error[key].is_string(), "{key} in {value}");
        }
        assert!(
            error["message"].as_str().unwrap().len() < 400,
            "echoes stay short"
        );
        error["code"].as_str().unwrap().to_owned()
    }
}

async fn send(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or("").to_owned())
        .unwrap_or_default();
    let body = response.bytes().await.expect("the whole body arrives");
    Answer {
        status,
        content_type,
        body,
    }
}

async fn get(server: &TestServer, path: &str) -> Answer {
    send(raw_client().get(server.url(path))).await
}

/// The compact envelope of `path`, and its lines, after checking that it is one.
async fn compact_lines(server: &TestServer, path: &str) -> (Value, Vec<Value>) {
    let answer = get(server, &format!("{path}?format=compact")).await;
    assert_eq!(answer.status, 200, "{path}");
    let envelope = answer.json();
    assert_eq!(envelope["format"], "compact", "{envelope:.300}");
    let lines = envelope["lines"].as_array().cloned().unwrap_or_default();
    (envelope, lines)
}

/// What the server answers when `/echo` sends `body` back as its JSON.
async fn echo(server: &TestServer, query: &str, body: &[u8]) -> Answer {
    send(
        raw_client()
            .post(server.url(&format!("/echo?{query}")))
            .body(body.to_vec()),
    )
    .await
}

/// The server still answers an ordinary request after an attack.
async fn assert_alive(server: &TestServer) {
    let answer = get(server, "/ok?format=json").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json(), json!({"id": 1, "name": "ok"}));
}

/// A record whose fields hold whatever a handler (or its database) might.
fn record(id: usize, t: Value, n: Value, s: Value) -> Value {
    json!({"id": id, "t": t, "n": n, "s": s, "tags": [s, n, t], "flag": true})
}

/// Every template filter at once, for records of any shape.
fn every_filter() -> CompactResource {
    let line = "{t|time} {t|date} {t|ago} {n|bytes} {s|short} {s|trunc(3)} {s|upper} \
                {s|lower} {tags|join(/)} {missing|default(-)} {flag|flag(!)}{? [{n}]}";
    CompactResource::new("item", Template::parse(line).expect("template parses"))
}

fn app(layer: TerseLayer) -> Router {
    Router::new()
        .route(
            "/ok",
            get_route(|| async { Json(json!({"id": 1, "name": "ok"})) }),
        )
        .route(
            "/events",
            get_route(|| async {
                Json(json!({"data": [
                    {"id": "e1", "title": "Standup", "room": "4.12"},
                    {"id": "e2", "title": "Review", "room": null},
                ], "meta": {"total": 2}}))
            }),
        )
        // Whatever the client sends comes back as the handler's JSON.
        .route(
            "/echo",
            post(|body: Bytes| async move {
                Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from(body))
                    .unwrap()
            }),
        )
        .route(
            "/extremes",
            get_route(|| async {
                let huge = "ß🦀\u{7}\"".repeat(20_000);
                Json(json!([
                    record(1, json!(i64::MIN), json!(1e308), json!(huge)),
                    record(2, json!(i64::MAX), json!(u64::MAX), json!("")),
                    record(3, json!("9999-12-31T23:59:60Z"), json!(-5), json!(null)),
                    record(4, json!("0000-01-01"), json!("1e309"), json!([])),
                    record(
                        5,
                        json!(-1.5e300),
                        json!(f64::MIN_POSITIVE),
                        json!({"a": 1})
                    ),
                    record(
                        6,
                        json!("2026-02-29T00:00:00Z"),
                        json!(0),
                        json!("\u{202e}x")
                    ),
                ]))
            }),
        )
        .route(
            "/lopsided",
            get_route(|| async {
                // One huge record, then many small ones.
                let mut records = vec![json!({"id": 0, "title": "x".repeat(1 << 20)})];
                records.extend((1..100_000).map(|id| json!({"id": id, "title": "a"})));
                Json(json!({ "data": records }))
            }),
        )
        .layer(
            layer
                .compact_resource("/extremes", every_filter())
                .compact_resource(
                    "/lopsided",
                    CompactResource::new("item", Template::parse("{title}").unwrap()),
                )
                .compact_resource(
                    "/events",
                    CompactResource::new("event", Template::parse("{title}{? @ {room}}").unwrap()),
                ),
        )
}

async fn server() -> TestServer {
    TestServer::spawn(app(TerseLayer::new())).await
}

#[tokio::test]
async fn a_huge_dotted_fields_list_is_refused_not_a_crash() {
    let server = server().await;
    // 20 000 segments, 40 KB: once enough to overflow the stack.
    let deep = vec!["a"; 20_000].join(".");
    for (query, code) in [
        (format!("fields={deep}"), "fields_too_complex"),
        (format!("fields={deep}&format=toon"), "fields_too_complex"),
        (
            format!("fields={}", "a,".repeat(20_000)),
            "fields_too_complex",
        ),
        (
            format!(
                "fields={}",
                (0..100)
                    .map(|i| format!("k{i}"))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "fields_too_complex",
        ),
        ("fields=a.b.c.d.e.f.g.h.i".to_owned(), "fields_too_complex"),
        ("fields=a..b".to_owned(), "invalid_fields"),
    ] {
        let answer = get(&server, &format!("/events?{query}")).await;
        assert_eq!(answer.status, 400, "{}", &query[..query.len().min(60)]);
        assert_eq!(answer.content_type, "application/json");
        assert_eq!(answer.error_code(), code);
        assert_alive(&server).await;
    }
    // Within the limits, a list works as ever.
    let answer = get(&server, "/events?fields=title&format=json").await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json()["data"][0],
        json!({"id": "e1", "title": "Standup"})
    );
}

#[tokio::test]
async fn fields_limits_are_settings() {
    let layer = TerseLayer::new()
        .max_fields(1)
        .max_field_depth(1)
        .max_fields_length(8);
    let server = TestServer::spawn(app(layer)).await;
    assert_eq!(get(&server, "/events?fields=title").await.status, 200);
    for query in ["fields=title,room", "fields=room.x", "fields=abcdefghi"] {
        let answer = get(&server, &format!("/events?{query}")).await;
        assert_eq!(answer.status, 400, "{query}");
        assert_eq!(answer.error_code(), "fields_too_complex");
    }
}

#[tokio::test]
async fn junk_in_the_query_and_headers_is_read_or_ignored() {
    let server = server().await;
    for query in [
        "format=%ZZ&fields=%",
        "fields=%FF%FE%00,title",
        "format=toon&format=csv&format=",
        "fields=title&fields=room&fields=..",
        "%=%&&&=&format",
        "format=%74%6F%6F%6E",
    ] {
        let answer = get(&server, &format!("/events?{query}")).await;
        assert!(
            answer.status == 200 || answer.status == 400,
            "{query}: {}",
            answer.status
        );
        if answer.status == 400 {
            answer.error_code();
        }
        assert_alive(&server).await;
    }
    assert_eq!(
        get(&server, "/events?format=%74%6F%6F%6E")
            .await
            .content_type,
        "text/toon; charset=utf-8"
    );

    // Thousands of media ranges, repeated and malformed preference headers,
    // bytes that are not UTF-8.
    let ranges: String = (0..5_000)
        .map(|i| format!("text/x-{i};q=0.{}, ", i % 10))
        .collect();
    let mut request = raw_client().get(server.url("/events")).header(
        "accept",
        format!("{ranges}text/toon;q=0.9;q=x;;, */*;q=nan"),
    );
    for value in ["toon", "", "csv", "\t toon \t", "json;q=1"] {
        request = request.header("x-prefer-format", value);
    }
    request = request.header(
        HeaderName::from_static("x-prefer-format"),
        HeaderValue::from_bytes(b"to\xffon").unwrap(),
    );
    let answer = send(request).await;
    assert_eq!(answer.status, 200);
    assert_alive(&server).await;

    let answer = send(
        raw_client()
            .get(server.url("/events"))
            .header("accept", HeaderValue::from_bytes(b"text/toon\xff").unwrap()),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_alive(&server).await;
}

#[tokio::test]
async fn extreme_values_in_every_filter_render_or_fall_back() {
    let server = server().await;
    let (envelope, lines) = compact_lines(&server, "/extremes").await;
    assert_eq!(lines.len(), 6);
    assert_eq!(envelope["ids"], json!([1, 2, 3, 4, 5, 6]));
    for line in lines {
        assert!(
            !line.as_str().unwrap().contains('\n'),
            "one line: {line:.200}"
        );
    }
    for format in ["toon", "json"] {
        let answer = get(&server, &format!("/extremes?format={format}")).await;
        assert_eq!(answer.status, 200, "{format}");
    }
    assert_alive(&server).await;
}

#[tokio::test]
async fn one_huge_record_then_many_small_ones() {
    let server = server().await;
    let (envelope, lines) = compact_lines(&server, "/lopsided").await;
    assert_eq!(envelope["summary"], "100000 items");
    assert_eq!(lines.len(), 100_000);
    assert_eq!(lines[99_999], "a");
    assert_alive(&server).await;
}

#[tokio::test]
async fn outputs_past_their_bound_serve_the_json_unchanged() {
    let layer = TerseLayer::new().max_output_bytes(64 * 1024);
    let server = TestServer::spawn(app(layer)).await;

    // 120 levels of arrays, each level with a few scalars: TOON indents every
    // level, so the text is many times the JSON.
    let mut deep = String::from("0");
    for _ in 0..120 {
        deep = format!("[1,2,3,{deep},4,5,6]");
    }
    let body = format!("[{}]", [deep.as_str(); 8].join(","));
    assert!(body.len() < 64 * 1024);
    let expanded = terse_toon::encode_json(&body, &Default::default()).unwrap();
    assert!(
        expanded.len() > 64 * 1024,
        "the body does expand under TOON"
    );
    for query in ["format=toon", "format=compact", "format=toon&fields=x"] {
        let answer = echo(&server, query, body.as_bytes()).await;
        assert_eq!(answer.status, 200, "{query}");
        assert_eq!(answer.content_type, "application/json", "{query}");
        if query != "format=toon&fields=x" {
            assert_eq!(answer.body, body.as_bytes(), "{query}");
        }
        assert_alive(&server).await;
    }

    // The lopsided list's envelope is over 1 MiB: past a 64 KiB bound, JSON.
    let answer = get(&server, "/lopsided?format=compact").await;
    assert_eq!(answer.status, 200);
    assert!(answer.json()["data"].is_array());
}

#[tokio::test]
async fn an_echo_of_client_controlled_json_cannot_hurt_the_layer() {
    let server = server().await;
    let deep_array = format!("{}0{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!("{}1{}", "{\"a\":".repeat(50_000), "}".repeat(50_000));
    let bodies: Vec<Vec<u8>> = vec![
        deep_array.into_bytes(),
        deep_object.into_bytes(),
        b"[1e400, -0, 123456789012345678901234567890]".to_vec(),
        b"{\"a\":\"\xff\xfe\"}".to_vec(),
        b"{\"a\":1,\"a\":2}".to_vec(),
        b"\xef\xbb\xbf{}".to_vec(),
        format!("[{}1]", "1,".repeat(300_000)).into_bytes(),
        b"{\"data\":[{\"id\":\"e1\",\"title\":\"\\ud800\"}]}".to_vec(),
    ];
    for body in bodies {
        for query in ["format=toon", "format=compact", "fields=a", "format=json"] {
            let answer = echo(&server, query, &body).await;
            assert_eq!(answer.status, 200, "{query}");
            if answer.content_type == "application/json" && query != "fields=a" {
                // Not rewritten: every byte as the handler sent it; or, to
                // a request for fewer tokens, those bytes without the
                // blanks between their tokens (numbers as written).
                let minified = std::str::from_utf8(&body)
                    .map(terse_tests::json_formats::minify)
                    .ok();
                let as_sent = answer.body == body;
                let minified = query != "format=json"
                    && minified.is_some_and(|text| answer.body == text.as_bytes());
                assert!(as_sent || minified, "{query}");
            }
        }
        assert_alive(&server).await;
    }
}

#[tokio::test]
async fn large_rewrites_off_the_worker_give_the_same_bytes() {
    let inline = TestServer::spawn(app(TerseLayer::new().offload_threshold(usize::MAX))).await;
    let offloaded = TestServer::spawn(app(TerseLayer::new().offload_threshold(0))).await;
    for path in [
        "/events?format=toon",
        "/events?format=compact",
        "/events?fields=title",
        "/extremes?format=compact",
        "/extremes?format=toon",
        "/ok",
    ] {
        let a = get(&inline, path).await;
        let b = get(&offloaded, path).await;
        assert_eq!(
            (a.status, &a.content_type),
            (b.status, &b.content_type),
            "{path}"
        );
        assert_eq!(a.body, b.body, "{path}");
    }

    // One slot for many large rewrites at once: they queue, and all finish.
    let layer = TerseLayer::new()
        .offload_threshold(0)
        .max_concurrent_rewrites(1);
    let queued = TestServer::spawn(app(layer)).await;
    let expected = get(&inline, "/extremes?format=toon").await.body;
    let answers =
        futures_util::future::join_all((0..16).map(|_| get(&queued, "/extremes?format=toon")))
            .await;
    for answer in answers {
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body, expected);
    }
}

/// agent-api, the example service, under the same attacks.
mod example {
    use super::*;

    struct TempDb(std::path::PathBuf);

    impl Drop for TempDb {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    async fn start() -> (TestServer, TempDb) {
        let dir = std::env::temp_dir().join(format!(
            "agent-api-hostile-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let db = ::agent_api::Db::open(dir.join("agent-api.db")).unwrap();
        (TestServer::spawn(::agent_api::app(db)).await, TempDb(dir))
    }

    #[tokio::test]
    async fn no_query_takes_it_down() {
        let (server, _db) = start().await;
        let deep = vec!["a"; 20_000].join(".");
        for query in [
            format!("fields={deep}"),
            "limit=18446744073709551616".to_owned(),
            "limit=-9223372036854775808&offset=9223372036854775807".to_owned(),
            "offset=9223372036854775807&format=compact".to_owned(),
            "since=-9999-01-01T00:00:00Z&format=compact".to_owned(),
            "since=9999-12-31T23:59:60.99999999999999999999Z&format=compact".to_owned(),
            "since=%ff%fe".to_owned(),
            format!("since={}", "9".repeat(10_000)),
            "format=compact&fields=title".to_owned(),
        ] {
            let answer = get(&server, &format!("/api/v1/events?{query}")).await;
            assert!(answer.status < 500, "{:.60}: {}", query, answer.status);
            if answer.status == 400 {
                let value = answer.json();
                assert!(value["error"]["code"].is_string(), "{value}");
            }
            let next = get(&server, "/api/v1/events?limit=1&format=toon").await;
            assert_eq!(next.status, 200);
        }
    }
}
