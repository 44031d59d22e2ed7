//! `?since=` and `Changes<T>` through a real server: the reusable part of
//! diff-aware listing, on a service that is not agent-api.

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::changes::{ChangeKind, Changes, Since, Timestamp};
use tower_terse::{CompactLine, TerseLayer};

#[derive(Clone, Serialize, Deserialize, CompactLine)]
#[compact(noun = "task", line = "#{id} {title}")]
struct Task {
    id: u32,
    title: String,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: Option<Timestamp>,
}

fn t(s: &str) -> Timestamp {
    s.parse().expect("timestamp")
}

fn tasks() -> Vec<Task> {
    let task = |id, title: &str, c: &str, u: &str, d: Option<&str>| Task {
        id,
        title: title.to_owned(),
        created_at: t(c),
        updated_at: t(u),
        deleted_at: d.map(t),
    };
    vec![
        task(
            1,
            "old, untouched",
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
            None,
        ),
        task(
            2,
            "old, edited",
            "2026-01-01T00:00:00Z",
            "2026-02-18T10:00:00Z",
            None,
        ),
        task(
            3,
            "new",
            "2026-02-18T09:00:00Z",
            "2026-02-18T09:00:00Z",
            None,
        ),
        task(
            4,
            "old, deleted",
            "2026-01-01T00:00:00Z",
            "2026-02-18T11:00:00Z",
            Some("2026-02-18T11:00:00Z"),
        ),
        task(
            5,
            "deleted long ago",
            "2026-01-01T00:00:00Z",
            "2026-01-02T00:00:00Z",
            Some("2026-01-02T00:00:00Z"),
        ),
    ]
}

async fn list(State(tasks): State<Vec<Task>>, Since(since): Since) -> Response {
    match since {
        None => axum::Json(
            json!({"data": tasks.iter().filter(|t| t.deleted_at.is_none()).collect::<Vec<_>>()}),
        )
        .into_response(),
        Some(since) => {
            let mut changes = Changes::new(Timestamp::now());
            for task in tasks {
                if let Some(kind) =
                    ChangeKind::classify(since, task.created_at, task.updated_at, task.deleted_at)
                {
                    changes.push(kind, task);
                }
            }
            changes.into_response()
        }
    }
}

async fn get_json(server: &TestServer, path: &str) -> (u16, Value) {
    let response = raw_client()
        .get(server.url(path))
        .send()
        .await
        .expect("GET");
    let status = response.status().as_u16();
    let body = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")),
    )
}

async fn server() -> TestServer {
    TestServer::spawn(Router::new().route("/tasks", get(list)).with_state(tasks())).await
}

#[tokio::test]
async fn since_answers_created_updated_and_deleted() {
    let server = server().await;
    let (status, all) = get_json(&server, "/tasks").await;
    assert_eq!(status, 200);
    assert_eq!(all["data"].as_array().unwrap().len(), 3);

    let before = Timestamp::now();
    let (status, body) = get_json(&server, "/tasks?since=2026-02-18T00:00:00Z").await;
    assert_eq!(status, 200);
    let ids = |kind: &str| -> Vec<u64> {
        body["data"][kind]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(
        (ids("created"), ids("updated"), ids("deleted")),
        (vec![3], vec![2], vec![4])
    );
    assert_eq!(body["meta"]["total_changes"], 3);
    assert_eq!(
        body.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["data", "meta"]
    );
    assert_eq!(
        body["data"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["created", "updated", "deleted"]
    );
    let stamp = t(body["meta"]["response_timestamp"].as_str().unwrap());
    assert!(stamp >= before && stamp <= Timestamp::now());

    // `since` is inclusive, offsets are honoured, and `+` survives unencoded.
    let (_, body) = get_json(&server, "/tasks?since=2026-02-18T12:00:00%2B01:00").await;
    assert_eq!(body["data"]["deleted"][0]["id"], 4);
    assert_eq!(body["meta"]["total_changes"], 1);
    let (_, body) = get_json(&server, "/tasks?since=2026-02-18T12:00:00+01:00").await;
    assert_eq!(body["meta"]["total_changes"], 1);
    let (_, body) = get_json(&server, "/tasks?since=2026-02-18T11:00:00.000001Z").await;
    assert_eq!(body["meta"]["total_changes"], 0);
}

#[tokio::test]
async fn a_bad_since_is_a_400_in_the_error_envelope() {
    let server = server().await;
    for bad in [
        "yesterday",
        "2026-02-18",
        "2026-02-18T25:00:00Z",
        "",
        "2026-02-18T09:00:00Z&since=2026-02-18T09:00:00Z",
    ] {
        let response = raw_client()
            .get(server.url(&format!("/tasks?since={bad}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 400, "{bad}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "invalid_since", "{bad}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains("since"),
            "{body}"
        );
        assert!(
            body["error"]["hint"]
                .as_str()
                .unwrap()
                .contains("response_timestamp"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn compact_renders_one_prefixed_line_per_change() {
    let app = Router::new()
        .route("/tasks", get(list))
        .with_state(tasks())
        .layer(TerseLayer::new().resource::<Task>("/tasks"));
    let server = TestServer::spawn(app).await;
    let (status, body) =
        get_json(&server, "/tasks?since=2026-02-18T00:00:00Z&format=compact").await;
    assert_eq!(status, 200);
    assert_eq!(body["format"], "compact", "{body}");
    assert_eq!(
        body["lines"],
        json!(["+ #3 new", "~ #2 old, edited", "- #4 old, deleted"])
    );
    assert_eq!(body["ids"], json!([3, 2, 4]));
    assert_eq!(
        body["summary"],
        "3 tasks changed: 1 created, 1 updated, 1 deleted"
    );
    assert_eq!(body["meta"]["total_changes"], 3);
    assert!(body["meta"]["response_timestamp"].is_string());

    // Nothing changed: still an envelope, with no lines.
    let (_, body) = get_json(&server, "/tasks?since=2027-01-01T00:00:00Z&format=compact").await;
    assert_eq!(body["lines"], json!([]));
    assert_eq!(
        body["summary"],
        "0 tasks changed: 0 created, 0 updated, 0 deleted"
    );

    // The error envelope passes the layer untouched.
    let (status, body) = get_json(&server, "/tasks?since=soon&format=compact").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "invalid_since");
}
