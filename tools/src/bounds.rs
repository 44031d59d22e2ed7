//! How far a token estimator without a tokenizer can get on the validation
//! families: the estimator's model next to richer models of the same kind
//! and models that know words, each fitted and measured the way
//! `cross_family` does it (leave one family out), and fitted on everything
//! (in sample: the best the model can do on these texts at all).
//!
//! The richer models are only measured here, never shipped: they say whether
//! a goal is out of reach of the estimator's kind of model, or only of its
//! current features.

use std::collections::HashSet;
use std::sync::OnceLock;

use terse_tokens::model::{BYTE_CLASS, CLASSES};

use crate::families::{FAMILIES, Sample, samples, validation_texts};
use crate::fit::{
    ASCII, FEATURES as ESTIMATOR, RUNS, START_BYTE, exact, mean_p95, pair_counts, pieces,
    run_count, solve_symmetric,
};

/// One model: which counts of a text it weighs.
#[derive(Clone, Copy)]
pub struct Model {
    /// What the report calls it.
    pub name: &'static str,
    /// Pairs of ASCII bytes weighed by their pair of classes (as pairs with
    /// a byte of 0x80 or above are), not by the estimator's nine features.
    pub ascii_class_pairs: bool,
    /// Counts of windows of consecutive bytes of one kind, beyond the
    /// estimator's runs of five lowercase letters: lowercase letters,
    /// capitals, digits, bytes of 0x80 or above, ASCII punctuation.
    pub more_runs: bool,
    /// Words looked up in the o200k_base vocabulary: how many words (with
    /// their leading space) are one token, how many are not, and the bytes
    /// of those that are not, ASCII and other scripts apart.
    pub vocabulary: bool,
    /// The exact count of every word beyond its first token, ASCII and
    /// other scripts apart: what knowing words perfectly could add.
    pub word_oracle: bool,
}

/// The models the report compares, from the estimator's to the oracle.
pub const MODELS: [Model; 5] = [
    Model {
        name: "the estimator's features",
        ascii_class_pairs: false,
        more_runs: false,
        vocabulary: false,
        word_oracle: false,
    },
    Model {
        name: "+ runs of 2-16 bytes",
        ascii_class_pairs: false,
        more_runs: true,
        vocabulary: false,
        word_oracle: false,
    },
    Model {
        name: "ASCII class pairs",
        ascii_class_pairs: true,
        more_runs: false,
        vocabulary: false,
        word_oracle: false,
    },
    Model {
        name: "+ o200k vocabulary",
        ascii_class_pairs: false,
        more_runs: false,
        vocabulary: true,
        word_oracle: false,
    },
    Model {
        name: "+ exact word counts",
        ascii_class_pairs: false,
        more_runs: false,
        vocabulary: false,
        word_oracle: true,
    },
];

/// Which bytes a run is made of.
type Kind = fn(u8) -> bool;

/// The windows `more_runs` counts: (length, which bytes).
const MORE_RUNS: [(usize, Kind); 11] = [
    (3, |b| b.is_ascii_lowercase()),
    (8, |b| b.is_ascii_lowercase()),
    (11, |b| b.is_ascii_lowercase()),
    (3, |b| b.is_ascii_uppercase()),
    (3, |b| b.is_ascii_digit()),
    (4, |b| b.is_ascii_digit()),
    (4, |b| b >= 0x80),
    (8, |b| b >= 0x80),
    (16, |b| b >= 0x80),
    (2, |b| b.is_ascii_punctuation()),
    (3, |b| b.is_ascii_punctuation()),
];

/// Where each group of counts starts in a row: first the estimator's own
/// (`fit::pair_counts`), then the richer models'.
const MORE: usize = ESTIMATOR;
const WORDS: usize = MORE + MORE_RUNS.len();
/// Counts in a row.
const WIDTH: usize = WORDS + 6;

/// A text's counts, sparse: (index, count).
type Row = Vec<(usize, f64)>;

/// What `model` counts in `text`.
fn counts(model: &Model, text: &[u8]) -> Row {
    let mut row = if model.ascii_class_pairs {
        class_pair_counts(text)
    } else {
        pair_counts(text)
    };
    row.resize(WIDTH, 0.0);
    if model.more_runs {
        for (k, (len, kind)) in MORE_RUNS.iter().enumerate() {
            row[MORE + k] = windows(text, *len, *kind);
        }
    }
    if model.vocabulary || model.word_oracle {
        row[WORDS..].copy_from_slice(&word_counts(model, text));
    }
    row.into_iter()
        .enumerate()
        .filter(|&(_, v)| v != 0.0)
        .collect()
}

