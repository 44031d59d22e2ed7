//! Fitting the token estimator's weights: the pair counts of a text, a
//! ridge least-squares fit on relative error, the estimator's fixed point,
//! and the generated `weights.rs`.

use terse_tokens::model::{
    BYTE_CLASS, CLASS_NAMES as NAMES, CLASSES, FEATURE_NAMES, FEATURES as ASCII_FEATURES, RUN,
    features as ascii_features, lower,
};

/// Fixed-point scale of the class-pair weights: 12 fractional bits keep the
/// rounding error under one token per 8 KB and every weight well inside i16.
pub const SCALE_BITS: u32 = 12;
/// Fixed-point scale of the ASCII weights: a pair's summed weight has to fit
/// one byte (the estimator adds sixteen of them in one SIMD register), so
/// they are in 64ths of a token.
pub const ASCII_SCALE_BITS: u32 = 6;
/// The first byte of a text is paired with a line break.
pub const START_BYTE: u8 = b'\n';
/// Ridge strength, relative to the mean diagonal of the normal matrix.
pub const DEFAULT_RIDGE: f64 = 1e-4;
/// Pieces of a training sample are cut at roughly these lengths, in bytes.
pub const PIECE_MIN: usize = 160;
pub const PIECE_MAX: usize = 1200;

/// The base weight of an ASCII pair, the ASCII features, the class pairs,
/// then the runs of lowercase letters.
pub const ASCII: usize = 1 + ASCII_FEATURES;
pub const RUNS: usize = ASCII + CLASSES * CLASSES;
pub const FEATURES: usize = RUNS + 1;

/// How many windows of `RUN` bytes of `text` are all lowercase letters.
pub fn run_count(text: &[u8]) -> usize {
    text.windows(RUN)
        .filter(|w| w.iter().all(|&b| lower(b)))
        .count()
}

/// The exact o200k_base count of `text`, remembered: leaving each family
/// out in turn counts the same texts many times.
pub fn exact(text: &str) -> f64 {
    use std::collections::HashMap;
    use std::sync::{Mutex, PoisonError};
    static COUNTS: Mutex<Option<HashMap<String, f64>>> = Mutex::new(None);
    let remembered = |counts: &mut Option<HashMap<String, f64>>| {
        counts.get_or_insert_with(HashMap::new).get(text).copied()
    };
    if let Some(count) = remembered(&mut COUNTS.lock().unwrap_or_else(PoisonError::into_inner)) {
        return count;
    }
    let count = terse_tokens::exact(text) as f64;
    COUNTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(text.to_owned(), count);
    count
}

/// How often each weight is added: ASCII pairs, each ASCII feature, each
/// (previous class, class) pair of the others, runs of lowercase letters;
/// the first byte paired with a line break exactly as the estimator does.
pub fn pair_counts(text: &[u8]) -> Vec<f64> {
    let mut counts = vec![0.0; FEATURES];
    let mut prev = START_BYTE;
    for &b in text {
        if prev < 0x80 && b < 0x80 {
            counts[0] += 1.0;
            for (f, has) in ascii_features(prev, b).into_iter().enumerate() {
                if has {
                    counts[1 + f] += 1.0;
                }
            }
        } else {
            let (p, c) = (BYTE_CLASS[prev as usize], BYTE_CLASS[b as usize]);
            counts[ASCII + p as usize * CLASSES + c as usize] += 1.0;
        }
        prev = b;
    }
    counts[RUNS] = run_count(text) as f64;
    counts
}

/// Cuts a text into consecutive pieces of pseudo-random length, each ending
/// just before a space or just after a line break where one is near, so that
/// few tokens straddle a cut and the pieces' exact counts stay additive.
pub fn pieces<'a>(text: &'a str, state: &mut u64) -> Vec<&'a str> {
    pieces_between(text, state, PIECE_MIN, PIECE_MAX)
}

/// [`pieces`] of roughly `min` to `max` bytes.
pub fn pieces_between<'a>(text: &'a str, state: &mut u64, min: usize, max: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut start = 0;
    while text.len() - start > max {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let want = min + (*state % (max - min) as u64) as usize;
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

/// The normal equations of ridge least squares on relative error, which
/// minimises `sum(((x.w - y) / y)^2) + ridge * mean_diag * |w - prior|^2`.
///
/// The penalty pulls the base ASCII weight and the class-pair weights
/// towards `prior` (the corpus' tokens per byte) rather than zero, so a pair
/// that is rare in the training half still counts like an average byte
/// instead of counting nothing; the ASCII features, which adjust the base
/// weight, are pulled towards zero.
///
/// Solved (by `solve`) with a hand-written Cholesky factorisation: the
/// system is about 1 200 unknowns, symmetric positive definite thanks to the
/// ridge term, and this is a one-off tool, so a linear algebra dependency
/// would cost more build time than the thirty lines below.
pub fn normal_equations(rows: &[(Vec<f64>, f64)], ridge: f64, prior: f64) -> (Vec<f64>, Vec<f64>) {
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
        // The ASCII features adjust the base weight: pulled towards zero.
        if i == 0 || (ASCII..RUNS).contains(&i) {
            b[i] += lambda * prior;
        }
    }
    (a, b)
}

