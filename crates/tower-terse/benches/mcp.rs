//! What measuring an MCP answer before its rewrite adds to the rewrite.
//!
//! ```text
//! cargo bench -p tower-terse --features mcp --bench mcp
//! ```
//!
//! A transport measures each answer to a `tools/call` before rewriting it,
//! to decide by the work it will do whether the rewrite leaves the async
//! workers. For a text block of 2 and 48 records (the layer bench's
//! calendar list, escaped inside the JSON-RPC answer), `rewrite` reads the
//! call and rewrites the answer (`Session::server_message`, no
//! measurement); `measured` does what `terse mcp` does for each answer
//! (`Session::server_message_offloaded`: measured, then rewritten here or,
//! past the offload threshold, on the blocking pool). The ratio
//! measured/rewrite is printed after the run.

#[allow(dead_code)] // only `list_body`: the layer and its handler are for the other benches
mod common;
#[path = "common/times.rs"]
mod times;

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use serde_json::json;
use tower_terse::mcp::{McpLayer, Session};

const CALL: &str =
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"events","arguments":{}}}"#;

/// The answer to [`CALL`]: one text block holding `records` events.
fn answer(records: usize) -> String {
    let text = String::from_utf8(common::list_body(records).to_vec()).expect("UTF-8");
    json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": text}]}})
        .to_string()
}

fn bench(c: &mut Criterion) {
    let runtime = common::timed_runtime();
    let session = Session::new(&McpLayer::new());
    let mut names = Vec::new();
    for records in [2, 48] {
        let answer = answer(records);
        let name = format!("mcp_answer/{}B", answer.len());
        assert_eq!(session.client_message(CALL), None);
        let rewritten = session.server_message(&answer).expect("a TOON result");
        assert!(rewritten.len() < answer.len(), "{rewritten}");
        let mut group = c.benchmark_group(&name);
        group.throughput(Throughput::Bytes(answer.len() as u64));
        let id = format!("{name}/rewrite");
        group.bench_function("rewrite", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    session.client_message(black_box(CALL));
                    black_box(session.server_message(black_box(&answer)));
                }
                let elapsed = start.elapsed();
                times::record(&id, elapsed, iters);
                elapsed
            })
        });
        let id = format!("{name}/measured");
        group.bench_function("measured", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                runtime.block_on(async {
                    for _ in 0..iters {
                        session.client_message(black_box(CALL));
                        black_box(session.server_message_offloaded(black_box(&answer)).await);
                    }
                });
                let elapsed = start.elapsed();
                times::record(&id, elapsed, iters);
                elapsed
            })
        });
        group.finish();
        names.push(name);
    }
    for name in names {
        let pair = times::mean_pair_ns(&format!("{name}/rewrite"), &format!("{name}/measured"));
        if let Some((rewrite, measured)) = pair {
            println!(
                "{name}: rewrite {:.1} µs, measured {:.1} µs: x{:.2}",
                rewrite / 1e3,
                measured / 1e3,
                measured / rewrite
            );
        }
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
