//! The layer's JSON-to-TOON response path against a serde_json round trip.
//!
//! ```text
//! cargo bench -p tower-terse --bench layer
//! ```
//!
//! For 10 and 1 000 records, `terse_layer` sends a request with
//! `?format=toon` through the layer around a handler that answers a fixed
//! JSON body, and reads the response (headers and whole body). The baseline,
//! `serde_json_roundtrip`, is what a service would do to re-serialize the
//! same body: bytes -> `serde_json::Value` -> bytes. The ratio baseline/layer
//! is printed after the run from the times criterion measured (goal: >= 1.3).
//!
//! `passthrough_10kb` measures what the layer adds to a 10 KB JSON response
//! nobody asked to rewrite, in process (the end-to-end comparison over
//! loopback is `tests/load/passthrough.sh`).

mod common;
#[path = "common/load_documents.rs"]
mod load_documents;
#[path = "common/times.rs"]
mod times;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use tower_layer::Layer;
use tower_terse::TerseLayer;
use tower_terse::compact::{CompactResource, Template};

fn bench(c: &mut Criterion) {
    let runtime = common::timed_runtime();
    for records in [10, 1000] {
        let body = common::list_body(records);
        let mut group = c.benchmark_group(format!("toon_response/{records}"));
        group.throughput(Throughput::Bytes(body.len() as u64));

        let mut service = common::layered(body.clone());
        let (parts, toon) = runtime.block_on(common::call(&mut service, "/?format=toon"));
        assert_eq!(parts.headers["content-type"], "text/toon; charset=utf-8");
        println!(
            "{records} records: JSON {} bytes -> TOON {} bytes",
            body.len(),
            toon.len()
        );

        let id = format!("{records}/terse_layer");
        group.bench_function("terse_layer", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                runtime.block_on(async {
                    for _ in 0..iters {
                        black_box(common::call(&mut service, "/?format=toon").await);
                    }
                });
                let elapsed = start.elapsed();
                times::record(&id, elapsed, iters);
                elapsed
            })
        });

        let id = format!("{records}/serde_json_roundtrip");
        group.bench_function("serde_json_roundtrip", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    let value: serde_json::Value =
                        serde_json::from_slice(black_box(&body)).expect("valid JSON");
                    black_box(serde_json::to_vec(&value).expect("serializable"));
                }
                let elapsed = start.elapsed();
                times::record(&id, elapsed, iters);
                elapsed
            })
        });
        group.finish();
    }
}

/// A 10 KB list nobody asked to rewrite: the layer only negotiates, checks
/// the headers and adds `Vary`; the body streams through.
fn passthrough(c: &mut Criterion) {
    let runtime = common::timed_runtime();
    let body = common::list_body(48);
    println!("pass-through: JSON {} bytes", body.len());
    let mut group = c.benchmark_group("passthrough_10kb");
    group.throughput(Throughput::Bytes(body.len() as u64));
    let mut bare = common::handler(body.clone());
    group.bench_function("without_layer", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            runtime.block_on(async {
                for _ in 0..iters {
                    black_box(common::call(&mut bare, "/api/v1/events?limit=50").await);
                }
            });
            let elapsed = start.elapsed();
            times::record("passthrough/without_layer", elapsed, iters);
            elapsed
        })
    });
    let mut layered = common::layered(body);
    group.bench_function("with_layer", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            runtime.block_on(async {
                for _ in 0..iters {
                    black_box(common::call(&mut layered, "/api/v1/events?limit=50").await);
                }
            });
            let elapsed = start.elapsed();
            times::record("passthrough/with_layer", elapsed, iters);
            elapsed
        })
    });
    group.finish();
}