/// Solves the normal equations with the weights in `fixed` held at the given
/// values.
pub fn solve(a: &[f64], b: &[f64], fixed: &[(usize, f64)]) -> Vec<f64> {
    let n = FEATURES;
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    for &(f, value) in fixed {
        for i in 0..n {
            b[i] -= a[i * n + f] * value;
            a[i * n + f] = 0.0;
            a[f * n + i] = 0.0;
        }
        a[f * n + f] = 1.0;
        b[f] = value;
    }
    solve_symmetric(&a, &b, n)
}

/// Solves `a x = b` for `n` unknowns, `a` symmetric positive definite.
///
/// An unknown coupled with no other (a class pair the rows never have, a
/// weight held fixed) is its own equation; the rest are solved as one
/// system, which is far smaller than all of them (Cholesky is cubic).
pub fn solve_symmetric(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let coupled: Vec<usize> = (0..n)
        .filter(|&i| (0..n).any(|j| j != i && a[i * n + j] != 0.0))
        .collect();
    let mut x: Vec<f64> = (0..n).map(|i| b[i] / a[i * n + i]).collect();
    let m = coupled.len();
    let mut system = vec![0.0; m * m];
    let mut rhs: Vec<f64> = coupled.iter().map(|&i| b[i]).collect();
    for (r, &i) in coupled.iter().enumerate() {
        for (c, &j) in coupled.iter().enumerate() {
            system[r * m + c] = a[i * n + j];
        }
    }
    cholesky_solve(&mut system, &mut rhs, m);
    for (r, &i) in coupled.iter().enumerate() {
        x[i] = rhs[r];
    }
    x
}

/// Fits, then rounds the weights to fixed point: the ASCII ones one at a
/// time, largest first, refitting the rest after each so that they make up
/// for its rounding (64ths of a token are coarse); then the class pairs.
pub fn fit_fixed_point(
    rows: &[(Vec<f64>, f64)],
    ridge: f64,
    prior: f64,
) -> Result<Fixed, Box<dyn std::error::Error>> {
    let (a, b) = normal_equations(rows, ridge, prior);
    let ascii_scale = f64::from(1u32 << ASCII_SCALE_BITS);
    let mut fixed: Vec<(usize, f64)> = Vec::new();
    let mut weights = solve(&a, &b, &fixed);
    for _ in 0..ASCII {
        let f = (0..ASCII)
            .filter(|f| !fixed.iter().any(|&(g, _)| g == *f))
            .max_by(|&f, &g| weights[f].abs().total_cmp(&weights[g].abs()))
            .expect("an ASCII weight left");
        fixed.push((f, (weights[f] * ascii_scale).round() / ascii_scale));
        weights = solve(&a, &b, &fixed);
    }
    let ascii: Vec<i32> = weights[..ASCII]
        .iter()
        .map(|w| (w * ascii_scale).round() as i32)
        .collect();
    let (mut low, mut high) = (i32::MAX, i32::MIN);
    for prev in 0..0x80u8 {
        for byte in 0..0x80u8 {
            let has = ascii_features(prev, byte);
            let sum = ascii[0]
                + (0..ASCII_FEATURES)
                    .filter(|&f| has[f])
                    .map(|f| ascii[1 + f])
                    .sum::<i32>();
            low = low.min(sum);
            high = high.max(sum);
        }
    }
    if high - low > 255 {
        return Err(format!(
            "ASCII pair weights span {low}..={high} 64ths of a token, more than a byte holds: {ascii:?}"
        )
        .into());
    }
    Ok(Fixed {
        ascii_base: ascii[0],
        ascii_offset: -low,
        features: ascii[1..].to_vec(),
        pairs: quantise(&weights[ASCII..RUNS]),
        run: quantise(&weights[RUNS..])[0],
    })
}

/// The weights in the estimator's fixed point.
pub struct Fixed {
    /// The weight of every ASCII pair, in 64ths of a token.
    pub ascii_base: i32,
    /// Added to each ASCII pair's weight so that none is negative.
    pub ascii_offset: i32,
    /// The weight of each ASCII feature, in 64ths of a token.
    pub features: Vec<i32>,
    /// The class-pair weights, in 4096ths of a token.
    pub pairs: Vec<i16>,
    /// The weight of a run of lowercase letters, in 4096ths of a token.
    pub run: i16,
}

impl Fixed {
    pub fn pair(&self, prev: u8, byte: u8) -> i64 {
        if prev < 0x80 && byte < 0x80 {
            let has = ascii_features(prev, byte);
            let sum = self.ascii_base
                + (0..ASCII_FEATURES)
                    .filter(|&f| has[f])
                    .map(|f| self.features[f])
                    .sum::<i32>();
            i64::from(sum) << (SCALE_BITS - ASCII_SCALE_BITS)
        } else {
            let (p, c) = (
                BYTE_CLASS[prev as usize] as usize,
                BYTE_CLASS[byte as usize] as usize,
            );
            i64::from(self.pairs[p * CLASSES + c])
        }
    }
}

