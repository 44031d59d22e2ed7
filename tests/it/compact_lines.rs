//! Compact lines through HTTP: what each record's line reads like (filters,
//! optional groups, escaping, serde renames), the summary and `meta`.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::{Json, Router, routing::get};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::compact::{CompactResource, Template};
use tower_terse::{CompactLine, TerseLayer};

/// A router answering `body` on `/items` with `layer` around it.
fn serving(body: Value, layer: TerseLayer) -> Router {
    Router::new()
        .route("/items", get(move || async move { Json(body) }))
        .layer(layer)
}

/// The compact envelope `/items?format=compact` answers.
async fn envelope(body: Value, layer: TerseLayer) -> Value {
    let server = TestServer::spawn(serving(body, layer)).await;
    let response = raw_client()
        .get(server.url("/items?format=compact"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let envelope: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(envelope["format"], "compact", "{envelope}");
    envelope
}

/// The lines `template` gives the records of `data`.
async fn lines(template: &str, data: Value) -> Vec<String> {
    let rows = CompactResource::new("row", Template::parse(template).unwrap());
    let out = envelope(
        json!({ "data": data }),
        TerseLayer::new().compact_resource("/items", rows),
    )
    .await;
    serde_json::from_value(out["lines"].clone()).unwrap()
}

fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn each_filter_renders_through_the_layer() {
    let record = json!({
        "id": "5f0c2a91-8b1e-4c7a-9d2e-000000001eef",
        "at": "2026-03-02T09:05:00+01:00",
        "size": 2_345_678,
        "title": "Quarterly budget sync",
        "tags": ["finance", "q1"],
        "status": "Confirmed",
        "note": null,
        "urgent": true,
        "muted": false,
    });
    let cases = [
        ("{at|time}", "09:05"),
        ("{at|date}", "2026-03-02"),
        ("{size|bytes}", "2.3MB"),
        ("{id|short}", "5f0c2a91"),
        ("{title|trunc(9)}", "Quarterly…"),
        ("{title|trunc(50)}", "Quarterly budget sync"),
        ("{status|upper}", "CONFIRMED"),
        ("{status|lower}", "confirmed"),
        ("{tags|join( / )}", "finance / q1"),
        ("{tags}", "finance, q1"),
        ("{note|default(no note)}", "no note"),
        ("{status|default(none)}", "Confirmed"),
        ("{urgent|flag(!)}", "!"),
        ("[{muted|flag(muted)}]", "[]"),
        ("{tags|upper|join(+)}", "FINANCE+Q1"),
    ];
    for (template, expected) in cases {
        assert_eq!(
            lines(template, json!([record])).await,
            [expected],
            "{template}"
        );
    }
}

#[tokio::test]
async fn ago_is_measured_from_the_response() {
    let now = unix_now();
    // Margins of a few minutes keep each case in its unit however slow the run.
    let data = json!([
        {"id": 1, "seen": now - 5 * 60 - 20},
        {"id": 2, "seen": now - 3 * 3600 - 120},
        {"id": 3, "seen": now - 15 * 86_400 - 120},
        {"id": 4, "seen": now + 2 * 86_400 + 600},
        {"id": 5, "seen": now - 400 * 86_400},
    ]);
    assert_eq!(
        lines("{seen|ago}", data).await,
        ["5m ago", "3h ago", "2w ago", "in 2d", "1y ago"]
    );
}

#[tokio::test]
async fn bytes_use_decimal_units() {
    let data = json!([
        {"id": 1, "size": 512},
        {"id": 2, "size": 1000},
        {"id": 3, "size": 999_999},
        {"id": 4, "size": 4_200_000_000u64},
        {"id": 5, "size": "n/a"},
    ]);
    assert_eq!(
        lines("{size|bytes}", data).await,
        ["512B", "1.0KB", "1.0MB", "4.2GB", "n/a"]
    );
}

#[tokio::test]
async fn optional_groups_drop_on_null_missing_empty_and_false() {
    let data = json!([
        {"id": 1, "title": "Full", "room": "4.12", "tags": ["a"], "remote": true},
        {"id": 2, "title": "Null", "room": null, "tags": ["a"], "remote": true},
        {"id": 3, "title": "Missing", "tags": ["a"], "remote": true},
        {"id": 4, "title": "Empty", "room": "", "tags": [], "remote": true},
        {"id": 5, "title": "False", "room": "4.12", "tags": ["a"], "remote": false},
    ]);
    let template = "{title}{? @ {room}}{? [{tags|join(,)}]}{? {remote|flag(remote)}}";
    assert_eq!(
        lines(template, data).await,
        [
            "Full @ 4.12 [a] remote",
            "Null [a] remote",
            "Missing [a] remote",
            "Empty remote",
            "False @ 4.12 [a]",
        ]
    );
}

#[tokio::test]
async fn control_characters_are_escaped_so_a_record_is_one_line() {
    let data = json!([
        {"id": 1, "title": "line one\nline two", "room": "a\tb"},
        {"id": 2, "title": "bell\u{7}\r\nend", "room": "esc\u{1b}[0m"},
        {"id": 3, "title": "sep\u{2028}para", "room": "plain"},
    ]);
    let out = lines("{title} ({room})", data).await;
    assert_eq!(
        out,
        [
            r"line one\nline two (a\tb)",
            r"bell\u{7}\r\nend (esc\u{1b}[0m)",
            r"sep\u{2028}para (plain)",
        ]
    );
    assert!(out.iter().all(|line| !line.chars().any(char::is_control)));
}

#[derive(Serialize, Deserialize, CompactLine)]
#[serde(rename_all = "camelCase")]
#[compact(
    noun = "person",
    plural = "people",
    line = "{login} {name|trunc(12)}{? <{email}>}{? since {joinedAt|date}}{? {is_admin|flag(admin)}}"
)]
struct Person {
    #[compact(id)]
    login: String,
    #[serde(rename = "name")]
    full_name: String,
    email: Option<String>,
    joined_at: String,
    is_admin: bool,
}

