//! Accuracy of the token estimator against exact o200k_base counts.
//!
//! The corpus in `crates/terse-tokens/tests/data/tokens/` holds JSON (compact and
//! pretty), TOON and line-per-record samples in several scripts; the exact
//! counts are computed here with the real tokenizer, never stored.
//!
//! `crates/terse-tokens/tests/data/tokens_heldout/` is text from outside the corpus
//! (prose in eleven languages, emoji sequences, source code, URLs, ids,
//! numbers, markup) that the weights are never fitted on: it shows how the
//! estimator does on bodies unlike the ones it was tuned for.

use std::path::{Path, PathBuf};

use tower_terse::tokens::{estimate, exact};

const MAX_MEAN_ERROR: f64 = 0.02;
const MAX_P95_ERROR: f64 = 0.05;
/// Mean error allowed on the held-out set, which the weights never see.
const MAX_HELD_OUT_MEAN_ERROR: f64 = 0.08;

struct Sample {
    name: String,
    kind: String,
    text: String,
}

fn corpus() -> Vec<Sample> {
    samples("tokens")
}

fn held_out() -> Vec<Sample> {
    samples("tokens_heldout")
}

fn samples(folder: &str) -> Vec<Sample> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/terse-tokens/tests/data")
        .join(folder);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let kind = name.split('-').nth(1).unwrap_or("?").to_owned();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            Sample { name, kind, text }
        })
        .collect()
}

/// Relative error of the estimate for each sample.
fn errors<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Vec<f64> {
    samples
        .into_iter()
        .map(|s| {
            let truth = exact(&s.text) as f64;
            let guess = estimate(s.text.as_bytes()) as f64;
            assert!(truth > 0.0, "{} is empty", s.name);
            (guess - truth).abs() / truth
        })
        .collect()
}

/// Mean and nearest-rank 95th percentile.
fn summary(mut errors: Vec<f64>) -> (f64, f64) {
    errors.sort_by(f64::total_cmp);
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    let rank = (0.95 * errors.len() as f64).ceil() as usize;
    (mean, errors[rank.clamp(1, errors.len()) - 1])
}

fn check(label: &str, errors: Vec<f64>) {
    let count = errors.len();
    let (mean, p95) = summary(errors);
    println!(
        "{label:<24} {count:>4} samples  mean {:.2}%  p95 {:.2}%",
        mean * 100.0,
        p95 * 100.0
    );
    assert!(
        mean <= MAX_MEAN_ERROR,
        "{label}: mean error {:.2}% over {:.0}%",
        mean * 100.0,
        MAX_MEAN_ERROR * 100.0
    );
    assert!(
        p95 <= MAX_P95_ERROR,
        "{label}: p95 error {:.2}% over {:.0}%",
        p95 * 100.0,
        MAX_P95_ERROR * 100.0
    );
}

#[test]
fn corpus_is_varied_enough_to_mean_something() {
    let samples = corpus();
    assert!(samples.len() >= 200, "only {} samples", samples.len());
    for kind in ["json", "json_pretty", "toon", "lines"] {
        let n = samples.iter().filter(|s| s.kind == kind).count();
        assert!(n >= 40, "only {n} {kind} samples");
    }
    let all: String = samples.iter().map(|s| s.text.as_str()).collect();
    for (what, probe) in [
        ("Spanish", "ñ"),
        ("Chinese", "用户"),
        ("Japanese", "ます"),
        ("Korean", "습니다"),
        ("German", "ß"),
        ("French", "è"),
        ("Russian", "пожалуйста"),
        ("Arabic", "الطلب"),
        ("Hindi", "कृपया"),
        ("emoji", "🎉"),
        ("RFC 3339 timestamp", "T09:"),
        ("tab-delimited TOON", "\t]{"),
        ("pipe-delimited TOON", "|]{"),
        ("base64 padding", "=="),
    ] {
        assert!(all.contains(probe), "corpus has no {what} ({probe:?})");
    }
}

#[test]
fn estimate_is_within_2_percent_mean_and_5_percent_p95_of_o200k() {
    let samples = corpus();
    check("all samples", errors(&samples));
    check(
        "held-out (odd) half",
        errors(samples.iter().skip(1).step_by(2)),
    );
    for kind in ["json", "json_pretty", "toon", "lines"] {
        check(kind, errors(samples.iter().filter(|s| s.kind == kind)));
    }
}

