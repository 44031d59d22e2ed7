//! `X-Response-Format` on every path a successful JSON answer takes through
//! the layer (each format, each fallback reason), `Vary` and `X-Token-Count`
//! on deeply nested JSON, `?fields=` keeping a resource's own id, a resource
//! pattern with a trailing slash. All through a real server on loopback.
//! (The warning a compression layer inside the layer earns is once per
//! process: it is tested in `once/`.)

use std::convert::Infallible;

use axum::body::Body;
use axum::response::Response;
use axum::{Json, Router, routing::get};
use bytes::Bytes;
use futures_util::stream;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use terse_tests::python::spawn_gateway;
use terse_tests::server::{TestServer, header, raw_client};
use tower_terse::settings::MemoryBudget;
use tower_terse::{CompactLine, TerseLayer};

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "event", line = "{title} in {room}")]
struct Meeting {
    id: String,
    title: String,
    room: String,
}

/// A resource whose id is not `id` and whose list has a key of its own.
#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "user", line = "{name} <{email}>", list = "users")]
struct User {
    #[compact(id)]
    login: String,
    name: String,
    email: String,
}

fn events() -> Value {
    let rows: Vec<Value> = (1..=12)
        .map(|n| json!({"id": format!("evt_{n:02}"), "title": format!("Planning {n}"), "room": "Blue"}))
        .collect();
    json!({"data": rows, "meta": {"total": 12}})
}

fn users() -> Value {
    json!({"users": [
        {"login": "ada", "name": "Ada Lovelace", "email": "ada@example.com"},
        {"login": "linus", "name": "Linus Torvalds", "email": "linus@example.com"},
    ]})
}

fn json_reply(headers: &[(&str, &str)], body: Body) -> Response {
    let mut builder = Response::builder().header("content-type", "application/json");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body).unwrap()
}

/// `levels` nested arrays around one number.
fn deep(levels: usize) -> String {
    format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
}

fn chunked(text: String) -> Body {
    let chunks: Vec<Result<Bytes, Infallible>> = text
        .as_bytes()
        .chunks(64)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    Body::from_stream(stream::iter(chunks))
}

fn routes() -> Router {
    Router::new()
        .route("/events", get(|| async { Json(events()) }))
        .route(
            "/events/{id}",
            get(|| async { Json(json!({"id": "evt_01", "title": "Planning", "room": "Blue"})) }),
        )
        // Nested lists of a few numbers: TOON would cost more than the JSON.
        .route("/one", get(|| async { Json(json!([[[[1, 2]]], [[[3]]]])) }))
        .route(
            "/chunked",
            get(|| async { json_reply(&[], chunked(events().to_string())) }),
        )
        .route(
            "/fixed",
            get(|| async {
                json_reply(
                    &[("cache-control", "no-transform")],
                    Body::from(events().to_string()),
                )
            }),
        )
        .route(
            "/broken",
            get(|| async { json_reply(&[], Body::from("{\"data\": [1, 2")) }),
        )
        .route(
            "/missing",
            get(|| async {
                Response::builder()
                    .status(404)
                    .header("content-type", "application/json")
                    .body(Body::from("{\"error\":\"no\"}"))
                    .unwrap()
            }),
        )
        .route("/users", get(|| async { Json(users()) }))
        .route("/api/tickets", get(|| async { Json(events()) }))
}

fn layer() -> TerseLayer {
    TerseLayer::new()
        .resource::<Meeting>("/events")
        .resource::<Meeting>("/events/{id}")
        .resource::<Meeting>("/api/tickets/")
        .resource::<User>("/users")
}

async fn fetch(server: &TestServer, path: &str) -> reqwest::Response {
    server.get(path, &[]).await
}