#[tokio::test]
async fn derived_lines_follow_serde_renames() {
    let body = json!({"items": [
        {"login": "ada", "name": "Ada Lovelace", "email": "ada@example.com", "joinedAt": "2025-11-30T23:59:00Z", "isAdmin": true},
        {"login": "grace", "name": "Grace Brewster Hopper", "email": null, "joinedAt": "2026-01-02T08:00:00Z", "isAdmin": false},
    ]});
    let out = envelope(body, TerseLayer::new().resource::<Person>("/items")).await;
    assert_eq!(
        out["lines"],
        json!([
            "ada Ada Lovelace <ada@example.com> since 2025-11-30 admin",
            "grace Grace Brewst… since 2026-01-02",
        ])
    );
    assert_eq!(out["ids"], json!(["ada", "grace"]));
    assert_eq!(out["summary"], "2 people");
}

#[derive(Serialize, Deserialize, CompactLine)]
#[compact(noun = "event", line = "{title}")]
struct Event {
    id: String,
    title: String,
}

fn events(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"id": format!("evt_{i:03}"), "title": format!("Event {i}")}))
        .collect()
}

#[tokio::test]
async fn summary_counts_with_the_noun_and_the_total() {
    let layer = || TerseLayer::new().resource::<Event>("/items");
    let cases = [
        (json!(events(1)), "1 event", None),
        (json!({"data": events(3)}), "3 events", None),
        (json!({"data": events(0)}), "0 events", None),
        (
            json!({"data": events(20), "meta": {"total": 57, "limit": 20, "offset": 0}}),
            "20 of 57 events",
            Some(json!({"total": 57, "limit": 20, "offset": 0, "has_more": true})),
        ),
        (
            json!({"data": events(17), "meta": {"total": 57, "limit": 20, "offset": 40}}),
            "17 of 57 events",
            Some(json!({"total": 57, "limit": 20, "offset": 40, "has_more": false})),
        ),
        (
            json!({"data": events(3), "meta": {"total": 3}}),
            "3 events",
            Some(json!({"total": 3, "has_more": false})),
        ),
        (
            json!({"results": events(2), "total_count": 9, "page": 2, "per_page": 2}),
            "2 of 9 events",
            Some(json!({"total_count": 9, "page": 2, "per_page": 2, "has_more": true})),
        ),
        (
            json!({"data": events(2), "meta": {"next_cursor": "abc"}}),
            "2 events",
            Some(json!({"next_cursor": "abc", "has_more": true})),
        ),
        (
            json!({"results": events(2), "count": 57, "next": null, "previous": "/p"}),
            "2 of 57 events",
            Some(json!({"count": 57, "next": null, "previous": "/p", "has_more": false})),
        ),
        (
            json!({"data": events(2), "meta": {"total": 57, "has_more": false}}),
            "2 of 57 events",
            Some(json!({"total": 57, "has_more": false})),
        ),
    ];
    for (body, summary, meta) in cases {
        let out = envelope(body.clone(), layer()).await;
        assert_eq!(out["summary"], summary, "{body}");
        assert_eq!(out.get("meta"), meta.as_ref(), "{body}");
    }
}

