//! Format negotiation through a real server: query, header, Accept, default.

use axum::extract::RawQuery;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::{Json, Router, routing::get};
use http::HeaderName;
use serde_json::{Value, json};
use terse_tests::server::{TestServer, token_count};
use tower::ServiceBuilder;
use tower_terse::{Format, TerseLayer};

fn users() -> Value {
    json!([
        {"id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "role": "admin", "active": true},
        {"id": 2, "name": "Linus Torvalds", "email": "linus@example.com", "role": "member", "active": true},
        {"id": 3, "name": "Grace Hopper", "email": "grace@example.com", "role": "member", "active": false},
        {"id": 4, "name": "Alan Turing", "email": "alan@example.com", "role": "viewer", "active": true},
    ])
}

fn toon_users() -> String {
    terse_toon::encode(&users(), &Default::default())
}

/// Echoes what the handler saw, or answers CSV itself when asked.
async fn echo(RawQuery(query): RawQuery, headers: HeaderMap) -> axum::response::Response {
    if query.as_deref().is_some_and(|q| q.contains("format=csv")) {
        return ([("content-type", "text/csv")], "id,name\n1,Ada\n").into_response();
    }
    let prefer = headers
        .get("x-prefer-format")
        .map(|v| v.to_str().unwrap().to_owned());
    Json(json!({"query": query, "prefer": prefer})).into_response()
}

fn app(layer: TerseLayer) -> Router {
    Router::new()
        .route("/users", get(|| async { Json(users()) }))
        .route("/echo", get(echo))
        .layer(layer)
}

async fn fetch(server: &TestServer, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    server.get(path, headers).await
}

/// Asserts a TOON answer: type, body and token count.
async fn assert_toon(response: reqwest::Response) {
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/toon; charset=utf-8"
    );
    let count = token_count(&response);
    let body = response.text().await.unwrap();
    assert_eq!(body, toon_users());
    assert_eq!(count, tower_terse::tokens::estimate(body.as_bytes()));
}

/// Asserts the handler's JSON, unchanged.
async fn assert_json(response: reqwest::Response) {
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body = response.text().await.unwrap();
    assert_eq!(body, users().to_string());
}

#[tokio::test]
async fn query_header_and_accept_each_select_toon() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    assert_toon(fetch(&server, "/users?format=toon", &[]).await).await;
    assert_toon(fetch(&server, "/users", &[("x-prefer-format", "toon")]).await).await;
    assert_toon(fetch(&server, "/users", &[("accept", "text/toon")]).await).await;
    assert_toon(fetch(&server, "/users", &[("accept", "application/toon")]).await).await;
}

#[tokio::test]
async fn without_a_request_json_is_counted_and_sent_as_it_came() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let response = fetch(&server, "/users", &[]).await;
    assert_eq!(response.headers()["vary"], "Accept, X-Prefer-Format");
    let count = token_count(&response);
    let length: usize = response.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let body = fetch(&server, "/users", &[]).await.bytes().await.unwrap();
    assert_eq!(count, tower_terse::tokens::estimate(&body));
    assert_eq!(length, body.len());
    assert_json(response).await;
}

#[tokio::test]
async fn counting_plain_json_can_be_turned_off() {
    let layer = TerseLayer::new().count_plain_responses(false);
    let server = TestServer::spawn(app(layer)).await;
    let response = fetch(&server, "/users", &[]).await;
    assert_eq!(response.headers()["vary"], "Accept, X-Prefer-Format");
    assert!(response.headers().get("x-token-count").is_none());
    assert_json(response).await;
    // A format asked for is still counted.
    let response = fetch(&server, "/users?format=json", &[]).await;
    assert!(response.headers().get("x-token-count").is_some());
}

#[tokio::test]
async fn first_match_wins() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let everything = [("x-prefer-format", "toon"), ("accept", "text/toon")];
    assert_json(fetch(&server, "/users?format=json", &everything).await).await;
    let header_over_accept = [("x-prefer-format", "toon"), ("accept", "application/json")];
    assert_toon(fetch(&server, "/users", &header_over_accept).await).await;
    let json_header = [("x-prefer-format", "json"), ("accept", "text/toon")];
    let response = fetch(&server, "/users", &json_header).await;
    assert!(response.headers().contains_key("x-token-count"));
    assert_json(response).await;
}

