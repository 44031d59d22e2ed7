//! The token estimator: SIMD-friendly features on ASCII, pair weights
//! elsewhere.

use super::dispatch;
use super::features::RUN;
use super::kernel::{CHUNK, PAIR, START_BYTE};
use super::weights::SCALE_BITS;

/// Estimates how many o200k_base tokens `text` takes, without a tokenizer.
///
/// One pass over the bytes adds a fitted weight for each pair of adjacent
/// bytes. A pair of two ASCII bytes is weighed by nine features: does a run
/// of digits start (after a space or not), does a capital follow a lowercase
/// letter, does a run of lowercase letters start, is the byte a letter past
/// `f` (ids and hashes are dense), a line break, the first space of a line
/// (indentation), a space or a dash. They are
/// tested on many pairs at once with vector compares, with no table: 32 at
/// a time with AVX2 on x86-64 CPUs that have it, 16 with SSE2 on the rest.
/// A pair
/// with a byte of 0x80 or above is weighed by its pair of byte classes (a
/// UTF-8 lead byte of a given script, a continuation byte, ...) through a
/// table, one lookup per byte. The same pass also counts the windows of
/// five bytes that are all lowercase letters, each with a fitted (negative)
/// weight: o200k makes one token of a common word however long it is, so
/// the letters of a long word cost less each than those of a short one,
/// which no weight of a pair can see.
///
/// On the crate's test corpus (JSON compact and pretty, TOON and
/// line-per-record text in eleven languages and emoji, with UUIDs,
/// timestamps and base64) it is 1.6% off the exact count on average and
/// 4.0% off or less for 95% of samples; the test holds it to 2% and 5%. Text
/// of a kind the weights were not fitted on is further off: fitted without
/// each family of text in turn and measured on it (`cargo run --release -p
/// terse-tools --bin cross_family`), it is 1.7% (URLs and ids) to 11.2%
/// (prose) off on average, 3.3% over all families, and 9.0% at the 95th
/// percentile. Prose is the limit of a model of byte pairs: it comes out
/// low (Hindi by a quarter, Arabic by a fifth, English by a twelfth),
/// because real prose uses rarer words, split into more tokens, than the
/// records the weights are fitted on, and nothing in a pair of bytes tells
/// a rare word from a common one. So the smart fallback does not trust the
/// estimate on near ties: see [`choose`](super::choose()).
///
/// With AVX2 the pairs are scored by the kernel in `tokens/avx2.rs`, 32 at
/// a time. On JSON bodies of 10 KB to 1 MB, on a shared 2-core machine, it
/// ran 1.4 to 1.9 times as fast as the portable kernel compiled with AVX2
/// (the kernel it replaced), and at 0.116 to 0.163 of a `memchr` scan of
/// the same bytes (which uses AVX2 too); on the whole corpus, eleven
/// languages whose text mostly goes through the pair table, 2.3 times as
/// fast, 0.122 of the scan: `cargo bench -p tower-terse --bench tokens`
/// prints the three side by side, measured in one run. Under callgrind it
/// takes 2.5 instructions a byte of JSON, where the kernel it replaced took
/// 3.0. Without AVX2 the portable kernel runs on 16-byte SSE2 vectors (see
/// `dispatch`).
///
/// Any bytes are accepted: invalid UTF-8 is estimated, never rejected. An
/// empty input is 0 tokens and any other input at least 1.
///
/// ```
/// use terse_tokens::estimate;
///
/// assert_eq!(estimate(b""), 0);
/// let json = br#"[{"id":1,"name":"Ada Lovelace","born":"1815-12-10"},{"id":2,"name":"Grace Hopper","born":"1906-12-09"}]"#;
/// let toon = b"[2]{id,name,born}:\n  1,Ada Lovelace,1815-12-10\n  2,Grace Hopper,1906-12-09";
/// assert!(estimate(toon) < estimate(json));
/// ```
pub fn estimate(text: &[u8]) -> usize {
    estimate_with(text, dispatch::chunk_sum)
}

/// [`estimate`] computed with the portable kernel (compiled with AVX2 on
/// CPUs that have it, as the estimate ran before its AVX2 kernel): the same
/// result, bit for bit. For the bench, which measures the AVX2 kernel
/// against it. Not a stable API.
///
/// ```
/// use terse_tokens::{estimate, estimate_portable};
///
/// let body = br#"[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]"#;
/// assert_eq!(estimate_portable(body), estimate(body));
/// ```
#[doc(hidden)]
pub fn estimate_portable(text: &[u8]) -> usize {
    estimate_with(text, dispatch::portable)
}

