//! Compact responses through HTTP: which routes and bodies get lines, how
//! they are asked for, the headers, and everything that stays JSON.

use std::convert::Infallible;

use axum::body::Body;
use axum::extract::MatchedPath;
use axum::http::{Request, Response, StatusCode};
use axum::{Json, Router, routing::get};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use terse_tests::server::TestServer;
use tower::Layer;
use tower_terse::changes::{ChangeKind, Changes, Timestamp};
use tower_terse::compact::{CompactResource, Template};
use tower_terse::tokens::estimate;
use tower_terse::{CompactLine, TerseLayer, TerseRequestBody};

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "event", line = "{start_at|time} {title}{? @ {room}}")]
struct Event {
    id: String,
    title: String,
    start_at: String,
    room: Option<String>,
    attendees: u32,
}

fn event_list() -> Value {
    json!({
        "data": [
            {"id": "evt_9", "title": "Standup", "start_at": "2026-03-02T09:00:00Z", "room": "4.12", "attendees": 6},
            {"id": "evt_2", "title": "Design review", "start_at": "2026-03-02T11:30:00Z", "room": null, "attendees": 3},
            {"id": "evt_5", "title": "Retro", "start_at": "2026-03-02T16:00:00Z", "room": "Zoom", "attendees": 8},
        ],
        "meta": {"total": 57, "limit": 3, "offset": 0},
    })
}

fn expected_envelope() -> Value {
    json!({
        "format": "compact",
        "summary": "3 of 57 events",
        "lines": ["09:00 Standup @ 4.12", "11:30 Design review", "16:00 Retro @ Zoom"],
        "ids": ["evt_9", "evt_2", "evt_5"],
        "meta": {"total": 57, "limit": 3, "offset": 0, "has_more": true},
    })
}

/// A response as the client saw it.
struct Reply {
    status: StatusCode,
    headers: http::HeaderMap,
    body: Bytes,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    fn token_count(&self) -> usize {
        self.header("x-token-count").unwrap().parse().unwrap()
    }
}

async fn fetch(server: &TestServer, path: &str, headers: &[(&str, &str)]) -> Reply {
    let response = server.get(path, headers).await;
    Reply {
        status: response.status(),
        headers: response.headers().clone(),
        body: response.bytes().await.unwrap(),
    }
}

/// The body the handler sent, as the client got it without the layer.
fn handler_bytes(value: &Value) -> Bytes {
    Bytes::from(serde_json::to_vec(value).unwrap())
}

fn app() -> Router {
    Router::new()
        .route("/api/v1/events", get(|| async { Json(event_list()) }))
        .route(
            "/api/v1/events/{id}",
            get(|| async { Json(event_list()["data"][0].clone()) }),
        )
        .route("/api/v1/rooms", get(|| async { Json(event_list()) }))
        .route(
            "/api/v1/broken",
            get(|| async {
                let mut body = event_list();
                body["data"][1]["attendees"] = json!("many");
                Json(body)
            }),
        )
        .route(
            "/api/v1/failing",
            get(|| async { (StatusCode::SERVICE_UNAVAILABLE, Json(event_list())) }),
        )
        .route(
            "/users/{user_id}/events",
            get(|matched: MatchedPath| async move {
                let mut body = event_list();
                body["meta"]["matched"] = json!(matched.as_str());
                Json(body)
            }),
        )
        .layer(
            TerseLayer::new()
                .resource::<Event>("/api/v1/events")
                .resource::<Event>("/api/v1/events/{id}")
                .resource::<Event>("/api/v1/broken")
                .resource::<Event>("/api/v1/failing")
                .resource::<Event>("/users/{id}/events"),
        )
}

#[tokio::test]
async fn query_and_header_both_ask_for_compact() {
    let server = TestServer::spawn(app()).await;
    for headers in [&[][..], &[("x-prefer-format", "compact")][..]] {
        let path = if headers.is_empty() {
            "/api/v1/events?format=compact"
        } else {
            "/api/v1/events"
        };
        let reply = fetch(&server, path, headers).await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.json(), expected_envelope());
        // Compact JSON, counted as sent.
        assert_eq!(reply.body, expected_envelope().to_string());
        assert_eq!(reply.token_count(), estimate(&reply.body));
        assert_eq!(
            reply.header("content-length"),
            Some(reply.body.len().to_string().as_str())
        );
        assert!(reply.header("vary").unwrap().contains("X-Prefer-Format"));
    }
}

