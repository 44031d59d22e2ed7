//! `?fields=` projection through a real server, with JSON and TOON.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::{Json, Router, routing::get};
use http::HeaderName;
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;
use tower_terse::compact::{CompactResource, Template};

fn repos() -> Value {
    json!([
        {"id": 11, "name": "terse", "stars": 120, "owner": {"id": 1, "login": "ada", "site": "ada.dev"}, "topics": ["llm", "http"]},
        {"id": 12, "name": "toon", "stars": 80, "owner": {"id": 2, "login": "linus", "site": null}, "topics": []},
    ])
}

fn page() -> Value {
    json!({"results": repos(), "meta": {"total": 2, "limit": 2, "offset": 0}})
}

fn user() -> Value {
    json!({"uuid": "u-1", "id": 1, "name": "Ada", "address": {"city": "London", "zip": "N1 9GU"}, "bio": "Wrote the first program."})
}

fn many() -> Value {
    let rows: Vec<Value> = (1..=12)
        .map(|n| json!({"id": n, "name": format!("repo-{n}"), "stars": n * 7, "private": n % 2 == 0}))
        .collect();
    json!({"data": rows})
}

fn app(layer: TerseLayer, calls: Arc<AtomicUsize>) -> Router {
    Router::new()
        .route(
            "/repos",
            get(move || {
                calls.fetch_add(1, Ordering::SeqCst);
                async { Json(repos()) }
            }),
        )
        .route("/page", get(|| async { Json(page()) }))
        .route("/many", get(|| async { Json(many()) }))
        .route(
            "/rows",
            get(|| async { Json(json!({"rows": repos(), "count": 2})) }),
        )
        .route("/user", get(|| async { Json(user()) }))
        .layer(layer)
}

async fn body_of(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, String) {
    let mut request = raw_client().get(server.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    (status, content_type, response.text().await.unwrap())
}

async fn spawn(layer: TerseLayer) -> (TestServer, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    (TestServer::spawn(app(layer, calls.clone())).await, calls)
}

#[tokio::test]
async fn root_lists_keep_the_listed_fields_and_the_id() {
    let (server, _) = spawn(TerseLayer::new()).await;
    let (status, content_type, body) =
        body_of(&server, "/repos?fields=name,owner.login", &[]).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let expected = json!([
        {"id": 11, "name": "terse", "owner": {"login": "ada"}},
        {"id": 12, "name": "toon", "owner": {"login": "linus"}},
    ]);
    assert_eq!(body, expected.to_string());
}

#[tokio::test]
async fn lists_under_list_keys_keep_their_siblings() {
    let (server, _) = spawn(TerseLayer::new()).await;
    let (_, _, body) = body_of(&server, "/page?fields=stars", &[]).await;
    let expected = json!({"results": [{"id": 11, "stars": 120}, {"id": 12, "stars": 80}], "meta": page()["meta"]});
    assert_eq!(body, expected.to_string());
}

#[tokio::test]
async fn single_objects_are_projected_with_nested_paths() {
    let (server, _) = spawn(TerseLayer::new()).await;
    let (_, _, body) = body_of(&server, "/user?fields=name%2Caddress.city", &[]).await;
    assert_eq!(
        body,
        json!({"id": 1, "name": "Ada", "address": {"city": "London"}}).to_string()
    );
}

#[tokio::test]
async fn list_keys_and_id_key_are_configurable() {
    let (server, _) = spawn(
        TerseLayer::new()
            .list_keys(["rows"])
            .id_key("uuid")
            .fields_param("only"),
    )
    .await;
    let (_, _, body) = body_of(&server, "/rows?only=name", &[]).await;
    assert_eq!(
        body,
        json!({"rows": [{"name": "terse"}, {"name": "toon"}], "count": 2}).to_string()
    );
    let (_, _, body) = body_of(&server, "/user?only=bio", &[]).await;
    assert_eq!(
        body,
        json!({"uuid": "u-1", "bio": "Wrote the first program."}).to_string()
    );
}

#[tokio::test]
async fn fields_work_with_toon() {
    let (server, _) = spawn(TerseLayer::new()).await;
    let path = "/many?fields=name,stars&format=toon";
    let (status, content_type, body) = body_of(&server, path, &[]).await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/toon; charset=utf-8")
    );
    let projected: Vec<Value> = many()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"id": r["id"], "name": r["name"], "stars": r["stars"]}))
        .collect();
    let projected = json!({"data": projected});
    assert_eq!(body, terse_toon::encode(&projected, &Default::default()));
    assert_eq!(
        terse_toon::decode(&body, &Default::default()).unwrap(),
        projected
    );
}

async fn assert_envelope(server: &TestServer, path: &str, headers: &[(&str, &str)], code: &str) {
    let (status, content_type, body) = body_of(server, path, headers).await;
    assert_eq!(
        (status, content_type.as_str()),
        (400, "application/json"),
        "{path}"
    );
    let envelope: Value = serde_json::from_str(&body).unwrap();
    let error = envelope["error"].as_object().expect("an error object");
    assert_eq!(error["code"], code);
    assert!(!error["message"].as_str().unwrap().is_empty());
    assert!(!error["hint"].as_str().unwrap().is_empty());
    assert_eq!(error.len(), 3);
}

fn with_repo_lines() -> TerseLayer {
    let repo = CompactResource::new("repo", Template::parse("{name} ({stars})").unwrap());
    TerseLayer::new().compact_resource("/repos", repo)
}

#[tokio::test]
async fn fields_with_compact_is_a_400_envelope_before_the_handler_runs() {
    let (server, calls) = spawn(with_repo_lines()).await;
    assert_envelope(
        &server,
        "/repos?format=compact&fields=name",
        &[],
        "fields_with_compact",
    )
    .await;
    assert_envelope(
        &server,
        "/repos?fields=name",
        &[("x-prefer-format", "COMPACT")],
        "fields_with_compact",
    )
    .await;
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_malformed_field_path_is_a_400_envelope() {
    let (server, calls) = spawn(TerseLayer::new()).await;
    assert_envelope(
        &server,
        "/repos?fields=name,owner..login",
        &[],
        "invalid_fields",
    )
    .await;
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_empty_fields_list_changes_nothing() {
    let (server, _) =
        spawn(TerseLayer::new().prefer_header(HeaderName::from_static("x-fmt"))).await;
    let (_, _, body) = body_of(&server, "/repos?fields=", &[]).await;
    assert_eq!(body, repos().to_string());
}

#[tokio::test]
async fn fields_with_compact_where_no_lines_apply_is_json_with_the_fields() {
    // No compact resource on `/repos`: compact is the JSON there, and the
    // fields apply to it.
    let (server, calls) = spawn(TerseLayer::new()).await;
    let (status, content_type, body) =
        body_of(&server, "/repos?format=compact&fields=name", &[]).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body,
        json!([{"id": 11, "name": "terse"}, {"id": 12, "name": "toon"}])
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn fields_can_be_left_to_the_handler() {
    let (server, calls) = spawn(TerseLayer::new().fields_enabled(false)).await;
    for path in [
        "/repos?fields=name",
        "/repos?fields=a..b",
        "/repos?format=compact&fields=name",
    ] {
        let (status, _, body) = body_of(&server, path, &[]).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(body, repos().to_string(), "{path}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}
