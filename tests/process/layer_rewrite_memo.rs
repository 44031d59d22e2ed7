//! The rewrite memo: a response whose body bytes and rendering inputs
//! equal a recent one's is answered from the memo, with exactly the bytes
//! and headers the rewrite gives, and never for another input.
//!
//! Whether a request rendered is read from the layer's counters
//! (`terse_rewrite_memo_hits_total`, `terse_rewrite_memo_misses_total`),
//! which are process-wide: the test holds the process alone
//! (`reports::install`) and runs its parts one after the other.

use std::collections::HashMap;
use std::time::Duration;

use axum::extract::Query;
use axum::routing::get;
use axum::{Router, response::IntoResponse};
use serde_json::{Value, json};
use terse_tests::held_slot::hold_slot;
use terse_tests::reports::Counters;
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;
use tower_terse::compact::{CompactResource, Template};
use tower_terse::settings::{BlockingLimit, MemoryBudget};

/// Flat uniform rows: TOON wins clearly.
fn rows(count: usize) -> String {
    let rows: Vec<Value> = (0..count)
        .map(|i| {
            json!({"id": i, "name": format!("user {i}"), "email": format!("user{i}@example.com"),
                   "active": i % 3 != 0, "score": (i * 17 % 1000) as f64 / 10.0})
        })
        .collect();
    json!({ "data": rows }).to_string()
}

/// `body` with one digit in its middle changed: the same length, another
/// document.
fn one_byte_changed(body: &str) -> String {
    let mut bytes = body.as_bytes().to_vec();
    let at = (bytes.len() / 2..bytes.len())
        .find(|&i| bytes[i].is_ascii_digit())
        .expect("a digit past the middle");
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    String::from_utf8(bytes).expect("UTF-8")
}

/// `/rows` serves the rows, `?variant=byte` with one byte changed and
/// `?type=vnd` as `application/vnd.api+json` (parameters the layer does not
/// read); `/rows2` the same rows at another path; `/nested` JSON the smart
/// fallback keeps.
fn routes(body: String) -> Router {
    let changed = one_byte_changed(&body);
    let rows = move |Query(query): Query<HashMap<String, String>>| {
        let text = match query.get("variant").map(String::as_str) {
            Some("byte") => changed.clone(),
            _ => body.clone(),
        };
        let content_type = match query.get("type").map(String::as_str) {
            Some("vnd") => "application/vnd.api+json",
            _ => "application/json",
        };
        async move { ([("content-type", content_type), ("etag", "\"v1\"")], text).into_response() }
    };
    Router::new()
        .route("/rows", get(rows.clone()))
        .route("/rows2", get(rows))
        .route(
            "/nested",
            get(|| async {
                (
                    [("content-type", "application/json")],
                    json!([[[[1, 2]]], [[[3]]]]).to_string(),
                )
            }),
        )
}

fn layer() -> TerseLayer {
    let rows = CompactResource::new(
        "row",
        Template::parse("{name} <{email}>").expect("template"),
    );
    TerseLayer::new().compact_resource("/rows", rows)
}

