//! Fits the token estimator's weights against exact o200k_base counts.
//!
//! ```text
//! cargo run --release -p terse-tools --bin fit_token_weights \
//!     > crates/terse-tokens/src/weights.rs
//! ```
//!
//! The estimator adds one weight per pair of adjacent bytes: for two ASCII
//! bytes a base weight plus the weights of the features the pair has
//! (`crates/terse-tokens/src/features.rs`), for any other pair the weight of its (class of
//! previous byte, class of this byte); and one weight for each window of
//! `RUN` lowercase letters. Its estimate is therefore linear in the feature,
//! class-pair and run counts of a text. This tool counts those on the
//! corpus in `tests/data/tokens/`, fits the weights by ridge least squares on
//! the even-numbered samples (plus pieces of them, for more rows than
//! weights), rounds them to the estimator's fixed point (the ASCII weights
//! one at a time, refitting the others after each), reports the error on the
//! odd-numbered samples, which the fit never saw, and prints the generated
//! `weights.rs` on standard output. The report goes to standard error.
//!
//! `--ridge X` sets the ridge strength (default below); `--check FILE...`
//! also reports the error on each of those files, to see how the weights do
//! on text from outside the corpus.

use std::path::{Path, PathBuf};

use terse_tools::fit::*;

struct Sample {
    name: String,
    kind: String,
    text: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (ridge, extra) = parse_args()?;
    let samples = load_corpus(&corpus_dir())?;
    if samples.len() < 4 {
        return Err("the corpus needs at least four samples".into());
    }

    let rows = rows(samples.iter().step_by(2).map(|s| s.text.as_str()));
    let (fixed, prior) = fit(&rows, ridge)?;

    eprintln!(
        "fitted {FEATURES} weights on {} rows from {} samples (ridge {ridge:e}, prior {prior:.4} tokens/byte)",
        rows.len(),
        samples.len().div_ceil(2)
    );
    report(&samples, &fixed);
    check(&extra, &fixed)?;
    print!("{}", render(&fixed, ridge));
    Ok(())
}

fn parse_args() -> Result<(f64, Vec<PathBuf>), Box<dyn std::error::Error>> {
    let mut ridge = DEFAULT_RIDGE;
    let mut extra = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ridge" => ridge = args.next().ok_or("--ridge needs a value")?.parse()?,
            "--check" => extra.extend(args.by_ref().map(PathBuf::from)),
            _ => return Err("usage: fit_token_weights [--ridge X] [--check FILE...]".into()),
        }
    }
    Ok((ridge, extra))
}

fn check(paths: &[PathBuf], fixed: &Fixed) -> std::io::Result<()> {
    for path in paths {
        let text = String::from_utf8_lossy(&std::fs::read(path)?).into_owned();
        let y = exact(&text);
        let guess = estimate(fixed, text.as_bytes());
        eprintln!(
            "  check: {:+.1}% ({guess} vs {y}) {}",
            (guess - y) / y.max(1.0) * 100.0,
            path.display()
        );
    }
    Ok(())
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/terse-tokens/tests/data/tokens")
}

/// The samples in file-name order, which is the order of their index prefix.
fn load_corpus(dir: &Path) -> std::io::Result<Vec<Sample>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let kind = name.split('-').nth(1).unwrap_or("?").to_owned();
            let text = std::fs::read_to_string(&path)?;
            Ok(Sample { name, kind, text })
        })
        .collect()
}

fn report(samples: &[Sample], fixed: &Fixed) {
    let mut kinds: Vec<&str> = samples.iter().map(|s| s.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let held_out: Vec<&Sample> = samples.iter().skip(1).step_by(2).collect();
    let training: Vec<&Sample> = samples.iter().step_by(2).collect();
    let errors = |set: &[&Sample], f: &dyn Fn(&Sample) -> f64| -> Vec<f64> {
        set.iter()
            .map(|s| {
                let y = exact(&s.text);
                (f(s) - y).abs() / y.max(1.0)
            })
            .collect()
    };
    let ours = |s: &Sample| estimate(fixed, s.text.as_bytes());
    let quarter = |s: &Sample| s.text.len().div_ceil(4) as f64;

    eprintln!("{:<22} {:>8} {:>8} {:>8}", "set", "samples", "mean", "p95");
    line("training (even)", &errors(&training, &ours));
    line("held out (odd)", &errors(&held_out, &ours));
    line("held out, bytes/4", &errors(&held_out, &quarter));
    for kind in kinds {
        let subset: Vec<&Sample> = held_out
            .iter()
            .copied()
            .filter(|s| s.kind == kind)
            .collect();
        line(&format!("held out, {kind}"), &errors(&subset, &ours));
    }
    let mut worst: Vec<(f64, &str)> = held_out
        .iter()
        .map(|s| {
            let y = exact(&s.text);
            ((ours(s) - y) / y.max(1.0), s.name.as_str())
        })
        .collect();
    worst.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    for (error, name) in worst.iter().take(8) {
        eprintln!("  worst: {:+.1}% {name}", error * 100.0);
    }
}

fn line(label: &str, errors: &[f64]) {
    let mut sorted = errors.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
    let p95 = percentile(&sorted, 0.95);
    eprintln!(
        "{label:<22} {:>8} {:>7.2}% {:>7.2}%",
        sorted.len(),
        mean * 100.0,
        p95 * 100.0
    );
}