#[tokio::test]
async fn ids_are_in_the_order_of_the_lines() {
    let body = json!({"data": [
        {"id": "evt_c", "title": "Third"},
        {"id": "evt_a", "title": "First"},
        {"id": "evt_b", "title": "Second"},
    ]});
    let out = envelope(body.clone(), TerseLayer::new().resource::<Event>("/items")).await;
    let keys: Vec<&str> = out
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["format", "summary", "lines", "ids"]);
    for (i, record) in body["data"].as_array().unwrap().iter().enumerate() {
        assert_eq!(out["ids"][i], record["id"]);
        assert_eq!(out["lines"][i], record["title"]);
    }
    // Numeric ids stay numbers.
    let rows = CompactResource::new("row", Template::parse("{n}").unwrap());
    let out = envelope(
        json!([{"id": 30, "n": "c"}, {"id": 1, "n": "a"}]),
        TerseLayer::new().compact_resource("/items", rows),
    )
    .await;
    assert_eq!(out["ids"], json!([30, 1]));
    assert_eq!(out["lines"], json!(["c", "a"]));
}

#[tokio::test]
async fn records_with_keys_in_any_order_read_the_same() {
    // The renderer looks for a field first where it stood in the record
    // before; records that move, drop or nest their keys must not fool it.
    let data = json!([
        {"id": 1, "title": "Plan", "room": "A", "tags": ["x"]},
        {"tags": [], "room": "B", "title": "Review", "id": 2},
        {"id": 3, "meta": {"title": "nested", "room": "Z"}, "title": "Retro"},
        {"id": 4, "room": "C\nD", "title": "say \"hi\""},
        {"id": 5, "title": "Plan", "room": "A", "tags": ["x"]},
    ]);
    let expected = [
        "Plan @A x",
        "Review @B",
        "Retro",
        "say \"hi\" @C\\nD",
        "Plan @A x",
    ];
    let template = Template::parse("{title}{? @{room}}{? {tags|join(/)}}").unwrap();
    let layer = TerseLayer::new().compact_resource("/items", CompactResource::new("row", template));
    let server = TestServer::spawn(serving(json!({ "data": data }), layer)).await;
    // Twice: the second request starts from where the first left its fields.
    for _ in 0..2 {
        let response = raw_client()
            .get(server.url("/items?format=compact"))
            .send()
            .await
            .unwrap();
        let out: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(out["lines"], json!(expected));
        assert_eq!(out["ids"], json!([1, 2, 3, 4, 5]));
    }
}
