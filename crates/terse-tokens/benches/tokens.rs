//! Token counting throughput.
//!
//! ```text
//! cargo bench -p terse-tokens --bench tokens
//! cargo bench -p terse-tokens --bench tokens --features exact-tokens   # adds the BPE
//! ```
//!
//! Four inputs: JSON bodies of 10 KB, 100 KB and 1 MB built from the
//! realistic API responses in `tests/corpus/`, and the whole estimator corpus
//! (JSON, TOON and line-per-record text in eleven languages). On each,
//! `estimate` is measured next to a baseline that reads every byte once over
//! the same bytes in the same run: `memchr` counting the quotes, which is
//! what a scan that does next to nothing per byte costs. After the run the
//! throughputs and the ratio of the two are printed from criterion's own
//! estimates, so the figures hold up on a busy machine. `estimate_portable`
//! runs the same estimate with the portable kernel (compiled with AVX2 where
//! the CPU has it, as the estimate ran before its AVX2 kernel), and its time
//! is printed as a ratio to `estimate`'s.
//!
//! With `exact-tokens` (the default) the two exact counters are measured
//! too, `tokens::exact` and `bpe-openai`, on the JSON and on adversarial
//! texts of 1 MB that make one long tokenizer piece each (one letter, spaces,
//! punctuation, CJK, an accented letter, an emoji) or many short ones
//! (digits); their throughputs are printed as ratios to the same memchr
//! baseline, and those of the long pieces beyond ASCII as ratios to the
//! ASCII piece of the same kind, measured in the same run.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput};

#[path = "common/token_inputs.rs"]
mod token_inputs;
use token_inputs::{corpus, json_body, json_documents};

const GROUP: &str = "tokens";

struct Input {
    name: &'static str,
    texts: Vec<Vec<u8>>,
    /// The ASCII input of the same shape, whose exact counting speed this
    /// one's is printed as a ratio to.
    ascii_twin: Option<&'static str>,
}

impl Input {
    fn bytes(&self) -> usize {
        self.texts.iter().map(Vec::len).sum()
    }
}

fn inputs() -> Vec<Input> {
    let documents = json_documents();
    vec![
        Input {
            name: "json_10k",
            texts: vec![json_body(&documents, 10_000)],
            ascii_twin: None,
        },
        Input {
            name: "json_100k",
            texts: vec![json_body(&documents, 100_000)],
            ascii_twin: None,
        },
        Input {
            name: "json_1m",
            texts: vec![json_body(&documents, 1_000_000)],
            ascii_twin: None,
        },
        Input {
            name: "corpus",
            texts: corpus(),
            ascii_twin: None,
        },
    ]
}

/// Texts that make long pieces (or a flood of short ones) for an exact
/// counter: 1 MB each. The long pieces beyond ASCII (one accented letter,
/// CJK without spaces, one emoji) have the ASCII run of the same kind as
/// their twin: a letter for letters, punctuation for the emoji (a symbol,
/// which the pattern takes as punctuation).
fn adversarial() -> Vec<Input> {
    const SIZE: usize = 1 << 20;
    let run = |name: &'static str, unit: &str, ascii_twin: Option<&'static str>| Input {
        name,
        texts: vec![unit.repeat(SIZE / unit.len()).into_bytes()],
        ascii_twin,
    };
    vec![
        run("letter_1m", "a", None),
        run("digits_1m", "7", None),
        run("spaces_1m", " ", None),
        run("punct_1m", "!", None),
        run("cjk_1m", "用", Some("letter_1m")),
        run("e_acute_1m", "é", Some("letter_1m")),
        run("emoji_1m", "🎉", Some("punct_1m")),
    ]
}

