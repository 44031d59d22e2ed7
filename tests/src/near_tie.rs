//! Documents whose TOON and JSON are a near tie of the smart fallback, or a
//! clear TOON win, for the tests of where its work runs (HTTP and MCP).

use serde_json::{Value, json};
use tower_terse::tokens::{Counting, Served, choose};

/// Orders with a nested customer and an items table: TOON and JSON are
/// within a few percent, a near tie.
pub fn orders(count: usize) -> String {
    let words = ["Maple", "River", "Stone", "Orbit", "Harbor", "Delta"];
    let statuses = ["paid", "shipped", "pending", "refunded"];
    let data: Vec<Value> = (0..count)
        .map(|i| {
            json!({
                "id": format!("ord_{i:05}"),
                "status": statuses[i % 4],
                "customer": {
                    "id": 1000 + i * 7,
                    "name": format!("{} {}", words[i % 6], words[(i / 6) % 6]),
                    "address": {"city": words[(i * 5) % 6], "zip": format!("{}", 10000 + i * 37)},
                },
                "items": (0..1 + i % 3)
                    .map(|j| json!({"sku": format!("SKU-{}", 100 + (i * 13 + j) % 900), "qty": 1 + j, "price": (i * 7 + j) as f64 / 4.0}))
                    .collect::<Vec<_>>(),
                "total": (i * 11) as f64 / 8.0,
                "notes": if i % 3 == 0 { Value::Null } else { json!("leave at the door") },
            })
        })
        .collect();
    json!({"data": data, "total": count, "page": 1}).to_string()
}

/// Flat uniform rows: TOON wins clearly, decided on the estimates.
pub fn rows(count: usize) -> String {
    let rows: Vec<Value> = (0..count)
        .map(|i| {
            json!({"id": i, "name": format!("user {i}"), "email": format!("user{i}@example.com"),
                   "active": i % 3 != 0, "score": (i * 17 % 1000) as f64 / 10.0})
        })
        .collect();
    Value::Array(rows).to_string()
}

/// A small record whose TOON and JSON are a near tie.
pub const RECORD: &str = r#"{"id":"evt_1004","title":"Incident retro #142","start_at":"2026-03-02T15:00:00Z","end_at":"2026-03-02T16:00:00Z","location":"Room 4.12","organizer":"jonas@example.com","attendees":8,"status":"confirmed"}"#;

pub fn toon_of(json: &str) -> String {
    let value: Value = serde_json::from_str(json).expect("JSON");
    terse_toon::encode(&value, &terse_toon::EncodeOptions::default())
}

/// The TOON of `orders` and of `rows`, once the documents are what the
/// tests take them for: `orders` a near tie on the estimates, `rows` a
/// clear TOON win decided on them, and [`RECORD`] a near tie.
///
/// # Panics
///
/// When a document is not what it is meant to be.
pub fn checked_toon(orders: &str, rows: &str) -> (String, String) {
    let orders_toon = toon_of(orders);
    let tie = choose(orders, &orders_toon, Counting::Estimate);
    assert!(tie.decided_exactly, "orders: not a near tie: {tie:?}");
    let rows_toon = toon_of(rows);
    let clear = choose(rows, &rows_toon, Counting::Estimate);
    assert!(
        !clear.decided_exactly && clear.served == Served::Toon,
        "rows: not a clear TOON win: {clear:?}"
    );
    let record = choose(RECORD, &toon_of(RECORD), Counting::Estimate);
    assert!(record.decided_exactly, "record: {record:?}");
    (orders_toon, rows_toon)
}
