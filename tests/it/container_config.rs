//! The container's example config (`deploy/container/terse.toml`, what the
//! documented `podman run` line mounts) in a gateway in front of an upstream
//! shaped like `.ci/deploy`'s: `?format=compact` answers compact lines from
//! its `[[resource]]`, not `fallback=no-template`.

use axum::{Json, Router, routing::get};
use serde_json::{Value, json};
use terse_tests::python::spawn_gateway;
use terse_tests::server::{TestServer, raw_client};

/// `.ci/deploy`'s upstream list: twelve tasks, every other one done.
async fn tasks() -> Json<Value> {
    let data: Vec<Value> = (1..=12)
        .map(|i| json!({"id": i, "title": format!("Task {i}"), "done": i % 2 == 0}))
        .collect();
    Json(json!({ "data": data }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_container_config_serves_compact_lines() {
    let config = include_str!("../../deploy/container/terse.toml");
    let upstream = TestServer::spawn(Router::new().route("/api/tasks", get(tasks))).await;
    let (gateway, _task) = spawn_gateway(config, &upstream.url("")).await;

    let response = raw_client()
        .get(format!("{gateway}/api/tasks?format=compact"))
        .send()
        .await
        .expect("GET through the gateway");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["x-response-format"], "compact");
    let body: Value = serde_json::from_str(&response.text().await.expect("body")).expect("JSON");
    assert_eq!(body["summary"], "12 tasks");
    assert_eq!(body["lines"][0], "Task 1");
    assert_eq!(body["lines"][1], "Task 2 (done)");
    assert_eq!(body["ids"][11], 12);
}
