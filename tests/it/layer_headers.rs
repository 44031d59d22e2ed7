//! Headers the layer sets: X-Token-Count, Content-Length, Vary, ETag, HEAD.

use std::convert::Infallible;

use axum::body::Body;
use axum::response::Response;
use axum::{Router, routing::get};
use bytes::Bytes;
use futures_util::stream;
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;
use tower_terse::tokens::estimate;

fn events() -> Value {
    json!({"data": [
        {"id": "evt_01", "title": "Standup", "start_at": "2026-03-02T09:00:00Z", "room": "Blue"},
        {"id": "evt_02", "title": "Design review", "start_at": "2026-03-02T11:30:00Z", "room": "Green"},
        {"id": "evt_03", "title": "1:1 with Sam", "start_at": "2026-03-02T15:00:00Z", "room": null},
    ], "meta": {"total": 3, "limit": 20, "offset": 0}})
}

/// A longer list for the tag tests: with a dozen records TOON is clearly
/// cheaper than JSON for every projection, so each asked representation is
/// what is served (a margin of a token or two would be the estimate's call).
fn tagged_events() -> Value {
    let rows: Vec<Value> = (1..=12)
        .map(|n| json!({"id": format!("evt_{n:02}"), "title": format!("Planning {n}"), "start_at": format!("2026-03-{n:02}T09:00:00Z"), "room": "Blue"}))
        .collect();
    json!({"data": rows, "meta": {"total": 12, "limit": 20, "offset": 0}})
}

fn reply(headers: &[(&str, &str)], body: Body) -> Response {
    let mut builder = Response::builder().header("content-type", "application/json");
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body).unwrap()
}

fn app() -> Router {
    Router::new()
        .route(
            "/events",
            get(|| async { reply(&[], Body::from(events().to_string())) }),
        )
        .route(
            "/chunked",
            get(|| async {
                let text = events().to_string();
                let chunks: Vec<Result<Bytes, Infallible>> = text
                    .as_bytes()
                    .chunks(16)
                    .map(|c| Ok(Bytes::copy_from_slice(c)))
                    .collect();
                reply(&[], Body::from_stream(stream::iter(chunks)))
            }),
        )
        .route(
            "/varied",
            get(|| async {
                reply(
                    &[("vary", "Origin, accept")],
                    Body::from(events().to_string()),
                )
            }),
        )
        .route(
            "/tagged",
            get(|| async {
                reply(
                    &[
                        ("etag", "\"rev-42\""),
                        ("last-modified", "Mon, 02 Mar 2026 08:00:00 GMT"),
                    ],
                    Body::from(tagged_events().to_string()),
                )
            }),
        )
        .route(
            "/weak",
            get(|| async { reply(&[("etag", "W/\"rev-7\"")], Body::from(events().to_string())) }),
        )
        .route(
            "/tiny",
            get(|| async { reply(&[("etag", "\"t\"")], Body::from("[[[[1,2]]],[[[3]]]]")) }),
        )
        .route(
            "/fixed",
            get(|| async {
                reply(
                    &[
                        ("cache-control", "public, No-Transform"),
                        ("etag", "\"fixed-1\""),
                    ],
                    Body::from(events().to_string()),
                )
            }),
        )
        .route(
            "/conditional",
            get(|headers: http::HeaderMap| async move {
                // A handler that knows only its own tag, as handlers do.
                let tag = "\"rev-42\"";
                let matched = headers
                    .get_all("if-none-match")
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .flat_map(|v| v.split(','))
                    .any(|t| t.trim() == tag);
                if matched {
                    return Response::builder()
                        .status(304)
                        .header("etag", tag)
                        .body(Body::empty())
                        .unwrap();
                }
                reply(&[("etag", tag)], Body::from(tagged_events().to_string()))
            }),
        )
        .route(
            "/unchanged",
            get(|| async {
                Response::builder()
                    .status(304)
                    .header("etag", "\"rev-42\"")
                    .body(Body::empty())
                    .unwrap()
            }),
        )
        .layer(TerseLayer::new())
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).map(|v| v.to_str().unwrap())
}

async fn get_with(server: &TestServer, path: &str) -> reqwest::Response {
    raw_client().get(server.url(path)).send().await.unwrap()
}

