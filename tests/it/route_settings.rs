//! Per-route settings (`TerseLayer::route`) through a real server.

use axum::{Json, Router, routing::get};
use serde_json::{Value, json};
use terse_tests::server::{Answer, TestServer, answer, raw_client};
use tower_terse::compact::{CompactResource, Template};
use tower_terse::settings::RouteSettings;
use tower_terse::{Format, TerseLayer};

fn rows() -> Value {
    json!([
        {"id": 1, "name": "alpha", "size": 10},
        {"id": 2, "name": "beta", "size": 20},
        {"id": 3, "name": "gamma", "size": 30},
    ])
}

fn app(layer: TerseLayer) -> Router {
    let list = || async { Json(rows()) };
    Router::new()
        .route("/a", get(list))
        .route("/b", get(list))
        .route("/files/{*path}", get(list))
        .route("/users/{id}/rows", get(list))
        .layer(layer)
}

async fn get_path(server: &TestServer, path: &str) -> Answer {
    answer(raw_client().get(server.url(path))).await
}

#[tokio::test]
async fn a_route_default_format_applies_only_to_its_route() {
    let layer = TerseLayer::new().route("/a", RouteSettings::new().default_format(Format::Toon));
    let server = TestServer::spawn(app(layer)).await;
    let a = get_path(&server, "/a").await;
    assert_eq!(a.content_type, "text/toon; charset=utf-8");
    assert_eq!(
        a.body,
        tower_terse::toon::encode(&rows(), &Default::default())
    );
    let b = get_path(&server, "/b").await;
    assert_eq!(b.content_type, "application/json");
    assert_eq!(serde_json::from_str::<Value>(&b.body).unwrap(), rows());
    // A request that names a format still wins over the route's default.
    let a_json = get_path(&server, "/a?format=json").await;
    assert_eq!(a_json.content_type, "application/json");
}

#[tokio::test]
async fn settings_follow_the_layer_whatever_the_order_of_the_calls() {
    // The route is registered before the layer's own default changes; the
    // route only sets `fields`, so its format follows the later call.
    let layer = TerseLayer::new()
        .route("/a", RouteSettings::new().fields_enabled(false))
        .default_format(Format::Toon);
    let server = TestServer::spawn(app(layer)).await;
    let a = get_path(&server, "/a?fields=name").await;
    assert_eq!(a.content_type, "text/toon; charset=utf-8");
    // `fields` is off on /a: every key is kept.
    assert_eq!(
        a.body,
        tower_terse::toon::encode(&rows(), &Default::default())
    );
    let b = get_path(&server, "/b?fields=name").await;
    assert_eq!(b.content_type, "text/toon; charset=utf-8");
    assert!(!b.body.contains("size"), "{}", b.body);
}

#[tokio::test]
async fn fields_limited_to_chosen_routes() {
    let layer = TerseLayer::new().fields_enabled(false).route(
        "/users/{id}/rows",
        RouteSettings::new().fields_enabled(true),
    );
    let server = TestServer::spawn(app(layer)).await;
    let on = get_path(&server, "/users/7/rows?fields=name").await;
    assert_eq!(
        serde_json::from_str::<Value>(&on.body).unwrap(),
        json!([{"id": 1, "name": "alpha"}, {"id": 2, "name": "beta"}, {"id": 3, "name": "gamma"}])
    );
    let off = get_path(&server, "/b?fields=name").await;
    assert_eq!(serde_json::from_str::<Value>(&off.body).unwrap(), rows());
}

#[tokio::test]
async fn a_disabled_route_passes_as_if_there_were_no_layer() {
    let layer = TerseLayer::new()
        .default_format(Format::Toon)
        .route("/files/{*path}", RouteSettings::new().enabled(false));
    let server = TestServer::spawn(app(layer)).await;
    let file = get_path(&server, "/files/a/b.json?format=toon&fields=a..b").await;
    assert_eq!(file.status, 200, "{}", file.body);
    assert_eq!(file.content_type, "application/json");
    assert_eq!(file.body, serde_json::to_string(&rows()).unwrap());
    assert_eq!(file.token_count, None);
    assert_eq!(file.vary, None);
    // Elsewhere the layer works as configured.
    let a = get_path(&server, "/a").await;
    assert_eq!(a.content_type, "text/toon; charset=utf-8");
    assert!(a.token_count.is_some());
}

#[tokio::test]
async fn limits_and_counting_per_route() {
    let layer = TerseLayer::new().route(
        "/a",
        RouteSettings::new()
            .max_body_bytes(16)
            .count_plain_responses(false),
    );
    let server = TestServer::spawn(app(layer)).await;
    // Over the route's body limit: JSON unchanged and not counted.
    let a = get_path(&server, "/a?format=toon").await;
    assert_eq!(a.content_type, "application/json");
    assert_eq!(a.token_count, None);
    let b = get_path(&server, "/b?format=toon").await;
    assert_eq!(b.content_type, "text/toon; charset=utf-8");
    // Plain JSON is counted on /b but not on /a.
    assert!(get_path(&server, "/b").await.token_count.is_some());
    assert_eq!(get_path(&server, "/a").await.token_count, None);
}

#[tokio::test]
async fn toon_options_and_fallback_per_route_beside_compact_lines() {
    let rows_resource = CompactResource::new("row", Template::parse("{name} ({size})").unwrap());
    let layer = TerseLayer::new()
        .compact_resource("/b", rows_resource)
        .route(
            "/a",
            RouteSettings::new()
                .toon_options(
                    tower_terse::toon::EncodeOptions::new()
                        .with_delimiter(tower_terse::toon::Delimiter::Pipe),
                )
                .smart_fallback(false),
        );
    let server = TestServer::spawn(app(layer)).await;
    let a = get_path(&server, "/a?format=toon").await;
    assert!(a.body.contains("1|alpha|10"), "{}", a.body);
    let b = get_path(&server, "/b?format=compact").await;
    let envelope: Value = serde_json::from_str(&b.body).unwrap();
    assert_eq!(
        envelope["lines"],
        json!(["alpha (10)", "beta (20)", "gamma (30)"])
    );
}

#[test]
fn a_bad_pattern_from_configuration_is_an_error() {
    let err = TerseLayer::new()
        .try_route("files/{", RouteSettings::new())
        .unwrap_err();
    assert!(err.to_string().contains("files/{"), "{err}");
}