/// The estimate of `text` with `kernel` summing each chunk's pairs.
#[inline(always)]
fn estimate_with(text: &[u8], kernel: fn(&[u8], usize) -> i64) -> usize {
    let Some(&first) = text.first() else {
        return 0;
    };
    let mut total = i64::from(PAIR[usize::from(START_BYTE) | usize::from(first) << 8]);
    // Every later byte pairs with the byte before it, so the pairs of a text
    // are its overlapping two-byte windows; chunks overlap by one byte.
    // Each chunk also sees the few bytes after it, for the runs of letters
    // that start in it and end in the next.
    let mut start = 0;
    while start + 1 < text.len() {
        let end = (start + CHUNK + 1).min(text.len());
        let ahead = (end + RUN - 1).min(text.len());
        total += kernel(&text[start..ahead], end - start - 1);
        start = end - 1;
    }
    let rounded = (total.max(0) + (1 << (SCALE_BITS - 1))) >> SCALE_BITS;
    usize::try_from(rounded).unwrap_or(usize::MAX).max(1)
}

/// The sums [`estimate`] adds up, one per slice of `text` between two
/// consecutive `cuts` (offsets from 0 to `text.len()`, in order): each
/// pair of bytes goes to the slice of its second byte, the text's first
/// byte (weighed after a line break) to the first slice. So the slices'
/// sums add up to the text's, bit for bit, and [`tokens`] of that total is
/// [`estimate`] of the text, taken in one pass over it; the sum of the
/// slices after a cut is the estimate of the rest of the text, in place.
/// Slices past `cuts` (or between cuts out of order) sum to 0.
#[cfg_attr(not(feature = "exact-tokens"), allow(dead_code))] // near ties counted in stages
pub(super) fn estimate_sums(text: &[u8], cuts: &[usize], sums: &mut [i64]) {
    for (i, sum) in sums.iter_mut().enumerate() {
        *sum = 0;
        let (Some(&from), Some(&to)) = (cuts.get(i), cuts.get(i + 1)) else {
            continue;
        };
        if from == 0
            && to > 0
            && let Some(&first) = text.first()
        {
            *sum += i64::from(PAIR[usize::from(START_BYTE) | usize::from(first) << 8]);
        }
        // The pairs whose second byte is in `from..to`, as `estimate_with`
        // takes them: chunks overlap by one byte and look a few bytes on.
        let to = to.min(text.len());
        let mut start = from.max(1) - 1;
        while start + 1 < to {
            let end = (start + CHUNK + 1).min(to);
            let ahead = (end + RUN - 1).min(text.len());
            if let Some(chunk) = text.get(start..ahead) {
                *sum += dispatch::chunk_sum(chunk, end - start - 1);
            }
            start = end - 1;
        }
    }
}

