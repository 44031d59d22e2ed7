//! Floods of costly rewrites against `terse_gateway::serve` on loopback,
//! each measured by what it does to bystanders: small requests asked one
//! after another, their p99 latency quiet and then under the flood, in the
//! same run. The assertion is a ratio, never a wall-clock bound.
//!
//! The gateway runs on its own two-worker runtime (as on a two-core host),
//! the upstream and the clients on theirs, so that the clients' own work is
//! not charged to the gateway's workers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::response::Response;
use axum::routing::get;
use bytes::Bytes;
use serde_json::json;
use terse_gateway::Config;
use terse_tests::server::{TestServer, raw_client};
use tokio::net::TcpListener;

/// The floods measure the whole process: they run one at a time.
static PROCESS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// How many small requests each measurement takes.
const SAMPLES: usize = 200;

/// A runtime of `workers` threads, as a service would run.
fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime")
}

/// An object nested `depth` levels, about `bytes` long: at each level a
/// few scalars and the next level, then a list of small records at the
/// bottom. Its TOON indents every line of the deep part `depth` times.
fn deep(depth: usize, bytes: usize) -> Bytes {
    let rows = bytes / 40;
    let leaf: Vec<_> = (0..rows)
        .map(|i| json!({"id": i, "v": format!("x{i}"), "k": [i, i + 1]}))
        .collect();
    let mut value = json!({ "rows": leaf });
    for level in 0..depth {
        value = json!({ "level": level, "name": "n", "child": value, "tags": [{"a": level}, {"b": "c"}] });
    }
    Bytes::from(serde_json::to_vec(&value).expect("JSON"))
}

/// The upstream: `/small` and `/deep`.
fn upstream_router(deep: Bytes) -> Router {
    let serve = |body: Bytes| {
        move || {
            let body = body.clone();
            async move {
                Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from(body))
                    .expect("response")
            }
        }
    };
    Router::new()
        .route(
            "/small",
            get(|| async { axum::Json(json!({"id": 1, "name": "small"})) }),
        )
        .route("/deep", get(serve(deep)))
}

/// The gateway and the upstream, each on its own runtime.
struct Setup {
    gateway: SocketAddr,
    _runtimes: (tokio::runtime::Runtime, tokio::runtime::Runtime),
    _upstream: TestServer,
}

fn setup(config: &str, upstream: Router) -> Setup {
    let upstream_runtime = runtime(2);
    let up = upstream_runtime.block_on(TestServer::spawn(upstream));
    let config = Config::parse("cost.toml", config).expect("test config");
    let service = config.gateway(config.upstream(&up.url("")).expect("upstream URL"));
    let gateway_runtime = runtime(2);
    let listener = gateway_runtime
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let gateway = listener.local_addr().expect("address");
    gateway_runtime.spawn(terse_gateway::serve(
        listener,
        service,
        config.server_options(),
        std::future::pending(),
    ));
    Setup {
        gateway,
        _runtimes: (upstream_runtime, gateway_runtime),
        _upstream: up,
    }
}

/// The p99 of `SAMPLES` small requests, one after another.
async fn bystander_p99(url: &str) -> Duration {
    let client = raw_client();
    let mut latencies = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let started = Instant::now();
        let response = client.get(url).send().await.expect("small request");
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("small body");
        latencies.push(started.elapsed());
    }
    latencies.sort();
    latencies[SAMPLES * 99 / 100]
}

/// What a flood's requests got.
#[derive(Default)]
struct Served {
    answers: AtomicUsize,
    toon: AtomicUsize,
}

/// `clients` clients asking `url` with `method` over and over, each reading
/// the whole answer, until `stop`.
fn flood(
    clients: usize,
    method: reqwest::Method,
    url: String,
    stop: Arc<AtomicBool>,
    served: Arc<Served>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..clients)
        .map(|_| {
            let (method, url, stop, served) =
                (method.clone(), url.clone(), stop.clone(), served.clone());
            tokio::spawn(async move {
                let client = raw_client();
                while !stop.load(Ordering::Relaxed) {
                    let Ok(response) = client.request(method.clone(), &url).send().await else {
                        continue;
                    };
                    let toon = response
                        .headers()
                        .get("content-type")
                        .is_some_and(|t| t.as_bytes().starts_with(b"text/toon"));
                    if response.bytes().await.is_ok() {
                        served.answers.fetch_add(1, Ordering::Relaxed);
                        served.toon.fetch_add(usize::from(toon), Ordering::Relaxed);
                    }
                }
            })
        })
        .collect()
}

/// Bystander p99 quiet, then under `clients` clients flooding `path`:
/// both, and the ratio, printed; the ratio returned.
fn measure(name: &str, setup: &Setup, clients: usize, method: reqwest::Method, path: &str) -> f64 {
    let clients_runtime = runtime(2);
    let small = format!("http://{}/small", setup.gateway);
    let flood_url = format!("http://{}{path}", setup.gateway);
    clients_runtime.block_on(async {
        // Warm up: connections, the tokenizer, the first rewrites.
        bystander_p99(&small).await;
        let quiet = bystander_p99(&small).await;
        let stop = Arc::new(AtomicBool::new(false));
        let served = Arc::new(Served::default());
        let flooders = flood(clients, method, flood_url, stop.clone(), served.clone());
        // The flood is under way once its first answers are out.
        let started = Instant::now();
        while served.answers.load(Ordering::Relaxed) < clients
            && started.elapsed() < Duration::from_secs(20)
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let flooded = bystander_p99(&small).await;
        stop.store(true, Ordering::Relaxed);
        for flooder in flooders {
            flooder.abort();
        }
        let ratio = flooded.as_secs_f64() / quiet.as_secs_f64().max(1e-6);
        println!(
            "{name}: bystander p99 quiet {:.1} ms, under {clients} clients {:.1} ms (x{ratio:.1}); flood answers {} ({} as TOON)",
            quiet.as_secs_f64() * 1e3,
            flooded.as_secs_f64() * 1e3,
            served.answers.load(Ordering::Relaxed),
            served.toon.load(Ordering::Relaxed),
        );
        ratio
    })
}

/// How many times the quiet p99 a flood may make the bystanders' p99. The
/// flood takes the CPU the host has for its rewrites, and bystanders share
/// it; without a bound on that work they waited seconds (a ratio in the
/// hundreds).
const SMALL_MULTIPLE: f64 = 20.0;

const CONFIG: &str = "[layer]\nmax_body_bytes = 4194304\n";

fn deep_nesting_flood(method: reqwest::Method) -> f64 {
    let body = deep(60, 80 << 10);
    assert!(
        body.len() > 60 << 10 && body.len() < 120 << 10,
        "{}",
        body.len()
    );
    let setup = setup(CONFIG, upstream_router(body));
    let name = format!("deep nesting, {method} ?format=toon");
    measure(&name, &setup, 16, method, "/deep?format=toon")
}

#[test]
fn a_flood_of_deeply_nested_toon_leaves_small_requests_fast() {
    let _alone = PROCESS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ratio = deep_nesting_flood(reqwest::Method::GET);
    assert!(ratio < SMALL_MULTIPLE, "bystander p99 x{ratio:.1}");
}

#[test]
fn a_flood_of_deeply_nested_toon_heads_leaves_small_requests_fast() {
    let _alone = PROCESS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ratio = deep_nesting_flood(reqwest::Method::HEAD);
    assert!(ratio < SMALL_MULTIPLE, "bystander p99 x{ratio:.1}");
}
