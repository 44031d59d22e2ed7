//! The layer's compact path against its TOON path, for the same body.
//!
//! ```text
//! cargo bench -p tower-terse --bench compact
//! ```
//!
//! For 10 and 1 000 records, one request through the layer around a handler
//! that answers a fixed JSON list body, reading the whole response:
//! `compact` asks for `?format=compact` on a route registered with a derived
//! [`CompactLine`] (each record is read into the type, then rendered),
//! `toon` asks for `?format=toon`. After the run two ratios toon/compact are
//! printed (goal: >= 1.0, compact not slower than TOON): one from the two
//! times criterion measured one after the other, and the median of 301
//! rounds that run both paths turn about, which the machine's changing load
//! moves far less.

mod common;
#[path = "common/paired.rs"]
mod paired;
#[path = "common/times.rs"]
mod times;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use serde::{Deserialize, Serialize};
use tower_layer::Layer;
use tower_terse::{CompactLine, TerseLayer};

/// The records of [`common::list_body`].
#[derive(Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "event",
    line = "{start_at|date} {start_at|time}-{end_at|time} {title}{? @ {location}}{? ({attendees} people)}{? {all_day|flag(all day)}} {status}"
)]
struct Event {
    id: String,
    title: String,
    start_at: String,
    end_at: String,
    location: Option<String>,
    attendees: u32,
    all_day: bool,
    status: String,
}

fn bench(c: &mut Criterion) {
    let runtime = common::timed_runtime();
    for records in [10, 1000] {
        let body = common::list_body(records);
        let mut group = c.benchmark_group(format!("compact_vs_toon/{records}"));
        group.throughput(Throughput::Bytes(body.len() as u64));

        let (mut compact, mut toon) = services(&body);
        let (parts, lines) = runtime.block_on(common::call(&mut compact, "/?format=compact"));
        assert_eq!(parts.headers["content-type"], "application/json");
        assert!(lines.starts_with(b"{\"format\":\"compact\""));
        let (parts, text) = runtime.block_on(common::call(&mut toon, "/?format=toon"));
        assert_eq!(parts.headers["content-type"], "text/toon; charset=utf-8");
        println!(
            "{records} records: JSON {} bytes -> compact {} bytes, TOON {} bytes",
            body.len(),
            lines.len(),
            text.len()
        );

        for (name, service, uri) in [
            ("compact", &mut compact as &mut dyn Call, "/?format=compact"),
            ("toon", &mut toon as &mut dyn Call, "/?format=toon"),
        ] {
            let id = format!("{records}/{name}");
            group.bench_function(name, |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    runtime.block_on(async {
                        for _ in 0..iters {
                            black_box(service.call(uri).await);
                        }
                    });
                    let elapsed = start.elapsed();
                    times::record(&id, elapsed, iters);
                    elapsed
                })
            });
        }
        group.finish();
    }
}

/// The layer with `Event` registered, and the plain layer, around a handler
/// that answers `body`.
fn services(
    body: &bytes::Bytes,
) -> (
    tower_terse::Terse<common::Handler>,
    tower_terse::Terse<common::Handler>,
) {
    // The memo off, as in `common::layered`: the rewrite, not a lookup.
    let compact = TerseLayer::new()
        .rewrite_memo_bytes(0)
        .resource::<Event>("/")
        .layer(common::handler(body.clone()));
    (compact, common::layered(body.clone()))
}

/// Both paths turn about: toon/compact per round of `batch` requests each.
fn paired(runtime: &tokio::runtime::Runtime, records: usize, batch: u32) -> paired::Paired {
    let body = common::list_body(records);
    let (mut compact, mut toon) = services(&body);
    paired::Paired::measure(
        301,
        || run_batch(runtime, &mut compact, "/?format=compact", batch),
        || run_batch(runtime, &mut toon, "/?format=toon", batch),
    )
}

/// `batch` requests to `uri`, one after the other.
fn run_batch(runtime: &tokio::runtime::Runtime, service: &mut dyn Call, uri: &str, batch: u32) {
    runtime.block_on(async {
        for _ in 0..batch {
            black_box(service.call(uri).await);
        }
    })
}

/// One request through a layered service, whatever its concrete type.
trait Call {
    fn call<'a>(
        &'a mut self,
        uri: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bytes::Bytes> + 'a>>;
}

impl<S> Call for S
where
    S: tower::Service<
            http::Request<String>,
            Response = http::Response<tower_terse::TerseBody<http_body_util::Full<bytes::Bytes>>>,
            Error = std::convert::Infallible,
        >,
{
    fn call<'a>(
        &'a mut self,
        uri: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bytes::Bytes> + 'a>> {
        Box::pin(async move { common::call(self, uri).await.1 })
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
    let runtime = common::timed_runtime();
    // Batches of about a millisecond.
    for (records, batch) in [(10, 100), (1000, 2)] {
        let Some((compact, toon)) =
            times::mean_pair_ns(&format!("{records}/compact"), &format!("{records}/toon"))
        else {
            continue;
        };
        println!(
            "compact_vs_toon/{records}: compact {:.1} us, TOON {:.1} us, ratio {:.2}x (goal >= 1.0x)",
            compact / 1000.0,
            toon / 1000.0,
            toon / compact
        );
        println!(
            "compact_vs_toon/{records} turn about: {}",
            paired(&runtime, records, batch)
        );
    }
}