/// Tokens of a sum of weights from [`estimate_sums`], rounded as
/// [`estimate`] rounds (without its floor of one token for a text that is
/// not empty).
#[cfg_attr(not(feature = "exact-tokens"), allow(dead_code))]
pub(super) fn tokens(sum: i64) -> usize {
    let rounded = (sum.max(0) + (1 << (SCALE_BITS - 1))) >> SCALE_BITS;
    usize::try_from(rounded).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::super::classes::BYTE_CLASS;
    use super::super::features::{FEATURES, features};
    use super::super::kernel::{pair_weight, pairs_sum};
    use super::super::weights::{
        ASCII_BASE, ASCII_OFFSET, ASCII_SCALE_BITS, FEATURE_WEIGHTS, RUN_WEIGHT, WEIGHTS,
    };
    use super::*;

    const RECORD: &[u8] = br#"{"id":"5f0c7a8e-2b1d-4c3e-9f6a-1b2c3d4e5f60","title":"Weekly sync","at":"2025-06-02T09:30:00Z"},"#;

    #[test]
    fn empty_is_zero_and_anything_else_at_least_one() {
        assert_eq!(estimate(b""), 0);
        for b in 0..=255u8 {
            assert!(estimate(&[b]) >= 1, "byte {b:#04x}");
        }
    }

    #[test]
    fn invalid_utf8_is_estimated_not_rejected() {
        let garbage: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let n = estimate(&garbage);
        assert!((garbage.len() / 8..=garbage.len() * 2).contains(&n), "{n}");
        assert!(estimate(&[0xff, 0xfe, 0x80, 0x80, 0xc0]) >= 1);
        // A truncated emoji and a lone lead byte.
        assert!(estimate(&[0xf0, 0x9f, 0x8e]) >= 1);
        assert!(estimate(b"abc\xe4") >= 1);
    }

    #[test]
    fn long_runs_of_any_byte_do_not_overflow() {
        for b in 0..=255u8 {
            let run = vec![b; 3 * CHUNK + 7];
            let n = estimate(&run);
            assert!(n <= 2 * run.len(), "byte {b:#04x}: {n}");
        }
    }

    #[test]
    fn grows_with_the_number_of_records() {
        let mut previous = 0;
        for records in [1, 2, 5, 10, 50, 500, 2000] {
            let body = RECORD.repeat(records);
            let n = estimate(&body);
            assert!(n > previous, "{records} records: {n} <= {previous}");
            previous = n;
        }
    }

    #[test]
    fn is_close_to_linear_across_chunk_boundaries() {
        let one = estimate(RECORD) as f64;
        let body = RECORD.repeat(1000);
        assert!(body.len() > 2 * CHUNK);
        let many = estimate(&body) as f64;
        assert!(
            (many / (one * 1000.0) - 1.0).abs() < 0.05,
            "{many} vs {one} x 1000"
        );
    }

    #[test]
    fn pair_table_agrees_with_the_weights() {
        for prev in 0..=255u8 {
            for b in 0..=255u8 {
                let weight = if prev < 0x80 && b < 0x80 {
                    let has = features(prev, b);
                    let sum: i32 = (0..FEATURES)
                        .filter(|&f| has[f])
                        .map(|f| i32::from(FEATURE_WEIGHTS[f]))
                        .sum();
                    (i32::from(ASCII_BASE) + sum) << (SCALE_BITS - ASCII_SCALE_BITS)
                } else {
                    i32::from(
                        WEIGHTS[usize::from(BYTE_CLASS[usize::from(prev)])]
                            [usize::from(BYTE_CLASS[usize::from(b)])],
                    )
                };
                assert_eq!(
                    i32::from(PAIR[usize::from(prev) | usize::from(b) << 8]),
                    weight
                );
            }
        }
    }

    #[test]
    fn ascii_lanes_agree_with_the_table() {
        // Every ASCII pair, sixteen at a time through the vector code.
        let pairs: Vec<(u8, u8)> = (0..0x80u8)
            .flat_map(|p| (0..0x80u8).map(move |b| (p, b)))
            .collect();
        for sixteen in pairs.chunks(16) {
            let prev: [u8; 16] = std::array::from_fn(|k| sixteen[k].0);
            let bytes: [u8; 16] = std::array::from_fn(|k| sixteen[k].1);
            let want: i32 = sixteen
                .iter()
                .map(|&(p, b)| i32::from(PAIR[usize::from(p) | usize::from(b) << 8]))
                .sum();
            let got = (i64::from(pairs_sum(&prev, &bytes)) - 16 * i64::from(ASCII_OFFSET))
                << (SCALE_BITS - ASCII_SCALE_BITS);
            assert_eq!(got, i64::from(want), "{sixteen:?}");
        }
    }

    /// The pair weights and the runs of letters summed one at a time, as
    /// the kernel must sum them.
    fn reference_sum(bytes: &[u8]) -> i64 {
        let pairs: i64 = bytes
            .windows(2)
            .map(|pair| i64::from(pair_weight(pair[0], pair[1])))
            .sum();
        let runs = bytes
            .windows(RUN)
            .filter(|w| w.iter().all(u8::is_ascii_lowercase))
            .count();
        pairs + runs as i64 * i64::from(RUN_WEIGHT)
    }

    /// The estimate the way the fitting tool computes it: one pair weight
    /// per byte, no tricks.
    fn reference(text: &[u8]) -> usize {
        let Some(&first) = text.first() else {
            return 0;
        };
        let sum = i64::from(pair_weight(START_BYTE, first)) + reference_sum(text);
        let rounded = (sum.max(0) + (1 << (SCALE_BITS - 1))) >> SCALE_BITS;
        usize::try_from(rounded).unwrap_or(usize::MAX).max(1)
    }

    #[test]
    fn agrees_with_the_reference_at_every_length_and_offset() {
        let text: Vec<u8> = RECORD
            .iter()
            .chain("ñ 用户 🎉 д ह".as_bytes())
            .copied()
            .cycle()
            .take(300)
            .collect();
        for start in 0..9 {
            for end in start..text.len() {
                let slice = &text[start..end];
                assert_eq!(estimate(slice), reference(slice), "{start}..{end}");
            }
        }
    }

    #[test]
    fn agrees_with_the_reference_across_chunks() {
        // The chunks share one byte: each pair is counted once, none twice.
        let text: Vec<u8> = RECORD
            .iter()
            .chain("ñ 用户 🎉".as_bytes())
            .copied()
            .cycle()
            .take(3 * CHUNK + 11)
            .collect();
        for len in [CHUNK, CHUNK + 1, CHUNK + 2, 2 * CHUNK + 1, text.len()] {
            assert_eq!(estimate(&text[..len]), reference(&text[..len]), "{len}");
        }
    }

    #[test]
    fn slices_sum_to_the_estimate() {
        let text: Vec<u8> = RECORD
            .iter()
            .chain("ñ 用户 🎉 д ह".as_bytes())
            .copied()
            .cycle()
            .take(2 * CHUNK + 300)
            .collect();
        for len in [0, 1, 2, 7, 300, CHUNK + 3, text.len()] {
            let text = &text[..len];
            for parts in [1, 2, 5, 16] {
                let mut cuts: Vec<usize> = (0..=parts).map(|i| len * i / parts).collect();
                // An empty slice in the middle, and one cut off by a byte.
                if parts > 2 {
                    cuts[1] = cuts[2];
                    cuts[parts - 1] = cuts[parts - 1].saturating_sub(1).max(cuts[parts - 2]);
                }
                let mut sums = vec![0; parts];
                estimate_sums(text, &cuts, &mut sums);
                let total = tokens(sums.iter().sum());
                assert_eq!(
                    total.max(usize::from(len > 0)),
                    estimate(text),
                    "{len} {parts}"
                );
                // The rest after a cut is weighed in place: no start pair.
                let rest: i64 = sums[parts / 2..].iter().sum();
                let alone = estimate(&text[cuts[parts / 2]..]);
                assert!(tokens(rest).abs_diff(alone) <= 2, "{len} {parts}");
            }
        }
    }

    #[test]
    fn both_compiled_kernels_sum_every_pair() {
        // The dispatched kernel is the AVX2 copy on CPUs that have it; the
        // baseline copy is what every other CPU runs.
        let text: Vec<u8> = RECORD
            .iter()
            .chain("ñ 用户 🎉 д ह\n\t".as_bytes())
            .copied()
            .cycle()
            .take(CHUNK + 1)
            .collect();
        for len in (0..300).chain([1000, 4097, CHUNK, CHUNK + 1]) {
            let bytes = &text[..len];
            let want = reference_sum(bytes);
            let pairs = len.saturating_sub(1);
            assert_eq!(
                dispatch::baseline(bytes, pairs),
                want,
                "baseline, {len} bytes"
            );
            assert_eq!(
                dispatch::chunk_sum(bytes, pairs),
                want,
                "dispatched, {len} bytes"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        #[test]
        fn both_compiled_kernels_agree_on_any_bytes(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2048),
            ascii in proptest::bool::ANY,
        ) {
            // Mostly-ASCII input takes the vector path, which is where the
            // two copies differ in code.
            let bytes: Vec<u8> = if ascii {
                bytes.iter().map(|b| b & 0x7f).collect()
            } else {
                bytes
            };
            let want = reference_sum(&bytes);
            let pairs = bytes.len().saturating_sub(1);
            proptest::prop_assert_eq!(dispatch::baseline(&bytes, pairs), want);
            proptest::prop_assert_eq!(dispatch::chunk_sum(&bytes, pairs), want);
        }

        #[test]
        fn any_bytes_are_estimated_as_the_reference_does(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2048),
        ) {
            proptest::prop_assert_eq!(estimate(&bytes), reference(&bytes));
        }

        #[test]
        fn appending_text_does_not_shrink_the_estimate_much(
            a in proptest::collection::vec(proptest::num::u8::ANY, 0..512),
            b in proptest::collection::vec(proptest::num::u8::ANY, 1..512),
        ) {
            // Weights can be negative, so a longer text may come out a token
            // or two lower; never by more than a couple of tokens per join.
            let mut joined = a.clone();
            joined.extend_from_slice(&b);
            proptest::prop_assert!(estimate(&joined) + 3 >= estimate(&a));
        }
    }

    #[test]
    fn denser_text_costs_more_per_byte() {
        // Ordinary English is about four bytes a token, base64 and CJK far
        // fewer; the estimate has to see that, bytes/4 does not.
        let english = estimate(b"The quarterly planning session moved to Friday afternoon.");
        let base64 = estimate(b"DxqIPptnwrMxqhwwcyW3fUcqVXJ4lh2CIAHShEmTrcIh5SiaK6Z5MtX1ZN");
        assert!(base64 > english + english / 2, "{base64} vs {english}");
        let chinese = "会议改到星期五下午，请确认。".as_bytes();
        assert!(estimate(chinese) < chinese.len() / 2);
        assert!(estimate(chinese) > chinese.len() / 6);
    }
}