#[tokio::test]
async fn accept_q_values_choose_between_toon_and_json() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    for accept in [
        "application/json;q=0.5, text/toon",
        "text/toon;q=0.9, application/json;q=0.8",
        "text/toon, */*;q=0.1",
        "application/toon;q=0.6, application/*;q=0.5",
    ] {
        assert_toon(fetch(&server, "/users", &[("accept", accept)]).await).await;
    }
    for accept in [
        "text/toon;q=0.4, application/json",
        "text/toon;q=0, application/json;q=0.1",
        "application/toon;q=0.3, application/*;q=0.5",
        "application/json",
        "*/*",
    ] {
        assert_json(fetch(&server, "/users", &[("accept", accept)]).await).await;
    }
}

#[tokio::test]
async fn values_are_case_insensitive() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    assert_toon(fetch(&server, "/users?format=ToOn", &[]).await).await;
    assert_toon(fetch(&server, "/users", &[("x-prefer-format", "TOON")]).await).await;
    assert_toon(
        fetch(
            &server,
            "/users",
            &[("accept", "Text/TOON;Q=0.9, application/json;q=0.5")],
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn an_unknown_format_reaches_the_handler_untouched() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;

    let response = fetch(&server, "/echo?format=csv", &[]).await;
    assert_eq!(response.headers()["content-type"], "text/csv");
    assert!(response.headers().get("vary").is_none());
    assert!(response.headers().get("x-token-count").is_none());
    assert_eq!(response.text().await.unwrap(), "id,name\n1,Ada\n");

    // The JSON the handler answers an unknown header value with is left alone
    // too, but for `Vary`: a JSON answer could have been rewritten, so caches
    // must key it on the headers that choose a format.
    let response = fetch(&server, "/echo?page=2", &[("x-prefer-format", "YAML")]).await;
    assert_eq!(response.headers()["vary"], "Accept, X-Prefer-Format");
    assert!(response.headers().get("x-token-count").is_none());
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body, json!({"query": "page=2", "prefer": "YAML"}));
}

#[tokio::test]
async fn known_values_leave_the_request_as_it_came() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let response = fetch(
        &server,
        "/echo?format=json&fields=query",
        &[("x-prefer-format", "toon")],
    )
    .await;
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(body, json!({"query": "format=json&fields=query"}));
}

#[tokio::test]
async fn compact_without_a_registered_resource_serves_json() {
    let server = TestServer::spawn(app(TerseLayer::new())).await;
    let response = fetch(&server, "/users?format=compact", &[]).await;
    assert!(response.headers().contains_key("x-token-count"));
    assert_json(response).await;
}

#[tokio::test]
async fn the_configured_default_applies_when_nothing_is_asked() {
    let server = TestServer::spawn(app(TerseLayer::new().default_format(Format::Toon))).await;
    assert_toon(fetch(&server, "/users", &[]).await).await;
    assert_toon(fetch(&server, "/users", &[("accept", "*/*")]).await).await;
    // A client that only takes JSON gets JSON.
    assert_json(fetch(&server, "/users", &[("accept", "application/json")]).await).await;
    assert_json(fetch(&server, "/users?format=json", &[]).await).await;
}

#[tokio::test]
async fn parameter_and_header_names_are_configurable() {
    let layer = TerseLayer::new()
        .format_param("as")
        .prefer_header(HeaderName::from_static("x-agent-format"));
    let server = TestServer::spawn(app(layer)).await;
    assert_toon(fetch(&server, "/users?as=toon", &[]).await).await;
    let response = fetch(&server, "/users", &[("x-agent-format", "toon")]).await;
    assert_eq!(response.headers()["vary"], "Accept, x-agent-format");
    assert_toon(response).await;
    assert_json(
        fetch(
            &server,
            "/users?format=toon",
            &[("x-prefer-format", "toon")],
        )
        .await,
    )
    .await;
}

#[tokio::test]
async fn works_from_a_service_builder_and_around_a_whole_router() {
    let per_route = Router::new()
        .route("/users", get(|| async { Json(users()) }))
        .layer(ServiceBuilder::new().layer(TerseLayer::new()));
    let server = TestServer::spawn(per_route).await;
    assert_toon(fetch(&server, "/users?format=toon", &[]).await).await;

    let inner = Router::new().route("/users", get(|| async { Json(users()) }));
    let wrapped = ServiceBuilder::new()
        .layer(TerseLayer::new())
        .service(inner);
    let server = TestServer::spawn(Router::new().fallback_service(wrapped)).await;
    assert_toon(fetch(&server, "/users?format=toon", &[]).await).await;
}
