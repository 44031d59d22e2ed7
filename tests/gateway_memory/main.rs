//! The gateway's memory budget covers what the gateway holds: under a
//! load of large rewrites that the budget cannot all take, the bytes this
//! process holds (counted by a global allocator) grow by no more than the
//! most the budget had reserved, and a bounded few buffers per connection
//! for what streams through unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Body;
use axum::response::Response;
use axum::routing::get;
use bytes::Bytes;
use serde_json::{Value, json};
use terse_gateway::Config;
use terse_tests::server::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The bytes this process holds, and the most it held since the last reset.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; the counting
// touches only atomics, which never allocate.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

const BUDGET: usize = 16 << 20;
const CLIENTS: usize = 16;
const REQUESTS: usize = 4;

/// What a connection may hold outside the budget while a response streams
/// through unchanged: the upstream connection's read-ahead (64 KiB) and the
/// frames in transit, the client connection's buffers, the request's head.
const PER_CONNECTION: usize = 512 << 10;

/// A raw HTTP/1.1 GET read to the end into one small buffer, so that the
/// clients hold next to nothing; the bytes read.
async fn fetch(addr: std::net::SocketAddr, path: &str) -> usize {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut buffer = [0u8; 16 << 10];
    let mut read = 0;
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return read,
            Ok(n) => read += n,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_gateway_holds_stays_within_its_budget() {
    // About 1 MB of JSON a body: 16 clients asking it as TOON want far
    // more than 16 MiB of bodies and renderings at once.
    let rows: Vec<Value> = (0..10_000)
        .map(|i| json!({"id": i, "name": format!("user {i:08}"), "email": format!("u{i}@example.com"), "active": i % 2 == 0}))
        .collect();
    let big = Bytes::from(serde_json::to_vec(&rows).expect("JSON"));
    drop(rows);
    let router = Router::new().route(
        "/big",
        get(move || {
            let big = big.clone();
            async move {
                Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from(big))
                    .expect("response")
            }
        }),
    );
    let up = TestServer::spawn(router).await;
    let config = Config::parse(
        "memory.toml",
        &format!("[gateway]\nmax_buffered_bytes = {BUDGET}\n"),
    )
    .expect("config");
    let service = config.gateway(config.upstream(&up.url("")).expect("upstream"));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let server = tokio::spawn(terse_gateway::serve(
        listener,
        service,
        config.server_options(),
        std::future::pending(),
    ));
    let budget = config.memory_budget().clone();
    // Warm: the pools, the runtime's threads, the first rewrite's tables.
    assert!(fetch(addr, "/big?format=toon").await > 0);

    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            tokio::spawn(async move {
                let mut read = 0;
                for _ in 0..REQUESTS {
                    read += fetch(addr, "/big?format=toon").await;
                }
                read
            })
        })
        .collect();
    for client in clients {
        assert!(client.await.expect("client") > 0);
    }
    let grown = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    server.abort();

    assert!(budget.refused() > 0, "the load passed the budget");
    let reserved = budget.peak();
    assert!(reserved <= BUDGET, "{reserved} bytes reserved");
    let bound = reserved + reserved / 4 + CLIENTS * PER_CONNECTION;
    eprintln!(
        "grew {} KiB; reserved {} KiB at the most; {} refusals",
        grown >> 10,
        reserved >> 10,
        budget.refused()
    );
    assert!(
        grown <= bound,
        "the process grew {} KiB under the load; the budget reserved {} KiB at the most (bound {} KiB)",
        grown >> 10,
        reserved >> 10,
        bound >> 10
    );
}
