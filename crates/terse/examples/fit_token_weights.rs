//! Fits the token estimator's pair weights against exact o200k_base counts.
//!
//! ```text
//! cargo run --release -p terse --example fit_token_weights --features exact-tokens \
//!     > crates/terse/src/tokens/weights.rs
//! ```
//!
//! The estimator adds one weight per (class of previous byte, class of this
//! byte) pair, so its estimate is linear in the pair counts of a text. This
//! tool counts those pairs on the corpus in `tests/data/tokens/`, fits the
//! weights by ridge least squares on the even-numbered samples (plus pieces of
//! them, for more rows than weights), reports the error on the odd-numbered
//! samples, which the fit never saw, and prints the generated `weights.rs` on
//! standard output. The report goes to standard error.
//!
//! `--ridge X` sets the ridge strength (default below); `--check FILE...`
//! also reports the error on each of those files, to see how the weights do
//! on text from outside the corpus.

#[allow(dead_code)]
#[path = "../src/tokens/classes.rs"]
mod classes;

use std::path::{Path, PathBuf};

use classes::{BYTE_CLASS, CLASSES, NAMES, START};

/// Fixed-point scale of the generated weights: 12 fractional bits keep the
/// rounding error under one token per 8 KB and every weight well inside i16.
const SCALE_BITS: u32 = 12;
/// Ridge strength, relative to the mean diagonal of the normal matrix.
const DEFAULT_RIDGE: f64 = 1e-3;
/// Pieces of a training sample are cut at roughly these lengths, in bytes.
const PIECE_MIN: usize = 160;
const PIECE_MAX: usize = 1200;

const FEATURES: usize = CLASSES * CLASSES;

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

    let mut rows: Vec<(Vec<f64>, f64)> = Vec::new();
    let mut cutter = 0x243f_6a88_85a3_08d3_u64;
    for sample in samples.iter().step_by(2) {
        rows.push((pair_counts(sample.text.as_bytes()), exact(&sample.text)));
        for piece in pieces(&sample.text, &mut cutter) {
            rows.push((pair_counts(piece.as_bytes()), exact(piece)));
        }
    }
    let bytes: f64 = rows.iter().map(|(x, _)| x.iter().sum::<f64>()).sum();
    let tokens: f64 = rows.iter().map(|(_, y)| y).sum();
    let prior = tokens / bytes;
    let weights = fit(&rows, ridge, prior);
    let fixed = quantise(&weights);

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

fn check(paths: &[PathBuf], fixed: &[i16]) -> std::io::Result<()> {
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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokens")
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

fn exact(text: &str) -> f64 {
    terse::tokens::exact(text) as f64
}

/// How often each (previous class, class) pair occurs, the first byte paired
/// with the start class exactly as the estimator does.
fn pair_counts(text: &[u8]) -> Vec<f64> {
    let mut counts = vec![0.0; FEATURES];
    let mut prev = START as usize;
    for &b in text {
        let class = BYTE_CLASS[b as usize] as usize;
        counts[prev * CLASSES + class] += 1.0;
        prev = class;
    }
    counts
}

/// Cuts a text into consecutive pieces of pseudo-random length, each ending
/// just before a space or just after a line break where one is near, so that
/// few tokens straddle a cut and the pieces' exact counts stay additive.
fn pieces<'a>(text: &'a str, state: &mut u64) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut start = 0;
    while text.len() - start > PIECE_MAX {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let want = PIECE_MIN + (*state % (PIECE_MAX - PIECE_MIN) as u64) as usize;
        let mut end = start + want;
        let window_end = (end + 64).min(text.len());
        let bytes = text.as_bytes();
        if let Some(offset) =
            (end..window_end).find(|&i| bytes[i] == b' ' || (i > 0 && bytes[i - 1] == b'\n'))
        {
            end = offset;
        }
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out.push(&text[start..]);
    out
}