/// Solves `a x = b` in place for symmetric positive definite `a`; `b` ends up
/// holding `x`.
pub fn cholesky_solve(a: &mut [f64], b: &mut [f64], n: usize) {
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

pub fn quantise(weights: &[f64]) -> Vec<i16> {
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
pub fn estimate(fixed: &Fixed, text: &[u8]) -> f64 {
    let mut prev = START_BYTE;
    let mut sum = 0i64;
    for &b in text {
        sum += fixed.pair(prev, b);
        prev = b;
    }
    sum += run_count(text) as i64 * i64::from(fixed.run);
    if text.is_empty() {
        return 0.0;
    }
    let rounded = (sum.max(0) + (1 << (SCALE_BITS - 1))) >> SCALE_BITS;
    rounded.max(1) as f64
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn render(fixed: &Fixed, ridge: f64) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Fitted weights for the token estimator. Generated file: do not edit.\n\
         //!\n\
         //! Regenerate after changing the classes, the ASCII features or the corpus with\n\
         //! `cargo run --release -p terse-tools --bin fit_token_weights \\\n\
         //! > crates/terse-tokens/src/weights.rs`\n\
         //! (the corpus itself comes from `cargo run -p terse-tools --bin token_corpus`).\n\n",
    );
    out.push_str(&format!(
        "/// Fractional bits of the fixed-point class-pair weights.\n\
         pub(super) const SCALE_BITS: u32 = {SCALE_BITS};\n\n\
         /// Fractional bits of the fixed-point ASCII weights.\n\
         pub(super) const ASCII_SCALE_BITS: u32 = {ASCII_SCALE_BITS};\n\n\
         /// Tokens per pair of ASCII bytes before its features, times 2^ASCII_SCALE_BITS.\n\
         pub(super) const ASCII_BASE: i16 = {};\n\n\
         /// Added to every ASCII pair's weight so that none is below zero (and none\n\
         /// is above 255).\n\
         pub(super) const ASCII_OFFSET: u8 = {};\n\n\
         /// Tokens added by each ASCII feature, times 2^ASCII_SCALE_BITS, in the\n\
         /// order of `features::NAMES`.\n\
         #[rustfmt::skip]\n\
         pub(super) const FEATURE_WEIGHTS: [i16; super::features::FEATURES] = [\n",
        fixed.ascii_base, fixed.ascii_offset
    ));
    for (w, name) in fixed.features.iter().zip(FEATURE_NAMES) {
        out.push_str(&format!("    {w}, // {name}\n"));
    }
    out.push_str(&format!(
        "];\n\n\
         /// Tokens added by each run of `features::RUN` lowercase letters, times\n\
         /// 2^SCALE_BITS.\n\
         pub(super) const RUN_WEIGHT: i16 = {};\n\n\
         /// Tokens per byte, times 2^SCALE_BITS, indexed by [previous class][class]\n\
         /// (ridge {ridge:e}); used for pairs with a byte of 0x80 or above (pairs of\n\
         /// two ASCII bytes are weighed by the features above).\n\
         #[rustfmt::skip]\n\
         pub(super) const WEIGHTS: [[i16; super::classes::CLASSES]; super::classes::CLASSES] = [\n",
        fixed.run
    ));
    for (prev, row) in fixed.pairs.chunks(CLASSES).enumerate() {
        let cells: Vec<String> = row.iter().map(|w| format!("{w:>6}")).collect();
        out.push_str(&format!("    [{}], // {}\n", cells.join(","), NAMES[prev]));
    }
    out.push_str("];\n");
    out
}

/// The fitting rows of `texts`: each whole, and cut into pieces (for more
/// rows than weights, and for short texts).
pub fn rows<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<(Vec<f64>, f64)> {
    let mut rows = Vec::new();
    let mut cutter = 0x243f_6a88_85a3_08d3_u64;
    for text in texts {
        rows.push((pair_counts(text.as_bytes()), exact(text)));
        for piece in pieces(text, &mut cutter) {
            rows.push((pair_counts(piece.as_bytes()), exact(piece)));
        }
    }
    rows
}

/// Fits the fixed-point weights on `rows`; also returns the prior (tokens
/// per byte of the rows).
pub fn fit(
    rows: &[(Vec<f64>, f64)],
    ridge: f64,
) -> Result<(Fixed, f64), Box<dyn std::error::Error>> {
    let bytes: f64 = rows
        .iter()
        .map(|(x, _)| x[0] + x[ASCII..RUNS].iter().sum::<f64>())
        .sum();
    let tokens: f64 = rows.iter().map(|(_, y)| y).sum();
    let prior = tokens / bytes;
    Ok((fit_fixed_point(rows, ridge, prior)?, prior))
}

/// The relative error of `fixed`'s estimate of `text`.
pub fn relative_error(fixed: &Fixed, text: &str) -> f64 {
    let y = exact(text);
    (estimate(fixed, text.as_bytes()) - y).abs() / y.max(1.0)
}

/// Mean and nearest-rank 95th percentile of `errors`.
pub fn mean_p95(errors: &[f64]) -> (f64, f64) {
    let mut sorted = errors.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
    (mean, percentile(&sorted, 0.95))
}