#[tokio::test]
async fn token_count_and_length_describe_the_body_as_sent() {
    let server = TestServer::spawn(app()).await;
    for path in [
        "/events?format=toon",
        "/events?format=json",
        "/chunked?format=toon",
        "/events?fields=title",
    ] {
        let response = get_with(&server, path).await;
        assert_eq!(response.status(), 200, "{path}");
        let count: usize = header(&response, "x-token-count")
            .expect(path)
            .parse()
            .unwrap();
        let length: usize = header(&response, "content-length")
            .expect(path)
            .parse()
            .unwrap();
        let body = response.bytes().await.unwrap();
        assert_eq!(length, body.len(), "{path}");
        // The estimate, or the exact count where a near tie was settled
        // on exact counts (which the header then carries).
        let text = std::str::from_utf8(&body).expect("utf-8");
        assert!(
            count == estimate(&body) || count == tower_terse::tokens::exact(text),
            "{path}: {count}, estimate {}, exact {}",
            estimate(&body),
            tower_terse::tokens::exact(text)
        );
    }
    // Plain JSON of unknown length may be a stream: sent on as it comes,
    // never held back to be counted.
    let response = get_with(&server, "/chunked?format=json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "x-token-count"), None);
    assert_eq!(header(&response, "content-length"), None);
    let body = response.bytes().await.unwrap();
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        events()
    );
}

#[tokio::test]
async fn toon_has_its_content_type_and_a_smaller_count() {
    let server = TestServer::spawn(app()).await;
    let json = get_with(&server, "/events?format=json").await;
    let json_count: usize = header(&json, "x-token-count").unwrap().parse().unwrap();
    let toon = get_with(&server, "/events?format=toon").await;
    assert_eq!(
        header(&toon, "content-type"),
        Some("text/toon; charset=utf-8")
    );
    let toon_count: usize = header(&toon, "x-token-count").unwrap().parse().unwrap();
    assert!(toon_count < json_count, "{toon_count} < {json_count}");
}

#[tokio::test]
async fn vary_is_added_once_and_merged_with_the_handlers() {
    let server = TestServer::spawn(app()).await;
    for path in ["/events", "/events?format=toon", "/events?format=json"] {
        let response = get_with(&server, path).await;
        let all: Vec<_> = response.headers().get_all("vary").iter().collect();
        assert_eq!(all, ["Accept, X-Prefer-Format"], "{path}");
    }
    for path in ["/varied", "/varied?format=toon", "/varied?fields=id"] {
        let response = get_with(&server, path).await;
        let all: Vec<_> = response.headers().get_all("vary").iter().collect();
        assert_eq!(all, ["Origin, accept, X-Prefer-Format"], "{path}");
    }
}

#[tokio::test]
async fn a_strong_etag_is_weakened_only_when_the_body_changes() {
    let server = TestServer::spawn(app()).await;
    let toon = get_with(&server, "/tagged?format=toon").await;
    assert_eq!(header(&toon, "etag"), Some("W/\"rev-42-toon\""));
    assert_eq!(
        header(&toon, "last-modified"),
        Some("Mon, 02 Mar 2026 08:00:00 GMT")
    );
    let json = get_with(&server, "/tagged?format=json").await;
    assert_eq!(header(&json, "etag"), Some("\"rev-42\""));
    let weak = get_with(&server, "/weak?format=toon").await;
    assert_eq!(header(&weak, "etag"), Some("W/\"rev-7-toon\""));

    // Smart fallback serves the handler's bytes, so the tag still matches them.
    let value: Value = serde_json::from_str("[[[[1,2]]],[[[3]]]]").unwrap();
    let toon_text = terse_toon::encode(&value, &Default::default());
    assert!(estimate(toon_text.as_bytes()) >= estimate(value.to_string().as_bytes()));
    let fallback = get_with(&server, "/tiny?format=toon").await;
    assert_eq!(header(&fallback, "content-type"), Some("application/json"));
    assert_eq!(header(&fallback, "etag"), Some("\"t\""));
}