/// Ridge least squares on relative error: minimises
/// `sum(((x.w - y) / y)^2) + ridge * mean_diag * |w - prior|^2`.
///
/// The penalty pulls towards `prior` (the corpus' tokens per byte) rather than
/// zero, so a pair that is rare in the training half still counts like an
/// average byte instead of counting nothing.
///
/// Solved through the normal equations with a hand-written Cholesky
/// factorisation: the system is at most 1 024 unknowns, symmetric positive
/// definite thanks to the ridge term, and this is a one-off tool, so a linear
/// algebra dependency would cost more build time than the thirty lines below.
fn fit(rows: &[(Vec<f64>, f64)], ridge: f64, prior: f64) -> Vec<f64> {
    let n = FEATURES;
    let mut a = vec![0.0; n * n];
    let mut b = vec![0.0; n];
    for (x, y) in rows {
        let weight = 1.0 / (y * y).max(1.0);
        let nonzero: Vec<usize> = (0..n).filter(|&i| x[i] != 0.0).collect();
        for &i in &nonzero {
            b[i] += weight * x[i] * y;
            for &j in &nonzero {
                a[i * n + j] += weight * x[i] * x[j];
            }
        }
    }
    let mean_diag = (0..n).map(|i| a[i * n + i]).sum::<f64>() / n as f64;
    let lambda = ridge * mean_diag;
    for i in 0..n {
        a[i * n + i] += lambda;
        b[i] += lambda * prior;
    }
    cholesky_solve(&mut a, &mut b, n);
    b
}

/// Solves `a x = b` in place for symmetric positive definite `a`; `b` ends up
/// holding `x`.
fn cholesky_solve(a: &mut [f64], b: &mut [f64], n: usize) {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = d.max(f64::MIN_POSITIVE).sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * n + k] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= a[k * n + i] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
}

fn quantise(weights: &[f64]) -> Vec<i16> {
    let scale = f64::from(1u32 << SCALE_BITS);
    weights
        .iter()
        .map(|w| {
            (w * scale)
                .round()
                .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
        })
        .collect()
}

/// The estimate with quantised weights, computed the way the library does.
fn estimate(fixed: &[i16], text: &[u8]) -> f64 {
    let mut prev = START as usize;
    let mut sum = 0i64;
    for &b in text {
        let class = BYTE_CLASS[b as usize] as usize;
        sum += i64::from(fixed[prev * CLASSES + class]);
        prev = class;
    }
    if text.is_empty() {
        return 0.0;
    }
    let rounded = (sum.max(0) + (1 << (SCALE_BITS - 1))) >> SCALE_BITS;
    rounded.max(1) as f64
}

fn report(samples: &[Sample], fixed: &[i16]) {
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

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn render(fixed: &[i16], ridge: f64) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Fitted pair weights for the token estimator. Generated file: do not edit.\n\
         //!\n\
         //! Regenerate after changing the classes or the corpus with\n\
         //! `cargo run --release -p terse --example fit_token_weights --features exact-tokens \\\n\
         //! > crates/terse/src/tokens/weights.rs`\n\
         //! (the corpus itself comes from `cargo run -p terse --example token_corpus`).\n\n",
    );
    out.push_str(&format!(
        "/// Fractional bits of the fixed-point weights.\n\
         pub(super) const SCALE_BITS: u32 = {SCALE_BITS};\n\n\
         /// Tokens per byte, times 2^SCALE_BITS, indexed by [previous class][class]\n\
         /// (ridge {ridge:e}).\n\
         #[rustfmt::skip]\n\
         pub(super) const WEIGHTS: [[i16; super::classes::CLASSES]; super::classes::CLASSES] = [\n"
    ));
    for (prev, row) in fixed.chunks(CLASSES).enumerate() {
        let cells: Vec<String> = row.iter().map(|w| format!("{w:>6}")).collect();
        out.push_str(&format!("    [{}], // {}\n", cells.join(","), NAMES[prev]));
    }
    out.push_str("];\n");
    out
}
