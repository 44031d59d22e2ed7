//! `tower_terse::proxy::record_metrics(false)`: a process whose counters nobody
//! reads (`terse gateway` without `--metrics-listen`) records none, and
//! records them again once turned back on. The switch is process-wide: the
//! test holds the process alone (`reports::install`) and turns it back on.

use axum::{Json, Router, routing::get};
use serde_json::json;
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;

#[tokio::test]
async fn counters_turned_off_are_not_recorded_and_come_back_when_turned_on() {
    let (_alone, counters, _events) = terse_tests::reports::install().await;
    let app = Router::new()
        .route(
            "/users",
            get(|| async { Json(json!([{"id": 1, "name": "Ada"}, {"id": 2, "name": "Lin"}])) }),
        )
        .layer(TerseLayer::new());
    let server = TestServer::spawn(app).await;
    // The route label is the pattern axum matched.
    let key = "terse_responses_total{format=json,route=/users}";

    tower_terse::proxy::record_metrics(false);
    let response = raw_client().get(server.url("/users")).send().await.unwrap();
    // The response itself is unchanged: counted, with its header.
    assert!(response.headers().contains_key("x-token-count"));
    assert_eq!(counters.get(key), 0);

    tower_terse::proxy::record_metrics(true);
    raw_client().get(server.url("/users")).send().await.unwrap();
    assert_eq!(counters.get(key), 1);
}
