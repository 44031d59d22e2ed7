//! Features of pairs of ASCII bytes for the token estimator.
//!
//! A pair of bytes that are both ASCII is weighed by the features it has
//! instead of by its pair of classes: a fitted base weight plus the weight of
//! each feature below that holds for it. Each feature is a test or two on the
//! byte and on the byte before it (a range, an equality, an order), so that
//! sixteen bytes at a time can be tested with a handful of SIMD compares and
//! no table. Pairs with a byte of `0x80` or above keep the class-pair weights.
//!
//! The weight-fitting tool reads this file through `tokens::model`, so the fitted
//! weights and the estimator always agree on what a feature is.

/// How many features there are.
pub const FEATURES: usize = 9;

/// `byte > bound`, both below `0x80`: a signed compare, which SSE2 has for
/// bytes (it has no unsigned one).
#[inline(always)]
const fn above(byte: u8, bound: u8) -> bool {
    (byte as i8) > (bound as i8)
}

/// `A`-`Z`.
#[inline(always)]
const fn upper(b: u8) -> bool {
    above(b, b'A' - 1) & !above(b, b'Z')
}

/// `a`-`z`.
#[inline(always)]
pub const fn lower(b: u8) -> bool {
    above(b, b'a' - 1) & !above(b, b'z')
}

/// `0`-`9`.
#[inline(always)]
const fn digit(b: u8) -> bool {
    above(b, b'0' - 1) & !above(b, b'9')
}

/// Which features the pair (`prev`, `byte`) has; both are below `0x80`.
///
/// The estimator calls this on sixteen lanes at once, so every test is one
/// LLVM turns into a compare on vectors: keep it branch-free and short, each
/// feature costs a few instructions per sixteen bytes.
#[inline(always)]
pub const fn features(prev: u8, byte: u8) -> [bool; FEATURES] {
    [
        // Digits come in groups of up to three: a run of them starts a new
        // token, and a space before one is a token of its own.
        digit(byte) & !digit(prev),
        digit(byte) & (prev == b' '),
        // A capital after a lowercase letter: a camelCase hump.
        upper(byte) & above(prev, b'Z'),
        // Past `Z`: lowercase letters and the punctuation above `Z`; a run
        // of them after anything else starts a word.
        above(byte, b'Z') & !above(prev, b'Z'),
        // Past `f`: letters that are not hex digits (ids and hashes are
        // dense).
        above(byte, b'f'),
        // Line breaks (one token however many), spaces, dashes.
        (byte == b'\n') & (prev != b'\n'),
        byte == b' ',
        byte == b'-',
        // Indentation: the first space of a line starts a run of spaces
        // that o200k takes as one token.
        (byte == b' ') & (prev == b'\n'),
    ]
}

/// How many lowercase letters in a row make a run: the estimator counts
/// every window of this many bytes that are all `a`-`z`, so a word of `n`
/// letters has `n - RUN + 1` of them and a shorter one none.
///
/// o200k merges common words into one token however long they are, so the
/// letters of a long word cost less each than those of a short one; a
/// weight for each pair cannot see how long the word is, this count can.
pub const RUN: usize = 5;

/// Short names of the features, in order, for the fitting tool's report and
/// the generated weights.
#[cfg_attr(not(feature = "fitting"), allow(dead_code))] // read by the fitting tool
pub const NAMES: [&str; FEATURES] = [
    "digit_after_non_digit",
    "digit_after_space",
    "upper_after_lower",
    "above_z_after_other",
    "above_f",
    "line_break",
    "space",
    "dash",
    "space_after_line_break",
];
