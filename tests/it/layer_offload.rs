//! A body whose frames keep coming ready (a decompressing gzip bomb, a
//! large answer already in the socket buffer) is CPU work for the layer
//! that reads it. Past `offload_threshold` bytes in one go, the layer reads
//! the rest where the runtime lets it block, so the other connections of
//! its worker are served meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::body::Body;
use axum::{Json, Router, routing::get};
use bytes::Bytes;
use serde_json::{Value, json};
use terse_tests::bomb::deep_records;
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;

/// How many frames the big body has, each of `FRAME` bytes: about 96 MiB,
/// every frame ready at once.
const FRAMES: usize = 3 * 1024;
const FRAME: usize = 32 * 1024;

/// The big body's progress, shared with the small route.
#[derive(Default)]
struct Progress {
    frames: AtomicUsize,
    done: AtomicBool,
}

/// One frame of the list `[0,0,…,0]`: `[` first, `]` last.
fn frame(index: usize) -> Bytes {
    let mut text = "0,".repeat(FRAME / 2);
    if index == 0 {
        text.replace_range(0..1, "[");
    }
    if index + 1 == FRAMES {
        text.pop();
        text.push(']');
    }
    Bytes::from(text)
}

fn app(progress: Arc<Progress>, layer: TerseLayer) -> Router {
    let big = {
        let progress = progress.clone();
        move || {
            let progress = progress.clone();
            async move {
                let frames = futures_util::stream::iter((0..FRAMES).map(move |index| {
                    progress.frames.fetch_add(1, Ordering::SeqCst);
                    if index + 1 == FRAMES {
                        progress.done.store(true, Ordering::SeqCst);
                    }
                    Ok::<_, std::convert::Infallible>(frame(index))
                }));
                axum::response::Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from_stream(frames))
                    .expect("response")
            }
        }
    };
    let small = move || {
        let progress = progress.clone();
        async move {
            Json(json!({
                "frames_read": progress.frames.load(Ordering::SeqCst),
                "big_done": progress.done.load(Ordering::SeqCst),
            }))
        }
    };
    Router::new()
        .route("/big", get(big))
        .route("/small", get(small))
        .layer(layer)
}

/// Serves `app` on a one-worker multi-thread runtime, asks `/big` as TOON
/// and, once the layer is reading it, `/small` from another thread: what
/// `/small` saw of the big body's progress.
fn small_while_big_is_read(layer: TerseLayer) -> Value {
    let progress = Arc::new(Progress::default());
    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("server runtime");
    let server = server_runtime.block_on(TestServer::spawn(app(progress.clone(), layer)));
    let (big_url, small_url) = (server.url("/big?format=toon"), server.url("/small"));
    let client_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");
    client_runtime.block_on(async move {
        let big =
            tokio::spawn(async move { raw_client().get(big_url).send().await?.bytes().await });
        // The layer has started reading: the first frames are out.
        while progress.frames.load(Ordering::SeqCst) < 8 {
            tokio::task::yield_now().await;
        }
        let small = raw_client()
            .get(small_url)
            .send()
            .await
            .expect("small")
            .bytes()
            .await
            .expect("small body");
        let seen: Value = serde_json::from_slice(&small).expect("JSON");
        big.await.expect("task").expect("big body");
        seen
    })
}

#[test]
fn a_body_read_past_the_threshold_leaves_the_worker_to_other_connections() {
    let seen = small_while_big_is_read(TerseLayer::new().max_body_bytes(128 << 20));
    assert_eq!(
        seen["big_done"], false,
        "/small was served while the big body was still being read: {seen}"
    );
}

#[test]
fn without_offloading_the_reading_worker_serves_nobody_else() {
    // The control: read on the worker (threshold past the body), the one
    // worker answers `/small` only once the big body is read whole, which
    // shows the first test measures what it claims.
    let layer = TerseLayer::new()
        .max_body_bytes(128 << 20)
        .offload_threshold(usize::MAX);
    let seen = small_while_big_is_read(layer);
    assert_eq!(seen["big_done"], true, "{seen}");
}

/// Serves `/deep` (a costly rewrite) and `/small` behind `layer`.
async fn costly_app(layer: TerseLayer) -> TestServer {
    let deep: &'static str = Box::leak(deep_records(40, 20_000).into_boxed_str());
    let small = || async { Json(json!([{"id": 1, "name": "small"}, {"id": 2, "name": "small"}])) };
    let deep = move || async move {
        axum::response::Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(deep))
            .expect("response")
    };
    TestServer::spawn(
        Router::new()
            .route("/deep", get(deep))
            .route("/small", get(small))
            .layer(layer),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewrite_with_no_slot_in_time_goes_out_unchanged_and_is_counted() {
    // One slot, no wait, and every rewrite off the workers: while `/deep`
    // renders, `/small` finds the slot taken.
    let limit = tower_terse::settings::BlockingLimit::new(1).with_wait(std::time::Duration::ZERO);
    let layer = TerseLayer::new()
        .offload_threshold(0)
        .smart_fallback(false)
        .blocking_limit(limit.clone());
    let server = costly_app(layer).await;
    let deep_url = server.url("/deep?format=toon");
    let deep = tokio::spawn(async move { raw_client().get(deep_url).send().await?.text().await });
    while limit.available() > 0 {
        tokio::task::yield_now().await;
    }
    // The costly request may take the slot more than once (to read its
    // body, then to render it), and a small request can slip into the gap:
    // ask until one finds the slot taken, while the costly one is in flight.
    let (mut unchanged, mut rewritten) = (0, 0);
    while unchanged == 0 && !deep.is_finished() {
        let answer =
            terse_tests::server::answer(raw_client().get(server.url("/small?format=toon"))).await;
        assert_eq!(answer.status, 200);
        if answer.is_toon() {
            rewritten += 1;
            continue;
        }
        assert_eq!(answer.content_type, "application/json", "{answer:?}");
        let sent: Value = serde_json::from_str(&answer.body).expect("the JSON, whole");
        assert_eq!(sent[1]["name"], "small");
        assert!(
            answer.token_count.is_some() && answer.vary.is_some(),
            "{answer:?}"
        );
        unchanged += 1;
    }
    assert_eq!(
        unchanged, 1,
        "no small request found the slot taken while the costly one ran ({rewritten} rewritten)"
    );
    assert_eq!(limit.busy(), 1);
    let deep = deep.await.expect("task").expect("deep body");
    assert!(
        deep.contains("level: 39"),
        "the costly rewrite ran: {}",
        &deep[..80]
    );
    // With the slot free again, the same request is rewritten.
    let rewritten =
        terse_tests::server::answer(raw_client().get(server.url("/small?format=toon"))).await;
    assert!(rewritten.is_toon(), "{rewritten:?}");
    assert_eq!(limit.busy(), 1);
}