/// The estimator's counts with every pair of bytes weighed by its pair of
/// classes, ASCII pairs too, instead of by the nine ASCII features.
fn class_pair_counts(text: &[u8]) -> Vec<f64> {
    let mut counts = vec![0.0; ESTIMATOR];
    let mut prev = START_BYTE;
    for &b in text {
        let (p, c) = (BYTE_CLASS[usize::from(prev)], BYTE_CLASS[usize::from(b)]);
        counts[ASCII + usize::from(p) * CLASSES + usize::from(c)] += 1.0;
        prev = b;
    }
    counts[RUNS] = run_count(text) as f64;
    counts
}

/// Windows of `len` consecutive bytes that are all `kind`.
fn windows(text: &[u8], len: usize, kind: impl Fn(u8) -> bool) -> f64 {
    let mut run = 0;
    let mut count = 0;
    for &b in text {
        run = if kind(b) { run + 1 } else { 0 };
        if run >= len {
            count += 1;
        }
    }
    f64::from(count)
}

/// Bytes a word is made of: ASCII letters, and UTF-8 letters of other
/// scripts as far as bytes tell (lead and continuation bytes, emoji apart).
fn in_word(b: u8) -> bool {
    b.is_ascii_alphabetic() || (0x80..0xF0).contains(&b)
}

/// The word counts of the vocabulary model or of the oracle, ASCII words
/// first, then the others.
fn word_counts(model: &Model, text: &[u8]) -> [f64; 6] {
    let mut out = [0.0; 6];
    let mut i = 0;
    while i < text.len() {
        if !in_word(text[i]) {
            i += 1;
            continue;
        }
        let start = if i > 0 && text[i - 1] == b' ' {
            i - 1
        } else {
            i
        };
        let mut end = i;
        while end < text.len() && in_word(text[end]) {
            end += 1;
        }
        let script = if text[i..end].is_ascii() { 0 } else { 3 };
        let word = &text[start..end];
        if model.word_oracle {
            if let Ok(word) = std::str::from_utf8(word) {
                out[script] += exact(word) - 1.0;
            }
        } else if vocabulary().contains(word) {
            out[script] += 1.0;
        } else {
            out[script + 1] += 1.0;
            out[script + 2] += (end - i) as f64;
        }
        i = end;
    }
    out
}

/// The o200k_base tokens that are one word, with or without a leading
/// space.
fn vocabulary() -> &'static HashSet<Vec<u8>> {
    static WORDS: OnceLock<HashSet<Vec<u8>>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let bpe = &bpe_openai::o200k_base().bpe;
        (0..bpe.num_tokens() as u32)
            .map(|id| bpe.token_bytes(id))
            .filter(|token| {
                let word = token.strip_prefix(b" ").unwrap_or(token);
                !word.is_empty()
                    && word.iter().all(|&b| in_word(b))
                    && std::str::from_utf8(token).is_ok()
            })
            .map(<[u8]>::to_vec)
            .collect()
    })
}

/// Ridge least squares on relative error over sparse rows, as
/// `fit::normal_equations` does it for the estimator: the per-byte weights
/// are pulled towards the rows' tokens per byte, the rest towards zero.
fn fit(rows: &[(Row, f64)], ridge: f64) -> Vec<f64> {
    let n = WIDTH;
    let per_byte = |i: usize| i == 0 || (ASCII..RUNS).contains(&i);
    let mut a = vec![0.0; n * n];
    let mut b = vec![0.0; n];
    let (mut bytes, mut tokens) = (0.0, 0.0);
    for (x, y) in rows {
        let weight = 1.0 / (y * y).max(1.0);
        for &(i, xi) in x {
            b[i] += weight * xi * y;
            for &(j, xj) in x {
                a[i * n + j] += weight * xi * xj;
            }
            if per_byte(i) {
                bytes += xi;
            }
        }
        tokens += y;
    }
    let prior = tokens / bytes;
    // Relative to the mean diagonal over the estimator's own weights, as
    // `fit::normal_equations` has it, whatever a model adds.
    let lambda = ridge * (0..MORE).map(|i| a[i * n + i]).sum::<f64>() / MORE as f64;
    for i in 0..n {
        a[i * n + i] += lambda;
        if per_byte(i) {
            b[i] += lambda * prior;
        }
    }
    solve_symmetric(&a, &b, n)
}