/// The load bench's documents through the layer, as the gateway serves
/// them: each route a resource with its line template, asked for as it is
/// (counted), as TOON and as compact lines.
///
/// ```text
/// cargo bench -p tower-terse --bench layer -- load/ --save-baseline before
/// cargo bench -p tower-terse --bench layer -- load/ --baseline before
/// ```
fn load_documents(c: &mut Criterion) {
    let runtime = common::timed_runtime();
    for (name, body, mut service) in load_services() {
        let mut group = c.benchmark_group(format!("load/{name}"));
        group.throughput(Throughput::Bytes(body.len() as u64));
        for (format, uri) in [
            ("json", "/"),
            ("toon", "/?format=toon"),
            ("compact", "/?format=compact"),
        ] {
            let (parts, out) = runtime.block_on(common::call(&mut service, uri));
            println!(
                "load/{name}/{format}: JSON {} bytes -> {} bytes of {:?}",
                body.len(),
                out.len(),
                parts.headers.get("content-type")
            );
            group.bench_function(format, |b| {
                b.iter(|| runtime.block_on(common::call(&mut service, black_box(uri))))
            });
        }
        group.finish();
    }
}

/// The load bench's documents, each with the layer around a handler that
/// answers it: in place (the rendering itself, not the hand-over to the
/// blocking pool, is measured), its route a resource with its line
/// template.
fn load_services() -> Vec<(
    &'static str,
    bytes::Bytes,
    tower_terse::Terse<common::Handler>,
)> {
    let resource = |noun, line| {
        CompactResource::new(
            noun,
            Template::parse(line).expect("the load bench's template"),
        )
    };
    [
        (
            "flat",
            load_documents::flat(),
            "user",
            load_documents::FLAT_LINE,
        ),
        (
            "nested",
            load_documents::nested(),
            "order",
            load_documents::NESTED_LINE,
        ),
    ]
    .into_iter()
    .map(|(name, body, noun, line)| {
        // The memo off, as in `common::layered`: the rewrite, not a lookup.
        let service = TerseLayer::new()
            .rewrite_memo_bytes(0)
            .offload_threshold(usize::MAX)
            .compact_resource("/", resource(noun, line))
            .layer(common::handler(body.clone()));
        (name, body, service)
    })
    .collect()
}

/// `LOAD_FIXED=flat/toon:20000`: that many requests of one load case and
/// nothing else, for a counter of instructions or CPU time (`perf stat`),
/// which the other work of a busy machine moves far less than wall time.
fn load_fixed(spec: &str) {
    let (case, count) = spec
        .split_once(':')
        .expect("LOAD_FIXED=<document>/<format>:<count>");
    let (document, format) = case.split_once('/').expect("<document>/<format>");
    let count: u64 = count.parse().expect("a count");
    let uri = match format {
        "json" => "/",
        "toon" => "/?format=toon",
        "compact" => "/?format=compact",
        other => panic!("no format {other}"),
    };
    let runtime = common::timed_runtime();
    let (_, _, mut service) = load_services()
        .into_iter()
        .find(|(name, _, _)| *name == document)
        .expect("flat or nested");
    runtime.block_on(async {
        for _ in 0..count {
            black_box(common::call(&mut service, black_box(uri)).await);
        }
    });
}

fn main() {
    if let Ok(spec) = std::env::var("LOAD_FIXED") {
        return load_fixed(&spec);
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    load_documents(&mut criterion);
    passthrough(&mut criterion);
    criterion.final_summary();
    if let Some((with, without)) =
        times::mean_pair_ns("passthrough/with_layer", "passthrough/without_layer")
    {
        println!(
            "passthrough_10kb: without layer {without:.0} ns, with layer {with:.0} ns, the layer adds {:.0} ns per response",
            with - without
        );
    }
    for records in [10, 1000] {
        let Some((layer, baseline)) = times::mean_pair_ns(
            &format!("{records}/terse_layer"),
            &format!("{records}/serde_json_roundtrip"),
        ) else {
            continue;
        };
        println!(
            "toon_response/{records}: layer {:.1} us, serde_json round trip {:.1} us, ratio {:.2}x (goal >= 1.3x)",
            layer / 1000.0,
            baseline / 1000.0,
            baseline / layer
        );
    }
}