/// Status, headers (but `date`) and body, to compare answers whole.
#[derive(Debug, PartialEq)]
struct Seen {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

async fn fetch(server: &TestServer, method: &str, path: &str, headers: &[(&str, &str)]) -> Seen {
    let mut request = raw_client().request(method.parse().expect("method"), server.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| *name != "date")
        .map(|(name, value)| {
            let value = value.to_str().expect("ASCII header").to_owned();
            (name.as_str().to_owned(), value)
        })
        .collect();
    headers.sort();
    let body = response.text().await.expect("body");
    Seen {
        status,
        headers,
        body,
    }
}

/// The memo's counters now: (hits, misses).
fn counts(counters: &Counters) -> (u64, u64) {
    (
        counters.get("terse_rewrite_memo_hits_total{}"),
        counters.get("terse_rewrite_memo_misses_total{}"),
    )
}

/// Runs `request` and says how the memo's counters moved: (hits, misses).
async fn moved<T>(counters: &Counters, request: impl Future<Output = T>) -> (T, (u64, u64)) {
    let before = counts(counters);
    let out = request.await;
    let after = counts(counters);
    (out, (after.0 - before.0, after.1 - before.1))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rewrite_memo() {
    let (_alone, counters, _events) = terse_tests::reports::install().await;
    let body = rows(120);
    let server = TestServer::spawn(routes(body.clone()).layer(layer())).await;
    // The same routes without a memo: what every answer must be.
    let reference =
        TestServer::spawn(routes(body.clone()).layer(layer().rewrite_memo_bytes(0))).await;

    a_hit_is_the_miss_again(&counters, &server, &reference).await;
    every_input_changed_is_a_miss(&counters, &server, &reference).await;
    credentials_partition_the_memo(&counters, &server, &reference).await;
    no_memo_renders_every_request(&counters, &reference).await;
    busy_answers_are_not_kept(&counters, &body).await;
    the_memo_gives_way_to_rewrites(&counters, &body).await;
}

/// For TOON, compact lines, a JSON kept by the smart fallback, `fields`,
/// a plain JSON counted, and `HEAD` after `GET`: the second answer is the memo's, byte for byte
/// and header for header the first's, and the reference's.
async fn a_hit_is_the_miss_again(counters: &Counters, server: &TestServer, reference: &TestServer) {
    for (path, format) in [
        ("/rows?format=toon", "toon"),
        ("/rows?format=compact", "compact"),
        ("/nested?format=toon", "json; fallback=not-cheaper"),
        ("/rows?fields=id,name", "json"),
        // Not rewritten, but counted: the count is kept.
        ("/rows", "json"),
    ] {
        let (first, (hits, misses)) = moved(counters, fetch(server, "GET", path, &[])).await;
        assert_eq!((hits, misses), (0, 1), "{path}: the first read renders");
        assert_eq!(first.header("x-response-format"), format, "{path}");
        assert!(!first.header("x-token-count").is_empty(), "{path}");
        let (second, (hits, misses)) = moved(counters, fetch(server, "GET", path, &[])).await;
        assert_eq!(
            (hits, misses),
            (1, 0),
            "{path}: the second read is the memo's"
        );
        assert_eq!(second, first, "{path}");
        assert_eq!(first, fetch(reference, "GET", path, &[]).await, "{path}");
        let (head, (hits, misses)) = moved(counters, fetch(server, "HEAD", path, &[])).await;
        assert_eq!((hits, misses), (1, 0), "{path}: HEAD shares GET's entry");
        assert_eq!(
            head.headers, first.headers,
            "{path}: HEAD's headers are GET's"
        );
        assert!(head.body.is_empty());
    }
    // The ETag is relabelled per representation, on a hit as on a miss.
    let toon = fetch(server, "GET", "/rows?format=toon", &[]).await;
    assert_ne!(toon.header("etag"), "\"v1\"");
    assert!(!toon.header("etag").is_empty());
}

/// Each input of the rendering changed alone (format, fields, path,
/// content type, one byte of the body) misses, and answers as without a
/// memo.
async fn every_input_changed_is_a_miss(
    counters: &Counters,
    server: &TestServer,
    reference: &TestServer,
) {
    // Kept by the parts before.
    let (_, (hits, _)) = moved(counters, fetch(server, "GET", "/rows?format=toon", &[])).await;
    assert_eq!(hits, 1);
    for path in [
        // Format.
        "/rows?format=toon&fields=id",
        // Another `fields` list.
        "/rows?fields=id,email",
        // Another route, same body.
        "/rows2?format=toon",
        // Another content type, same body and path.
        "/rows?format=toon&type=vnd",
        // One byte in the middle, same length.
        "/rows?format=toon&variant=byte",
    ] {
        let (seen, (hits, misses)) = moved(counters, fetch(server, "GET", path, &[])).await;
        assert_eq!((hits, misses), (0, 1), "{path}: a miss");
        assert_eq!(seen, fetch(reference, "GET", path, &[]).await, "{path}");
        let (again, (hits, _)) = moved(counters, fetch(server, "GET", path, &[])).await;
        assert_eq!(hits, 1, "{path}: then kept");
        assert_eq!(again, seen, "{path}");
    }
    let changed = fetch(server, "GET", "/rows?format=toon&variant=byte", &[]).await;
    let unchanged = fetch(server, "GET", "/rows?format=toon", &[]).await;
    assert_ne!(changed.body, unchanged.body, "the changed byte shows");
    assert_eq!(changed.body.len(), unchanged.body.len());
}

/// Another `Authorization`, `Cookie` or `Proxy-Authorization` misses; the
/// same hits.
async fn credentials_partition_the_memo(
    counters: &Counters,
    server: &TestServer,
    reference: &TestServer,
) {
    let path = "/rows?format=compact";
    for credentials in [
        [("authorization", "Bearer alice")],
        [("authorization", "Bearer bob")],
        [("cookie", "session=alice")],
        [("cookie", "session=bob")],
        [("proxy-authorization", "Basic YTpi")],
    ] {
        let (seen, (hits, misses)) =
            moved(counters, fetch(server, "GET", path, &credentials)).await;
        assert_eq!((hits, misses), (0, 1), "{credentials:?}: its own partition");
        assert_eq!(seen, fetch(reference, "GET", path, &credentials).await);
        let (again, (hits, misses)) =
            moved(counters, fetch(server, "GET", path, &credentials)).await;
        assert_eq!(
            (hits, misses),
            (1, 0),
            "{credentials:?}: the same credentials hit"
        );
        assert_eq!(again, seen);
    }
}

/// `rewrite_memo_bytes = 0`: nothing is looked up, every request renders.
async fn no_memo_renders_every_request(counters: &Counters, reference: &TestServer) {
    for _ in 0..3 {
        let (seen, moved) =
            moved(counters, fetch(reference, "GET", "/rows?format=toon", &[])).await;
        assert_eq!(moved, (0, 0));
        assert_eq!(seen.header("x-response-format"), "toon");
    }
}

/// An answer that went out unchanged because the blocking pool was busy
/// is not kept: once the pool is free, the same request is rewritten.
async fn busy_answers_are_not_kept(counters: &Counters, body: &str) {
    let limit = BlockingLimit::new(1).with_wait(Duration::ZERO);
    // Every rewrite goes to the pool.
    let server = TestServer::spawn(
        routes(body.to_owned()).layer(layer().blocking_limit(limit.clone()).offload_threshold(0)),
    )
    .await;
    // Hold the limit's one slot.
    let held = hold_slot(&limit).await;
    let path = "/rows?format=toon";
    let (busy, (hits, misses)) = moved(counters, fetch(&server, "GET", path, &[])).await;
    assert_eq!(busy.header("x-response-format"), "json; fallback=busy");
    assert_eq!((hits, misses), (0, 1));
    let (still, (hits, misses)) = moved(counters, fetch(&server, "GET", path, &[])).await;
    assert_eq!((hits, misses), (0, 1), "the busy answer was not kept");
    assert_eq!(still.header("x-response-format"), "json; fallback=busy");
    held.release().await;
    let (toon, (hits, misses)) = moved(counters, fetch(&server, "GET", path, &[])).await;
    assert_eq!((hits, misses), (0, 1));
    assert_eq!(toon.header("x-response-format"), "toon");
    let (again, (hits, _)) = moved(counters, fetch(&server, "GET", path, &[])).await;
    assert_eq!(hits, 1);
    assert_eq!(again, toon);
}

/// With a budget that holds one rewrite and little more, the memo keeps
/// what fits and gives it back to each rewrite: no rewrite is refused
/// that is not refused without the memo.
async fn the_memo_gives_way_to_rewrites(counters: &Counters, body: &str) {
    let paths = [
        "/rows?format=toon",
        "/rows?format=compact",
        "/rows2?format=toon",
        "/rows?format=toon&variant=byte",
        "/rows?fields=id",
    ];
    // What the largest of these rewrites holds at most, without a memo.
    let probe = MemoryBudget::default();
    let server = TestServer::spawn(
        routes(body.to_owned()).layer(layer().rewrite_memo_bytes(0).memory_budget(probe.clone())),
    )
    .await;
    for path in paths {
        fetch(&server, "GET", path, &[]).await;
    }
    let one = probe.peak();
    assert!(one > body.len(), "a rewrite holds its body and more: {one}");
    drop(server);

    // Room for the largest rewrite and a few KB, where the memo keeps what
    // the TOON rewrites leave spare and compact lines take it back; and
    // room for two, where it keeps more.
    for limit in [one + one / 32, 2 * one] {
        let (with_memo, without) = (MemoryBudget::new(limit), MemoryBudget::new(limit));
        let server = TestServer::spawn(
            routes(body.to_owned()).layer(layer().memory_budget(with_memo.clone())),
        )
        .await;
        let reference = TestServer::spawn(
            routes(body.to_owned())
                .layer(layer().rewrite_memo_bytes(0).memory_budget(without.clone())),
        )
        .await;
        let mut hits = 0;
        for _ in 0..2 {
            for path in paths {
                let before = counts(counters).0;
                let seen = fetch(&server, "GET", path, &[]).await;
                hits += counts(counters).0 - before;
                assert_eq!(seen, fetch(&reference, "GET", path, &[]).await, "{path}");
                assert_ne!(seen.header("x-response-format"), "json; fallback=budget");
            }
        }
        assert_eq!((with_memo.refused(), without.refused()), (0, 0), "{limit}");
        eprintln!("one rewrite holds {one} bytes; {hits} hits under a budget of {limit}");
        if limit == 2 * one {
            assert!(hits > 0, "the memo keeps what fits under the budget");
        }
    }
}