#[tokio::test]
async fn each_representation_has_a_tag_of_its_own() {
    let server = TestServer::spawn(app()).await;
    let mut tags = Vec::new();
    for path in [
        "/tagged",
        "/tagged?format=toon",
        "/tagged?fields=title",
        "/tagged?fields=room",
        "/tagged?fields=title&format=toon",
        "/tagged?format=compact",
        "/weak?format=toon",
    ] {
        let response = get_with(&server, path).await;
        let tag = header(&response, "etag").unwrap().to_owned();
        assert!(
            tag == "\"rev-42\"" || tag.starts_with("W/\"rev-"),
            "{path}: {tag}"
        );
        tags.push((path, tag));
    }
    // `/tagged?format=compact` has no resource: it is the JSON, tag and all.
    assert_eq!(tags[5].1, "\"rev-42\"");
    tags.remove(5);
    for (i, (path, tag)) in tags.iter().enumerate() {
        for (other, other_tag) in &tags[i + 1..] {
            assert_ne!(tag, other_tag, "{path} and {other} share a tag");
        }
    }
    // The same request gets the same tag again, so caches can revalidate.
    let again = get_with(&server, "/tagged?fields=title").await;
    assert_eq!(header(&again, "etag").unwrap(), tags[2].1);
}

#[tokio::test]
async fn no_transform_responses_pass_through_as_they_are() {
    let server = TestServer::spawn(app()).await;
    for path in [
        "/fixed?format=toon",
        "/fixed?fields=title",
        "/fixed?format=json",
    ] {
        let response = get_with(&server, path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, "content-type"), Some("application/json"));
        assert_eq!(header(&response, "etag"), Some("\"fixed-1\""), "{path}");
        assert_eq!(header(&response, "x-token-count"), None, "{path}");
        let body = response.bytes().await.unwrap();
        assert_eq!(body, events().to_string().as_bytes(), "{path}");
    }
}

#[tokio::test]
async fn not_modified_and_step_aside_answers_vary_too() {
    let server = TestServer::spawn(app()).await;
    for path in [
        "/unchanged",
        "/unchanged?format=toon",
        "/unchanged?format=csv",
        "/events?format=csv",
        "/events?fields=title&format=csv",
    ] {
        let response = get_with(&server, path).await;
        let all: Vec<_> = response.headers().get_all("vary").iter().collect();
        assert_eq!(all, ["Accept, X-Prefer-Format"], "{path}");
    }
    let not_modified = get_with(&server, "/unchanged?format=toon").await;
    assert_eq!(not_modified.status(), 304);
    // The handler owns `csv`: its JSON goes out as it made it.
    let csv = get_with(&server, "/events?format=csv").await;
    assert_eq!(header(&csv, "x-token-count"), None);
    assert_eq!(csv.bytes().await.unwrap(), events().to_string().as_bytes());
}

#[tokio::test]
async fn a_not_modified_answer_is_only_for_the_representation_asked() {
    let server = TestServer::spawn(app()).await;
    let ask = |path: &'static str, tag: &'static str| {
        let url = server.url(path);
        async move {
            let response = raw_client()
                .get(url)
                .header("if-none-match", tag)
                .send()
                .await
                .unwrap();
            let etag = header(&response, "etag").map(str::to_owned);
            (response.status().as_u16(), etag)
        }
    };
    let toon = "W/\"rev-42-toon\"";
    // Each representation's own tag gets its 304, with that tag.
    assert_eq!(
        ask("/conditional?format=toon", toon).await,
        (304, Some(toon.to_owned()))
    );
    assert_eq!(
        ask("/conditional", "\"rev-42\"").await,
        (304, Some("\"rev-42\"".to_owned()))
    );
    // Another representation's tag does not validate this one.
    assert_eq!(
        ask("/conditional?format=toon", "\"rev-42\"").await,
        (200, Some(toon.to_owned()))
    );
    assert_eq!(ask("/conditional?format=compact", toon).await.0, 200);
    assert_eq!(
        ask("/conditional", toon).await,
        (200, Some("\"rev-42\"".to_owned()))
    );
}

#[tokio::test]
async fn head_answers_carry_the_headers_get_would() {
    let server = TestServer::spawn(app()).await;
    for path in [
        "/events",
        "/events?format=toon",
        "/events?format=json",
        "/tagged?format=toon",
        "/chunked?format=toon",
        "/events?fields=title&format=toon",
    ] {
        let get = get_with(&server, path).await;
        let head = raw_client().head(server.url(path)).send().await.unwrap();
        assert_eq!(head.status(), get.status(), "{path}");
        for name in [
            "content-type",
            "content-length",
            "x-token-count",
            "vary",
            "etag",
        ] {
            assert_eq!(header(&head, name), header(&get, name), "{path}: {name}");
        }
        assert!(head.bytes().await.unwrap().is_empty(), "{path}");
        assert!(!get.bytes().await.unwrap().is_empty(), "{path}");
    }
}