fn bench(c: &mut Criterion, input: &Input) {
    let texts = &input.texts;
    let mut group = c.benchmark_group(format!("{GROUP}/{}", input.name));
    group.throughput(Throughput::Bytes(input.bytes() as u64));
    if input.name.ends_with("_1m") {
        group.sample_size(10);
    }
    group.bench_function("memchr_baseline", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| memchr::memchr_iter(b'"', black_box(t)).count())
                .sum::<usize>()
        })
    });
    group.bench_function("estimate", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| terse_tokens::estimate(black_box(t)))
                .sum::<usize>()
        })
    });
    // The same estimate with the portable kernel (compiled with AVX2 where
    // the CPU has it): the implementation the AVX2 kernel replaced.
    group.bench_function("estimate_portable", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| terse_tokens::estimate_portable(black_box(t)))
                .sum::<usize>()
        })
    });
    #[cfg(feature = "exact-tokens")]
    {
        let strings: Vec<String> = texts
            .iter()
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect();
        // Built before timing: the linear encoder builds its tables on the
        // first text with a long piece.
        terse_tokens::exact(&"a".repeat(100));
        group.bench_function("exact", |b| {
            b.iter(|| {
                strings
                    .iter()
                    .map(|s| terse_tokens::exact(black_box(s)))
                    .sum::<usize>()
            })
        });
        group.bench_function("bpe_openai", |b| {
            b.iter(|| {
                strings
                    .iter()
                    .map(|s| bpe_openai::o200k_base().count(black_box(s.as_str())))
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

/// Mean time per iteration in nanoseconds, as criterion saved it.
fn mean_ns(dir: &Path, input: &str, id: &str) -> Option<f64> {
    let path = dir
        .join(format!("{GROUP}_{input}"))
        .join(id)
        .join("new/estimates.json");
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

fn summarise(inputs: &[Input]) {
    let dir = output_dir();
    println!(
        "{:<10} {:>9} {:>10} {:>10} {:>10}",
        "input", "bytes", "estimate", "memchr", "ratio"
    );
    for input in inputs {
        let bytes = input.bytes() as f64;
        let rate = |ns: f64| bytes / ns; // bytes per ns = GB/s
        let (Some(estimate), Some(baseline)) = (
            mean_ns(&dir, input.name, "estimate"),
            mean_ns(&dir, input.name, "memchr_baseline"),
        ) else {
            println!("{:<10} (not measured in this run)", input.name);
            continue;
        };
        println!(
            "{:<10} {:>9} {:>5.2} GB/s {:>5.2} GB/s {:>9.3}x",
            input.name,
            input.bytes(),
            rate(estimate),
            rate(baseline),
            baseline / estimate,
        );
        if let Some(portable) = mean_ns(&dir, input.name, "estimate_portable") {
            println!(
                "{:<10} portable kernel: {:5.2} GB/s; estimate is {:.2}x as fast",
                "",
                rate(portable),
                portable / estimate
            );
        }
        let twin = input.ascii_twin.and_then(|twin| {
            let bytes = inputs.iter().find(|i| i.name == twin)?.bytes() as f64;
            Some((twin, bytes / mean_ns(&dir, twin, "exact")?))
        });
        if let (Some((twin, twin_rate)), Some(ns)) = (twin, mean_ns(&dir, input.name, "exact")) {
            println!(
                "{:<10} exact: {:.3}x the throughput of exact on the ASCII {twin}",
                "",
                rate(ns) / twin_rate
            );
        }
        for counter in ["exact", "bpe_openai"] {
            if let Some(ns) = mean_ns(&dir, input.name, counter) {
                println!(
                    "{:<10} {counter}: {:.1} MB/s, {:.4}x memchr; estimate is {:.0}x faster",
                    "",
                    rate(ns) * 1000.0,
                    baseline / ns,
                    ns / estimate
                );
            }
        }
    }
    println!("ratio = estimate's throughput / the memchr baseline's, over the same bytes");
}

fn main() {
    let mut inputs = inputs();
    if cfg!(feature = "exact-tokens") {
        inputs.extend(adversarial());
    }
    let mut c = Criterion::default().configure_from_args();
    for input in &inputs {
        bench(&mut c, input);
    }
    c.final_summary();
    summarise(&inputs);
}