#[tokio::test]
async fn the_envelope_takes_fewer_tokens_than_the_json() {
    let server = TestServer::spawn(app()).await;
    let json = fetch(&server, "/api/v1/events?format=json", &[]).await;
    let compact = fetch(&server, "/api/v1/events?format=compact", &[]).await;
    assert_eq!(json.body, handler_bytes(&event_list()));
    assert!(compact.token_count() < json.token_count());
}

#[tokio::test]
async fn a_record_of_the_wrong_shape_is_served_as_json() {
    let server = TestServer::spawn(app()).await;
    let reply = fetch(&server, "/api/v1/broken?format=compact", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let mut expected = event_list();
    expected["data"][1]["attendees"] = json!("many");
    assert_eq!(reply.body, handler_bytes(&expected));
    assert_eq!(reply.token_count(), estimate(&reply.body));
    assert_eq!(
        reply.header("content-length"),
        Some(reply.body.len().to_string().as_str())
    );
}

#[tokio::test]
async fn errors_single_objects_and_unregistered_routes_stay_json() {
    let server = TestServer::spawn(app()).await;

    let error = fetch(&server, "/api/v1/failing?format=compact", &[]).await;
    assert_eq!(error.status, 503);
    assert_eq!(error.body, handler_bytes(&event_list()));
    assert_eq!(error.header("x-token-count"), None);

    let single = fetch(&server, "/api/v1/events/evt_9?format=compact", &[]).await;
    assert_eq!(single.status, 200);
    assert_eq!(single.body, handler_bytes(&event_list()["data"][0]));
    assert_eq!(single.token_count(), estimate(&single.body));

    let unregistered = fetch(&server, "/api/v1/rooms?format=compact", &[]).await;
    assert_eq!(unregistered.status, 200);
    assert_eq!(unregistered.body, handler_bytes(&event_list()));
    assert_eq!(unregistered.token_count(), estimate(&unregistered.body));
}

#[tokio::test]
async fn compact_with_fields_is_refused() {
    let server = TestServer::spawn(app()).await;
    let reply = fetch(&server, "/api/v1/events?format=compact&fields=title", &[]).await;
    assert_eq!(reply.status, 400);
    let body = reply.json();
    assert_eq!(body["error"]["code"], "fields_with_compact", "{body}");
    let reply = fetch(
        &server,
        "/api/v1/events?fields=title",
        &[("x-prefer-format", "compact")],
    )
    .await;
    assert_eq!(reply.status, 400);
}

#[tokio::test]
async fn a_path_parameter_route_matches_through_the_router() {
    let server = TestServer::spawn(app()).await;
    let reply = fetch(&server, "/users/ada/events?format=compact", &[]).await;
    let mut expected = expected_envelope();
    expected["meta"] = json!({
        "total": 57, "limit": 3, "offset": 0,
        "matched": "/users/{user_id}/events", "has_more": true,
    });
    assert_eq!(reply.json(), expected);
    // A path the pattern does not match is not compact.
    let reply = fetch(&server, "/users/ada/events/extra?format=compact", &[]).await;
    assert_eq!(reply.status, 404);
}

/// A plain tower service: no router, so no `MatchedPath`; the layer matches
/// the request path.
#[tokio::test]
async fn a_path_parameter_route_matches_without_matched_path() {
    let service = tower::service_fn(|request: Request<TerseRequestBody<Body>>| async move {
        let mut body = event_list();
        body["meta"]["had_matched_path"] =
            json!(request.extensions().get::<MatchedPath>().is_some());
        let response = Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        Ok::<_, Infallible>(response)
    });
    let layered = TerseLayer::new()
        .resource::<Event>("/users/{id}/events")
        .layer(service);
    let server = TestServer::spawn(Router::new().fallback_service(layered)).await;

    let reply = fetch(&server, "/users/42/events?format=compact", &[]).await;
    let envelope = reply.json();
    assert_eq!(envelope["lines"], expected_envelope()["lines"]);
    assert_eq!(envelope["meta"]["had_matched_path"], false);

    let other = fetch(&server, "/users/42?format=compact", &[]).await;
    assert_eq!(other.json()["meta"]["had_matched_path"], false);
    assert_eq!(other.json()["data"], event_list()["data"]);
}

/// Inside `nest` the router's pattern carries the outer prefix, which the
/// layer's registration does not: the (stripped) request path decides.
#[tokio::test]
async fn a_path_parameter_route_matches_inside_nest() {
    let inner = Router::new()
        .route("/users/{id}/events", get(|| async { Json(event_list()) }))
        .layer(TerseLayer::new().resource::<Event>("/users/{id}/events"));
    let server = TestServer::spawn(Router::new().nest("/api", inner)).await;
    let reply = fetch(&server, "/api/users/7/events?format=compact", &[]).await;
    assert_eq!(reply.json(), expected_envelope());

    // Registered with the full path, the router's pattern matches it.
    let inner = Router::new()
        .route("/users/{id}/events", get(|| async { Json(event_list()) }))
        .layer(TerseLayer::new().resource::<Event>("/api/users/{uid}/events"));
    let server = TestServer::spawn(Router::new().nest("/api", inner)).await;
    let reply = fetch(&server, "/api/users/7/events?format=compact", &[]).await;
    assert_eq!(reply.json(), expected_envelope());
}

#[tokio::test]
async fn a_run_time_template_resource() {
    let notes = CompactResource::new(
        "entry",
        Template::parse("{title}{? ({tags|join(/)})}").unwrap(),
    )
    .with_plural("entries")
    .with_id_key("slug");
    let router = Router::new()
        .route(
            "/api/v1/notes",
            get(|| async {
                Json(json!({"items": [
                    {"slug": "groceries", "title": "Groceries", "tags": ["home", "todo"]},
                    {"slug": "ideas", "title": "Ideas", "tags": []},
                ]}))
            }),
        )
        .layer(TerseLayer::new().compact_resource("/api/v1/notes", notes));
    let server = TestServer::spawn(router).await;
    let reply = fetch(&server, "/api/v1/notes?format=compact", &[]).await;
    assert_eq!(
        reply.json(),
        json!({
            "format": "compact",
            "summary": "2 entries",
            "lines": ["Groceries (home/todo)", "Ideas"],
            "ids": ["groceries", "ideas"],
        })
    );
    assert_eq!(reply.token_count(), estimate(&reply.body));
}

#[tokio::test]
async fn a_change_set_reads_one_line_per_change() {
    let router = Router::new()
        .route(
            "/api/v1/events",
            get(|| async {
                let stamp: Timestamp = "2026-02-18T09:00:00Z".parse().unwrap();
                let mut changes = Changes::new(stamp);
                let data = event_list()["data"].clone();
                changes.push(ChangeKind::Deleted, data[0].clone());
                changes.push(ChangeKind::Created, data[1].clone());
                changes.push(ChangeKind::Updated, data[2].clone());
                changes
            }),
        )
        .layer(TerseLayer::new().resource::<Event>("/api/v1/events"));
    let server = TestServer::spawn(router).await;
    let reply = fetch(
        &server,
        "/api/v1/events?since=2026-02-18T00:00:00Z&format=compact",
        &[],
    )
    .await;
    let envelope = reply.json();
    assert_eq!(
        envelope["summary"],
        "3 events changed: 1 created, 1 updated, 1 deleted"
    );
    assert_eq!(
        envelope["lines"],
        json!([
            "+ 11:30 Design review",
            "~ 16:00 Retro @ Zoom",
            "- 09:00 Standup @ 4.12"
        ])
    );
    assert_eq!(envelope["ids"], json!(["evt_2", "evt_5", "evt_9"]));
    assert_eq!(envelope["meta"]["total_changes"], 3);
    assert_eq!(reply.token_count(), estimate(&reply.body));
}

#[test]
#[should_panic(expected = "TerseLayer: invalid route pattern `api/v1/events`")]
fn an_invalid_pattern_panics_when_the_layer_is_built() {
    let _ = TerseLayer::new().resource::<Event>("api/v1/events");
}

#[tokio::test]
async fn a_list_shaped_like_a_change_set_is_no_change_set_without_since() {
    // A plain list route whose `data` happens to hold `created`, `updated`
    // and `deleted` arrays: only a `?since=` request makes it a change set.
    let body = json!({
        "data": {"created": [], "updated": event_list()["data"].clone(), "deleted": []},
        "meta": {"total": 3},
    });
    let handler_body = body.clone();
    let router = Router::new()
        .route(
            "/api/v1/events",
            get(move || {
                let body = handler_body.clone();
                async move { axum::Json(body) }
            }),
        )
        .layer(TerseLayer::new().resource::<Event>("/api/v1/events"));
    let server = TestServer::spawn(router).await;
    let reply = fetch(&server, "/api/v1/events?format=compact", &[]).await;
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.json(), body, "served as the handler wrote it");
    let reply = fetch(
        &server,
        "/api/v1/events?format=compact&since=2026-02-18T00:00:00Z",
        &[],
    )
    .await;
    assert_eq!(reply.json()["lines"].as_array().map(Vec::len), Some(3));
}
