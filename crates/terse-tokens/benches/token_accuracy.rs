//! The token estimator against exact counting and against bytes/4, on the
//! same documents: error and throughput; and two exact o200k_base
//! counters, `tokens::exact` (tiktoken, with a linear encoder for long
//! pieces) and `bpe-openai`, on speed and agreement.
//!
//! ```text
//! cargo bench -p terse-tokens --bench token_accuracy
//! ```
//!
//! The documents: the estimator corpus (JSON, TOON and line-per-record text
//! in eleven languages), the held-out texts (prose, code, URLs, emoji) and
//! the realistic responses of `tests/corpus`, each as JSON and as TOON.
//! After the run a table gives each counter's mean and 95th-percentile error
//! against the exact count and its throughput, from criterion's estimates.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput};

#[allow(dead_code)] // `json_body` is for the other token bench
#[path = "common/token_inputs.rs"]
mod token_inputs;
use token_inputs::{corpus, files, json_documents};

const GROUP: &str = "token_accuracy";

fn documents() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<Vec<u8>> = corpus();
    texts.extend(files(&root.join("tests/data/tokens_heldout"), |_| true));
    for json in json_documents() {
        let value: serde_json::Value = serde_json::from_slice(&json).expect("corpus JSON");
        texts.push(terse_toon::encode(&value, &terse_toon::EncodeOptions::default()).into_bytes());
        texts.push(value.to_string().into_bytes());
    }
    texts
        .into_iter()
        .map(|t| String::from_utf8(t).expect("UTF-8 document"))
        .collect()
}

/// The counters compared: name and function.
type Counter = (&'static str, Box<dyn Fn(&str) -> usize>);

fn counters() -> Vec<Counter> {
    vec![
        (
            "estimate",
            Box::new(|t: &str| terse_tokens::estimate(t.as_bytes())),
        ),
        ("bytes_over_4", Box::new(|t: &str| t.len().div_ceil(4))),
        ("exact", Box::new(terse_tokens::exact)),
        (
            "exact_bpe_openai",
            Box::new(|t: &str| bpe_openai::o200k_base().count(t)),
        ),
    ]
}

fn mean_ns(id: &str) -> Option<f64> {
    let dir = match (
        std::env::var_os("CRITERION_HOME"),
        std::env::var_os("CARGO_TARGET_DIR"),
    ) {
        (Some(home), _) => PathBuf::from(home),
        (None, Some(target)) => PathBuf::from(target).join("criterion"),
        (None, None) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion"),
    };
    let path = dir.join(GROUP).join(id).join("new/estimates.json");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    json["mean"]["point_estimate"].as_f64()
}

/// Mean and nearest-rank 95th percentile.
fn mean_p95(mut errors: Vec<f64>) -> (f64, f64) {
    errors.sort_by(f64::total_cmp);
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    let rank = (0.95 * errors.len() as f64).ceil() as usize;
    (mean, errors[rank.clamp(1, errors.len()) - 1])
}

fn main() {
    let texts = documents();
    let bytes: usize = texts.iter().map(String::len).sum();
    let counters = counters();
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group(GROUP);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    for (name, count) in &counters {
        group.bench_function(*name, |b| {
            b.iter(|| texts.iter().map(|t| count(black_box(t))).sum::<usize>())
        });
    }
    group.finish();
    c.final_summary();

    let truth: Vec<usize> = texts.iter().map(|t| terse_tokens::exact(t)).collect();
    println!("{} documents, {bytes} bytes", texts.len());
    println!(
        "{:<18} {:>8} {:>8} {:>12} {:>10}",
        "counter", "mean", "p95", "throughput", "differ"
    );
    for (name, count) in &counters {
        let counts: Vec<usize> = texts.iter().map(|t| count(t)).collect();
        let errors: Vec<f64> = counts
            .iter()
            .zip(&truth)
            .map(|(&c, &t)| (c as f64 - t as f64).abs() / (t as f64).max(1.0))
            .collect();
        let differ = counts.iter().zip(&truth).filter(|(c, t)| c != t).count();
        let (mean, p95) = mean_p95(errors);
        let throughput = mean_ns(name).map_or("-".to_owned(), |ns| {
            format!("{:.1} MB/s", bytes as f64 / ns * 1000.0)
        });
        println!(
            "{name:<18} {:>7.2}% {:>7.2}% {throughput:>12} {differ:>10}",
            mean * 100.0,
            p95 * 100.0
        );
    }
    println!(
        "error: against exact o200k_base (bpe-openai); differ: documents whose count is not exact"
    );
}