/// The rounded estimate of a row with weights `w`, at least one token.
fn estimate(w: &[f64], row: &Row) -> f64 {
    row.iter()
        .map(|&(i, v)| w[i] * v)
        .sum::<f64>()
        .round()
        .max(1.0)
}

/// One model's errors.
pub struct Bound {
    /// The model.
    pub model: Model,
    /// Relative errors over all families, each family measured with the
    /// weights fitted without it.
    pub cross_family: Vec<f64>,
    /// The family with the highest mean error left out, with its mean and
    /// p95.
    pub worst_family: (&'static str, f64, f64),
    /// Relative errors on the same texts with the weights fitted on every
    /// family.
    pub in_sample: Vec<f64>,
}

/// Measures every model of [`MODELS`] (ridge strength `ridge`).
pub fn bounds(ridge: f64) -> Vec<Bound> {
    let all = samples();
    // Fitting rows: each text and its pieces, as `fit::rows` cuts them.
    let mut cutter = 0x243f_6a88_85a3_08d3_u64;
    let training: Vec<(&'static str, String)> = all
        .iter()
        .flat_map(|s| {
            let mut texts = vec![(s.family, s.text.clone())];
            texts.extend(
                pieces(&s.text, &mut cutter)
                    .into_iter()
                    .map(|p| (s.family, p.to_owned())),
            );
            texts
        })
        .collect();
    let validation: Vec<(&'static str, Vec<String>)> = FAMILIES
        .iter()
        .map(|&family| {
            let held_out: Vec<&Sample> = all.iter().filter(|s| s.family == family).collect();
            let texts = validation_texts(&held_out)
                .into_iter()
                .map(|text| text.into_owned())
                .collect();
            (family, texts)
        })
        .collect();
    MODELS
        .iter()
        .map(|model| {
            let rows: Vec<(&str, (Row, f64))> = training
                .iter()
                .map(|(family, text)| (*family, (counts(model, text.as_bytes()), exact(text))))
                .collect();
            let errors = |w: &[f64], texts: &[String]| -> Vec<f64> {
                texts
                    .iter()
                    .map(|text| {
                        let y = exact(text);
                        (estimate(w, &counts(model, text.as_bytes())) - y).abs() / y.max(1.0)
                    })
                    .collect()
            };
            let everything: Vec<(Row, f64)> = rows.iter().map(|(_, r)| r.clone()).collect();
            let w_all = fit(&everything, ridge);
            let mut cross_family = Vec::new();
            let mut in_sample = Vec::new();
            let mut worst_family = ("", 0.0, 0.0);
            for (family, texts) in &validation {
                let without: Vec<(Row, f64)> = rows
                    .iter()
                    .filter(|(f, _)| f != family)
                    .map(|(_, r)| r.clone())
                    .collect();
                let family_errors = errors(&fit(&without, ridge), texts);
                let (mean, p95) = mean_p95(&family_errors);
                if mean > worst_family.1 {
                    worst_family = (family, mean, p95);
                }
                cross_family.extend(family_errors);
                in_sample.extend(errors(&w_all, texts));
            }
            Bound {
                model: *model,
                cross_family,
                worst_family,
                in_sample,
            }
        })
        .collect()
}

/// The comparison as the README's Markdown table: one row per model, errors
/// to a tenth of a percent.
pub fn markdown(bounds: &[Bound]) -> String {
    let mut out = String::from(
        "| model | left out: mean | p95 | worst family left out | in sample: mean | p95 |\n\
         | --- | ---: | ---: | --- | ---: | ---: |\n",
    );
    for bound in bounds {
        let (mean, p95) = mean_p95(&bound.cross_family);
        let (in_mean, in_p95) = mean_p95(&bound.in_sample);
        let (family, worst_mean, _) = bound.worst_family;
        out.push_str(&format!(
            "| {} | {:.1}% | {:.1}% | {family} ({:.1}%) | {:.1}% | {:.1}% |\n",
            bound.model.name,
            mean * 100.0,
            p95 * 100.0,
            worst_mean * 100.0,
            in_mean * 100.0,
            in_p95 * 100.0
        ));
    }
    out
}
