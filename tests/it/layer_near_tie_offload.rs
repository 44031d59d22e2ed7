//! Where the smart fallback's work runs. Parsing and encoding a body costs
//! in proportion to the body and its output; counting both renderings
//! exactly, which only a near tie needs, costs several times more. So a
//! rewrite runs on the async worker when its encoding is cheap enough, and
//! only a near tie whose exact counts would take it past
//! `offload_threshold` leaves for the blocking pool, under the
//! `BlockingLimit`, to be settled there.
//!
//! Observed through the limit: with its one slot held and no wait, what
//! needs the pool goes out unchanged (`fallback=busy`) and is counted,
//! what does not is rewritten on the worker.

use axum::Router;
use axum::routing::get;
use std::time::Duration;
use terse_tests::held_slot::hold_slot;
use terse_tests::near_tie::{RECORD, checked_toon, orders, rows, toon_of};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;
use tower_terse::settings::BlockingLimit;
use tower_terse::tokens::{Counting, choose, exact};

/// What `?format=toon` answered.
struct Seen {
    body: String,
    response_format: String,
    token_count: usize,
}

async fn toon(server: &TestServer, path: &str) -> Seen {
    let response = raw_client()
        .get(server.url(&format!("{path}?format=toon")))
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), 200);
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let response_format = header("x-response-format");
    let token_count = header("x-token-count").parse().expect("X-Token-Count");
    Seen {
        body: response.text().await.expect("body"),
        response_format,
        token_count,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn only_a_near_tie_costing_too_much_to_count_here_leaves_the_worker() {
    let (orders, rows) = (orders(150), rows(400));
    // The documents are what they are meant to be.
    let (orders_toon, rows_toon) = checked_toon(&orders, &rows);
    let record_choice = choose(RECORD, &toon_of(RECORD), Counting::Estimate);

    let limit = BlockingLimit::new(1).with_wait(Duration::ZERO);
    let layer = TerseLayer::new().blocking_limit(limit.clone());
    let body = |text: String| {
        move || {
            let text = text.clone();
            async move { ([("content-type", "application/json")], text) }
        }
    };
    let server = TestServer::spawn(
        Router::new()
            .route("/orders", get(body(orders.clone())))
            .route("/rows", get(body(rows.clone())))
            .route("/record", get(body(RECORD.to_owned())))
            .layer(layer),
    )
    .await;

    // Hold the limit's one slot.
    let held = hold_slot(&limit).await;

    // A clear win of 34 KB is rendered and decided on the worker: it
    // needed no slot.
    let seen = toon(&server, "/rows").await;
    assert!(seen.body == rows_toon, "not its TOON: {}", &seen.body[..80]);
    assert_eq!(limit.busy(), 0, "the clear win asked for a slot");

    // The near tie of 38 KB is encoded on the worker, but counting both
    // texts exactly is work for the pool, which has no slot: the JSON goes
    // out as it came, counted on the estimate.
    let seen = toon(&server, "/orders").await;
    assert!(seen.body == orders, "not the JSON: {}", &seen.body[..80]);
    assert_eq!(seen.response_format, "json; fallback=busy");
    assert_eq!(
        seen.token_count,
        tower_terse::tokens::estimate(orders.as_bytes())
    );
    assert_eq!(limit.busy(), 1);

    // A small near tie is settled exactly on the worker.
    let seen = toon(&server, "/record").await;
    assert_eq!(seen.token_count, record_choice.served_tokens());
    assert!(
        !seen.response_format.contains("busy"),
        "{}",
        seen.response_format
    );
    assert_eq!(limit.busy(), 1);

    // With the slot free, the near tie is settled off the worker: the text
    // with fewer exact tokens, and the count `choose` settled it on (exact
    // when both texts were counted whole; a tie this long may be decided
    // before that, on the exact counts of their first slices and the
    // estimates of the rest).
    held.release().await;
    let seen = toon(&server, "/orders").await;
    let (json_tokens, toon_tokens) = (exact(&orders), exact(&orders_toon));
    let settled = choose(&orders, &orders_toon, Counting::Estimate);
    assert!(settled.decided_exactly, "{settled:?}");
    assert_eq!(seen.token_count, settled.served_tokens());
    if settled.exact {
        assert_eq!(
            (settled.json_tokens, settled.toon_tokens.min(json_tokens)),
            (json_tokens, toon_tokens.min(json_tokens))
        );
    }
    if toon_tokens < json_tokens {
        assert!(
            seen.body == orders_toon,
            "not the TOON: {}",
            &seen.body[..80]
        );
    } else {
        assert!(seen.body == orders, "not the JSON: {}", &seen.body[..80]);
        assert_eq!(seen.response_format, "json; fallback=not-cheaper");
    }
    assert_eq!(limit.busy(), 1);
}