#[test]
fn held_out_text_is_within_8_percent_mean_of_o200k() {
    let samples = held_out();
    assert!(
        samples.len() >= 20,
        "only {} held-out samples",
        samples.len()
    );
    let all: String = samples.iter().map(|s| s.text.as_str()).collect();
    for (what, probe) in [
        ("German", "ü"),
        ("French", "ç"),
        ("Russian", "город"),
        ("Arabic", "السوق"),
        ("Hindi", "गाँव"),
        ("Chinese", "云南"),
        ("Japanese", "実家"),
        ("Korean", "북한산"),
        ("ZWJ emoji", "\u{200d}"),
        ("variation selector", "\u{fe0f}"),
        ("source code", "fn "),
        ("URL", "https://"),
        ("base64", "eyJ"),
    ] {
        assert!(
            all.contains(probe),
            "held-out set has no {what} ({probe:?})"
        );
    }
    let errors = errors(&samples);
    for (sample, error) in samples.iter().zip(&errors) {
        println!("  {:<28} {:>6.2}%", sample.name, error * 100.0);
    }
    let (mean, p95) = summary(errors);
    println!(
        "held-out {:>4} samples  mean {:.2}%  p95 {:.2}%",
        samples.len(),
        mean * 100.0,
        p95 * 100.0
    );
    assert!(
        mean <= MAX_HELD_OUT_MEAN_ERROR,
        "held-out mean error {:.2}% over {:.0}%",
        mean * 100.0,
        MAX_HELD_OUT_MEAN_ERROR * 100.0
    );
}

#[test]
fn estimate_beats_bytes_over_four() {
    let samples = corpus();
    let (ours, _) = summary(errors(&samples));
    let quarter: Vec<f64> = samples
        .iter()
        .map(|s| {
            let truth = exact(&s.text) as f64;
            (s.text.len().div_ceil(4) as f64 - truth).abs() / truth
        })
        .collect();
    let (baseline, _) = summary(quarter);
    println!(
        "mean error: estimator {:.2}%, bytes/4 {:.2}%",
        ours * 100.0,
        baseline * 100.0
    );
    assert!(ours * 4.0 < baseline);
}

/// The estimate's error on API documents in each JSON formatting services
/// emit: the realistic responses of `tests/corpus` and the JSON samples of
/// the corpus, each written minified, spaced (Python, Django), pretty with
/// 2 or 4 spaces or tabs, and with CRLF line ends. The README's table is
/// this test's output.
#[test]
fn the_error_per_json_formatting_is_what_the_readme_shows() {
    let mut values: Vec<serde_json::Value> = terse_tests::corpus::documents()
        .into_iter()
        .map(|doc| doc.value)
        .collect();
    values.extend(
        corpus()
            .iter()
            .filter(|s| s.kind == "json")
            .map(|s| serde_json::from_str(&s.text).expect("JSON sample")),
    );
    let mut table = String::from(
        "| JSON formatting | documents | mean error | p95 | bias |\n| --- | ---: | ---: | ---: | ---: |\n",
    );
    for (formatting, write) in terse_tests::json_formats::FORMATTINGS {
        let texts: Vec<String> = values.iter().map(write).collect();
        let signed: Vec<f64> = texts
            .iter()
            .map(|t| estimate(t.as_bytes()) as f64 / exact(t) as f64 - 1.0)
            .collect();
        let bias = signed.iter().sum::<f64>() / signed.len() as f64;
        let (mean, p95) = summary(signed.iter().map(|e| e.abs()).collect());
        table += &format!(
            "| {formatting} | {} | {:.1}% | {:.1}% | {:+.1}% |\n",
            texts.len(),
            mean * 100.0,
            p95 * 100.0,
            bias * 100.0
        );
    }
    println!("{table}");
    let shown = terse_tests::docs::text()
        .split("<!-- json_formattings -->\n")
        .nth(1)
        .and_then(|rest| rest.split("<!-- /json_formattings -->").next())
        .expect("the JSON formatting table of the README or docs/tokens.md");
    assert_eq!(shown, table, "README table differs from the measurement");
}
