//! The blocking pool's slots, waits and cancellation, through the rendering.

use super::*;
use std::future::poll_fn;
use std::sync::atomic::AtomicBool;

#[tokio::test]
async fn a_rewrite_without_a_slot_waits_then_is_counted_busy() {
    let limit = BlockingLimit::new(1).with_wait(Duration::from_millis(10));
    let held = limit.try_slot().expect("one free slot");
    assert!(limit.try_slot().is_none());
    let mut waiting = limit.slot();
    assert!(poll_fn(|cx| waiting.poll(cx)).await.is_none());
    assert_eq!(limit.busy(), 1);
    // Past its wait a rewrite gives up its place in the queue: the slot
    // freed next goes to the rewrite that asks after it.
    drop(held);
    let mut waiting = limit.slot();
    assert!(poll_fn(|cx| waiting.poll(cx)).await.is_some());
    assert_eq!(limit.busy(), 1);
}

#[test]
fn a_job_dropped_before_it_starts_never_runs() {
    // One blocking thread, held by `blocker` until the job is dropped:
    // the job is queued behind it, and finds itself cancelled.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let limit = BlockingLimit::new(1);
    let ran = Arc::new(AtomicBool::new(false));
    let seen = ran.clone();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let blocker = runtime.spawn_blocking(move || released.recv());
    let slot = limit.try_slot().expect("slot");
    let running = slot.spawn(runtime.handle(), move |_| {
        seen.store(true, Ordering::SeqCst)
    });
    drop(running);
    release.send(()).expect("release");
    runtime.block_on(async {
        blocker.await.expect("blocker").expect("released");
        // The slot comes back once the skipped job has returned.
        let mut waiting = limit.clone().with_wait(Duration::from_secs(60)).slot();
        assert!(poll_fn(|cx| waiting.poll(cx)).await.is_some());
    });
    assert!(!ran.load(Ordering::SeqCst));
}

/// A runtime of two workers and its blocking pool.
fn two_workers() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Waits until a slot of `limit` is free, and takes it.
fn slot_comes_back(runtime: &tokio::runtime::Runtime, limit: &BlockingLimit) {
    runtime.block_on(async {
        let mut waiting = limit.clone().with_wait(Duration::from_secs(600)).slot();
        assert!(poll_fn(|cx| waiting.poll(cx)).await.is_some());
    });
}

#[test]
fn a_job_whose_client_has_gone_stops_at_its_next_check_and_frees_its_slot() {
    let runtime = two_workers();
    let limit = BlockingLimit::new(1);
    let (started, has_started) = std::sync::mpsc::channel();
    let slot = limit.try_slot().expect("slot");
    // Work in chunks for as long as its client is there: without the
    // check it would never end, and its slot never come back.
    let running = slot.spawn(runtime.handle(), move |_| {
        started.send(()).expect("started");
        let mut chunks = 0u64;
        while !cancelled() {
            chunks = std::hint::black_box(chunks + 1);
        }
        chunks
    });
    has_started.recv().expect("the job runs");
    assert_eq!(limit.available(), 0);
    drop(running);
    slot_comes_back(&runtime, &limit);
    // The flag was the job's, not the thread's: the pool's next job on
    // the same threads starts with its client there.
    let slot = limit.try_slot().expect("slot");
    let mut running = slot.spawn(runtime.handle(), |_| cancelled());
    let gone = runtime.block_on(poll_fn(|cx| running.poll(cx)));
    assert_eq!(gone, Some(false));
}

#[test]
fn a_rewrite_whose_client_has_gone_stops_before_it_encodes_or_counts() {
    use crate::format::Format;
    use crate::render::settings::test_settings;
    use crate::render::{Fallback, RenderPlan, render};

    let runtime = two_workers();
    let limit = BlockingLimit::new(1);
    let (release, released) = std::sync::mpsc::channel::<()>();
    let slot = limit.try_slot().expect("slot");
    let body = br#"[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"}]"#;
    let (done, rendered) = std::sync::mpsc::channel();
    let (started, has_started) = std::sync::mpsc::channel();
    let running = slot.spawn(runtime.handle(), move |_| {
        // The client goes away while the job runs.
        started.send(()).expect("started");
        released.recv().expect("released");
        let options = crate::toon::EncodeOptions::default();
        let outcome = render(
            body,
            None,
            &RenderPlan::new(Format::Toon, true),
            &test_settings(&options),
        );
        done.send((outcome.body, outcome.outcome)).expect("send");
    });
    has_started.recv().expect("the job runs");
    drop(running);
    release.send(()).expect("release");
    let (body, outcome) = rendered.recv().expect("rendered");
    assert_eq!(body, None, "nothing written");
    assert_eq!(outcome.fallback, Some(Fallback::Gone));
    assert_eq!(outcome.tokens, None, "nothing counted");
    slot_comes_back(&runtime, &limit);
}
