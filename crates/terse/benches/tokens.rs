//! Token counting throughput over the estimator corpus.
//!
//! ```text
//! cargo bench -p terse --bench tokens --features exact-tokens
//! ```
//!
//! `estimate` is measured against a baseline that also reads every byte once:
//! counting ASCII whitespace, the cheapest "word count" estimate there is.
//! After the run the ratio and the throughputs are printed from criterion's
//! own estimates.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput};

const GROUP: &str = "tokens";

fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokens");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("corpus sample"))
        .collect()
}

fn bench(c: &mut Criterion, samples: &[String]) {
    let bytes: usize = samples.iter().map(String::len).sum();
    let mut group = c.benchmark_group(GROUP);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("ascii_whitespace_baseline", |b| {
        b.iter(|| {
            samples
                .iter()
                .map(|s| {
                    black_box(s.as_bytes())
                        .iter()
                        .filter(|b| b.is_ascii_whitespace())
                        .count()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("estimate", |b| {
        b.iter(|| {
            samples
                .iter()
                .map(|s| terse::tokens::estimate(black_box(s.as_bytes())))
                .sum::<usize>()
        })
    });
    #[cfg(feature = "exact-tokens")]
    group.bench_function("exact", |b| {
        b.iter(|| {
            samples
                .iter()
                .map(|s| terse::tokens::exact(black_box(s)))
                .sum::<usize>()
        })
    });
    group.finish();
}

/// Mean time per iteration in nanoseconds, as criterion saved it.
fn mean_ns(dir: &Path, id: &str) -> Option<f64> {
    let path = dir.join(GROUP).join(id).join("new/estimates.json");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    json["mean"]["point_estimate"].as_f64()
}

fn output_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion")
}

fn summarise(bytes: usize) {
    let dir = output_dir();
    let rate = |ns: f64| bytes as f64 / ns; // bytes per ns = GB/s
    let (Some(estimate), Some(baseline)) = (
        mean_ns(&dir, "estimate"),
        mean_ns(&dir, "ascii_whitespace_baseline"),
    ) else {
        println!("(no criterion estimates under {})", dir.display());
        return;
    };
    println!(
        "estimate: {:.2} GB/s; whitespace baseline: {:.2} GB/s; estimate takes {:.2}x the baseline's time",
        rate(estimate),
        rate(baseline),
        estimate / baseline
    );
    if let Some(exact) = mean_ns(&dir, "exact") {
        println!(
            "exact: {:.1} MB/s; estimate is {:.0}x faster",
            rate(exact) * 1000.0,
            exact / estimate
        );
    }
}

fn main() {
    let samples = corpus();
    let bytes = samples.iter().map(String::len).sum();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &samples);
    c.final_summary();
    summarise(bytes);
}