async fn body_json(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

/// Asserts `X-Response-Format` of `path` and, where the header is there,
/// the `Vary` that goes with it.
async fn expect(server: &TestServer, path: &str, format: Option<&str>) -> reqwest::Response {
    let response = fetch(server, path).await;
    assert_eq!(
        header(&response, "x-response-format").as_deref(),
        format,
        "{path}"
    );
    if format.is_some() {
        assert_eq!(
            header(&response, "vary").as_deref(),
            Some("Accept, X-Prefer-Format"),
            "{path}"
        );
    }
    response
}

#[tokio::test]
async fn every_answer_says_which_format_it_is_and_why() {
    let server = TestServer::spawn(routes().layer(layer())).await;
    let plain = expect(&server, "/events", Some("json")).await;
    assert!(header(&plain, "x-token-count").is_some());
    expect(&server, "/events?format=json", Some("json")).await;
    let toon = expect(&server, "/events?format=toon", Some("toon")).await;
    assert_eq!(
        header(&toon, "content-type").as_deref(),
        Some("text/toon; charset=utf-8")
    );
    let compact = expect(&server, "/events?format=compact", Some("compact")).await;
    assert_eq!(
        body_json(compact).await["format"],
        "compact",
        "a compact envelope is application/json too: the header tells them apart"
    );
    expect(&server, "/events?fields=title", Some("json")).await;
    expect(&server, "/chunked", Some("json")).await;
    expect(&server, "/chunked?format=toon", Some("toon")).await;
    expect(
        &server,
        "/one?format=toon",
        Some("json; fallback=not-cheaper"),
    )
    .await;
    expect(
        &server,
        "/one?format=compact",
        Some("json; fallback=no-template"),
    )
    .await;
    expect(
        &server,
        "/events/evt_01?format=compact",
        Some("json; fallback=not-a-list"),
    )
    .await;
    expect(
        &server,
        "/fixed?format=toon",
        Some("json; fallback=no-transform"),
    )
    .await;
    // A fallback is named only where another format was asked for.
    expect(&server, "/fixed", Some("json")).await;
    let broken = expect(
        &server,
        "/broken?format=toon",
        Some("json; fallback=not-json"),
    )
    .await;
    assert_eq!(broken.text().await.unwrap(), "{\"data\": [1, 2");
    // Errors and formats the handler owns are not the layer's to describe.
    expect(&server, "/missing?format=toon", None).await;
    expect(&server, "/events?format=csv", None).await;
    // The same reason goes in the response's extensions (the `Outcome`'s
    // `response_format`), where the gateway's request log reads it.
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_says_which_format_it_served() {
    let upstream = TestServer::spawn(routes()).await;
    let (gateway, _task) = spawn_gateway("", &upstream.url("")).await;
    let through = |path: &str| raw_client().get(format!("{gateway}{path}")).send();
    for (path, format) in [
        ("/events", Some("json")),
        ("/events?format=toon", Some("toon")),
        ("/one?format=toon", Some("json; fallback=not-cheaper")),
        ("/one?format=compact", Some("json; fallback=no-template")),
        ("/fixed?format=toon", Some("json; fallback=no-transform")),
        ("/missing?format=toon", None),
    ] {
        let response = through(path).await.unwrap();
        assert_eq!(
            header(&response, "x-response-format").as_deref(),
            format,
            "{path}"
        );
    }
}

#[tokio::test]
async fn limits_and_the_budget_are_named_as_fallbacks() {
    let small_output = TestServer::spawn(routes().layer(layer().max_output_bytes(64))).await;
    expect(
        &small_output,
        "/events?format=toon",
        Some("json; fallback=too-large"),
    )
    .await;
    expect(
        &small_output,
        "/events?format=compact",
        Some("json; fallback=too-large"),
    )
    .await;

    let small_body = TestServer::spawn(routes().layer(layer().max_body_bytes(64))).await;
    // A declared length past the limit, and a chunked body that passes it
    // while it is read: both go out as they came.
    let declared = expect(
        &small_body,
        "/events?format=toon",
        Some("json; fallback=body-too-large"),
    )
    .await;
    assert_eq!(declared.text().await.unwrap(), events().to_string());
    let read = expect(
        &small_body,
        "/chunked?format=toon",
        Some("json; fallback=body-too-large"),
    )
    .await;
    assert_eq!(read.text().await.unwrap(), events().to_string());

    let tight =
        TestServer::spawn(routes().layer(layer().memory_budget(MemoryBudget::new(16)))).await;
    let refused = expect(&tight, "/events?format=toon", Some("json; fallback=budget")).await;
    assert_eq!(refused.text().await.unwrap(), events().to_string());
}

#[tokio::test]
async fn deep_json_keeps_its_headers() {
    let router = Router::new()
        .route(
            "/deep/{levels}",
            get(
                |axum::extract::Path(levels): axum::extract::Path<usize>| async move {
                    json_reply(&[], Body::from(deep(levels)))
                },
            ),
        )
        .layer(TerseLayer::new());
    let server = TestServer::spawn(router).await;
    for levels in [127, 128, 129, 1_000, 100_000] {
        for query in [
            "",
            "?format=json",
            "?format=toon",
            "?format=compact",
            "?fields=a",
        ] {
            let path = format!("/deep/{levels}{query}");
            let response = fetch(&server, &path).await;
            assert_eq!(response.status(), 200, "{path}");
            assert_eq!(
                header(&response, "vary").as_deref(),
                Some("Accept, X-Prefer-Format"),
                "{path}"
            );
            assert!(
                header(&response, "x-token-count").is_some(),
                "{path}: {:?}",
                response.headers()
            );
            let format = header(&response, "x-response-format").unwrap_or_default();
            assert!(
                format.starts_with("json") || format == "toon",
                "{path}: {format}"
            );
            assert!(!format.contains("not-json"), "{path}: {format}");
        }
    }
}

#[tokio::test]
async fn fields_keep_the_resources_own_id_and_list_key() {
    let server = TestServer::spawn(routes().layer(layer())).await;
    let response = expect(&server, "/users?fields=email", Some("json")).await;
    assert_eq!(
        body_json(response).await,
        json!({"users": [
            {"login": "ada", "email": "ada@example.com"},
            {"login": "linus", "email": "linus@example.com"},
        ]})
    );
    // The derive's list key reaches compact lines.
    let compact = expect(&server, "/users?format=compact", Some("compact")).await;
    let envelope = body_json(compact).await;
    assert_eq!(envelope["ids"], json!(["ada", "linus"]));
    assert_eq!(
        envelope["lines"],
        json!([
            "Ada Lovelace <ada@example.com>",
            "Linus Torvalds <linus@example.com>"
        ])
    );
}

#[tokio::test]
async fn a_resource_registered_with_a_trailing_slash_serves_the_route() {
    let server = TestServer::spawn(routes().layer(layer())).await;
    let response = expect(&server, "/api/tickets?format=compact", Some("compact")).await;
    assert_eq!(body_json(response).await["summary"], "12 events");
}
