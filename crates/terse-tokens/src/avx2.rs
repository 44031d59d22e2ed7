//! The estimator's kernel written with AVX2 intrinsics, for x86-64 CPUs that
//! have AVX2 (`dispatch` checks and picks it).
//!
//! It computes exactly what `kernel::chunk_sum` computes. The portable
//! kernel, compiled with AVX2 enabled, still scores sixteen pairs per
//! vector (its lanes are written for SSE2), reduces each lane's scores on
//! its own and tests the runs of letters on 64-byte arrays: about three
//! instructions per byte. Here each block of 32 pairs is two unaligned
//! loads, the bytes and the bytes one before them, so a pair is the same
//! lane of two registers and no shuffle crosses lanes; its nine features
//! are vector compares on those two registers, and each pair's score (as
//! `kernel::ascii_score` sums it, in wrapping `u8`) is the weights its
//! kind of byte gets after the byte before it, chosen by byte blends (see
//! `scores`); the 32 scores are summed by one `vpsadbw`.
//!
//! The runs of lowercase letters are counted on bit masks: one `vpmovmskb`
//! gives the letters of 32 bytes as bits, and a run of `RUN` starts wherever
//! `RUN` bits in a row are set, `m & m >> 1 & ... & m >> 4`, one `popcnt`.
//!
//! The loop takes two blocks a step: one test finds the 65 bytes of both
//! ASCII, and the runs that start in their 64 bytes are counted on one
//! `u64` (with `u128` shifts for the letters after them), where a block a
//! step tested and counted 32 at a time (1.4k of the 53k instructions the
//! estimates of a 14 KB rendering took). A block of 32 pairs with a byte
//! of 0x80 or above goes through the pair table, as in the portable
//! kernel, and the tail of a chunk (under 32 pairs) is the portable
//! kernel's.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256i, _mm256_add_epi8, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256,
    _mm256_blendv_epi8, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_extract_epi64,
    _mm256_load_si256, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_sad_epu8,
    _mm256_setzero_si256,
};

use super::features::{FEATURES, RUN, lower};
use super::kernel::{self, CHUNK};
use super::weights::{
    ASCII_BASE, ASCII_OFFSET, ASCII_SCALE_BITS, FEATURE_WEIGHTS, RUN_WEIGHT, SCALE_BITS,
};

/// Pairs per block: one 32-byte vector.
const BLOCK: usize = 32;

// The scores are written for these nine features, in this order.
const _: () = assert!(FEATURES == 9);
// A run that starts in a block ends in it or in the next one.
const _: () = assert!(RUN <= BLOCK + 1);

/// The kernel's sum over the first `pairs` pairs of `bytes`: the same
/// contract and the same result as `kernel::chunk_sum`.
///
/// # Safety
///
/// The CPU must support AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
#[inline(never)]
// `unsafe` blocks around intrinsics that newer compilers call safe in a
// `target_feature` function; the crate's minimum Rust still calls them unsafe.
#[allow(unused_unsafe)]
pub(super) unsafe fn chunk_sum(bytes: &[u8], pairs: usize) -> i64 {
    debug_assert!(pairs <= CHUNK && pairs < bytes.len().max(1));
    let (k, k2) = (
        core::hint::black_box(&SPLATS[0]),
        core::hint::black_box(&SPLATS[1]),
    );
    // Four sums of eight scores each, at most 255 x CHUNK in all.
    let mut sums = unsafe { _mm256_setzero_si256() };
    // The pairs of the blocks with a byte of 0x80 or above, weighed
    // through the pair table: the others are ASCII.
    let mut table_pairs = 0i64;
    let mut table = 0i64;
    let mut runs = 0u32;
    // Lowercase letters among the bytes of the previous two blocks, as
    // bits: the runs that start there are counted once the letters after
    // them are known.
    let mut letters_before = 0u64;
    let mut i = 0;
    // The pairs a step may reach: pair `i + 2 * BLOCK - 1` ends at byte
    // `i + 2 * BLOCK`, which `bytes` holds below its length (as the
    // contract says of `pairs`; taken again here, so that the loop tests
    // one bound a step, where it tested three).
    let steps_end = pairs.min(bytes.len().saturating_sub(1));
    // Two blocks a step: one test of the 65 bytes for ASCII, and the
    // runs of 64 bytes counted on one word.
    while i + 2 * BLOCK <= steps_end {
        // SAFETY: `i + 2 * BLOCK < bytes.len()`, so the 65 bytes from `i`
        // are in `bytes`, and the unaligned 32-byte loads at offsets 0, 1,
        // 32 and 33 from `i` stay inside them.
        let (prev, byte, prev_high, byte_high) = unsafe {
            let at = bytes.as_ptr().add(i);
            (
                _mm256_loadu_si256(at.cast::<__m256i>()),
                _mm256_loadu_si256(at.add(1).cast::<__m256i>()),
                _mm256_loadu_si256(at.add(BLOCK).cast::<__m256i>()),
                _mm256_loadu_si256(at.add(BLOCK + 1).cast::<__m256i>()),
            )
        };
        let letters = unsafe {
            u64::from(_mm256_movemask_epi8(in_range(
                prev,
                k.lower_shift.get(),
                k.letter_bound.get(),
            )) as u32)
                | u64::from(_mm256_movemask_epi8(in_range(
                    prev_high,
                    k2.lower_shift.get(),
                    k2.letter_bound.get(),
                )) as u32)
                    << 32
        };
        runs += wide_run_starts(letters_before, letters);
        letters_before = letters;
        // The three loads cover the 65 bytes.
        let high = unsafe { _mm256_or_si256(prev, _mm256_or_si256(prev_high, byte_high)) };
        if unsafe { _mm256_movemask_epi8(high) } == 0 {
            // SAFETY: AVX2 is enabled in this function.
            let (low, high) = unsafe { (scores(prev, byte, k), scores(prev_high, byte_high, k2)) };
            sums = unsafe {
                let zero = _mm256_setzero_si256();
                _mm256_add_epi64(
                    sums,
                    _mm256_add_epi64(_mm256_sad_epu8(low, zero), _mm256_sad_epu8(high, zero)),
                )
            };
        } else {
            // SAFETY: AVX2 is enabled in this function.
            let (step_sums, step_table_pairs, step_table) =
                unsafe { mixed_step([prev, byte, prev_high, byte_high], bytes, i, k) };
            sums = unsafe { _mm256_add_epi64(sums, step_sums) };
            table_pairs += step_table_pairs;
            table += step_table;
        }
        i += 2 * BLOCK;
    }
    // One block more when it fits, its letters after the two before it.
    let mut letters_last = None;
    if i + BLOCK <= pairs
        && let Some(window) = bytes
            .get(i..)
            .and_then(<[u8]>::first_chunk::<{ BLOCK + 1 }>)
    {
        // SAFETY: `window` is `BLOCK + 1` = 33 readable bytes, so the two
        // unaligned 32-byte loads at offsets 0 and 1 stay inside it.
        let (prev, byte) = unsafe {
            let at = window.as_ptr();
            (
                _mm256_loadu_si256(at.cast::<__m256i>()),
                _mm256_loadu_si256(at.add(1).cast::<__m256i>()),
            )
        };
        let letters = unsafe {
            _mm256_movemask_epi8(in_range(prev, k.lower_shift.get(), k.letter_bound.get()))
        } as u32;
        runs += wide_run_starts(letters_before, u64::from(letters));
        letters_last = Some(letters);
        // SAFETY: AVX2 is enabled in this function.
        unsafe {
            block(
                prev,
                byte,
                bytes,
                i,
                &mut sums,
                &mut table_pairs,
                &mut table,
                k,
            )
        };
        i += BLOCK;
    }
    // The runs that start in the last block (or two), one at a time; the
    // pairs and runs from `i` on are the portable kernel's.
    if i >= BLOCK {
        // The windows that start in the last block and end past it: its
        // letters with those of the few bytes after it (missing bytes are
        // no letters), rather than a scalar pass over the block, which
        // each call paid (the smart fallback's near ties estimate a text
        // in sixteen slices).
        let after = bytes
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take(RUN - 1)
            .enumerate()
            .fold(0u32, |mask, (k, &b)| mask | u32::from(lower(b)) << k);
        runs += match letters_last {
            Some(letters) => run_starts(letters, after),
            None => wide_run_starts(letters_before, u64::from(after)),
        };
    }
    let tail = kernel::chunk_sum(bytes.get(i..).unwrap_or_default(), pairs.saturating_sub(i));
    let scores = unsafe {
        _mm256_extract_epi64::<0>(sums)
            + _mm256_extract_epi64::<1>(sums)
            + _mm256_extract_epi64::<2>(sums)
            + _mm256_extract_epi64::<3>(sums)
    };
    // The blocks took the pairs before `i`.
    let ascii_pairs = i as i64 - table_pairs;
    let ascii = scores - ascii_pairs * i64::from(ASCII_OFFSET);
    (ascii << (SCALE_BITS - ASCII_SCALE_BITS))
        + table
        + i64::from(runs) * i64::from(RUN_WEIGHT)
        + tail
}

/// A step of [`chunk_sum`]'s loop with a byte of 0x80 or above: its two
/// blocks (the four loads, in the loop's order) from `bytes[from]`, each
/// through [`block`]; the sums of scores, the pairs through the table and
/// their sum. Out of the loop, so that the loop's state stays in
/// registers (the calls into the pair table took them for the whole
/// loop, five of its 117 instructions a step).
#[target_feature(enable = "avx2")]
#[cold]
#[inline(never)]
#[allow(unused_unsafe)]
unsafe fn mixed_step(
    loads: [__m256i; 4],
    bytes: &[u8],
    from: usize,
    k: &Splats,
) -> (__m256i, i64, i64) {
    let [prev, byte, prev_high, byte_high] = loads;
    let mut sums = unsafe { _mm256_setzero_si256() };
    let (mut table_pairs, mut table) = (0, 0);
    for (prev, byte, from) in [(prev, byte, from), (prev_high, byte_high, from + BLOCK)] {
        // SAFETY: AVX2 is enabled in this function.
        unsafe {
            block(
                prev,
                byte,
                bytes,
                from,
                &mut sums,
                &mut table_pairs,
                &mut table,
                k,
            )
        };
    }
    (sums, table_pairs, table)
}

/// The 32 pairs (`prev[k]`, `byte[k]`) that start at `bytes[from]`: their
/// scores added to `sums` when all their bytes are ASCII, else their sum
/// through the pair table added to `table`, and the 32 to `table_pairs`.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unused_unsafe)]
// The loop's state, passed apart so that it stays in registers.
#[allow(clippy::too_many_arguments)]
unsafe fn block(
    prev: __m256i,
    byte: __m256i,
    bytes: &[u8],
    from: usize,
    sums: &mut __m256i,
    table_pairs: &mut i64,
    table: &mut i64,
    k: &Splats,
) {
    if unsafe { _mm256_movemask_epi8(_mm256_or_si256(prev, byte)) } == 0 {
        *sums = unsafe {
            _mm256_add_epi64(
                *sums,
                _mm256_sad_epu8(scores(prev, byte, k), _mm256_setzero_si256()),
            )
        };
    } else {
        let pairs = bytes.get(from..from + BLOCK + 1).unwrap_or_default();
        *table += i64::from(kernel::pair_sum(pairs));
        *table_pairs += BLOCK as i64;
    }
}

/// How many runs of `RUN` set bits start among the 32 bits of `before`,
/// with `after` the bits that follow them.
#[inline(always)]
fn run_starts(before: u32, after: u32) -> u32 {
    let bits = u64::from(before) | u64::from(after) << 32;
    let two = bits & bits >> 1;
    let four = two & two >> 2;
    let five = four & bits >> 4;
    (five as u32).count_ones()
}

/// [`run_starts`] of the 64 bits of `before`, with `after` the bits that
/// follow them.
#[inline(always)]
fn wide_run_starts(before: u64, after: u64) -> u32 {
    let bits = u128::from(before) | u128::from(after) << 64;
    let two = bits & bits >> 1;
    let four = two & two >> 2;
    let five = four & bits >> 4;
    (five as u64).count_ones()
}

/// Bytes from `low` to `high`, given `shift`, `0x80 - low` in every lane,
/// and `bound`, `0x80 + (high - low + 1)`: `byte - low`, shifted so that
/// the range starts at `i8::MIN`, is below `i8::MIN + (high - low + 1)`.
/// Wrapping is a bijection on bytes, so this holds for all 256 values, not
/// only ASCII.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unused_unsafe)]
unsafe fn in_range(bytes: __m256i, shift: __m256i, bound: __m256i) -> __m256i {
    unsafe { _mm256_cmpgt_epi8(bound, _mm256_add_epi8(bytes, shift)) }
}

/// 32 copies of a byte, aligned as a vector.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Lanes([u8; 32]);

impl Lanes {
    /// `byte` in every lane.
    const fn of(byte: u8) -> Self {
        Lanes([byte; 32])
    }

    /// The lanes as a vector.
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(unused_unsafe)]
    unsafe fn get(&self) -> __m256i {
        // SAFETY: `self` is 32 readable bytes, aligned to 32.
        unsafe { _mm256_load_si256(self.0.as_ptr().cast::<__m256i>()) }
    }
}

/// The splatted bytes [`scores`] and the runs of letters compare and
/// blend with, kept in [`SPLATS`].
struct Splats {
    /// [`in_range`]'s shifts and bounds: digits, capitals, small letters
    /// (26 letters of either case: one bound for both).
    digit_shift: Lanes,
    digit_bound: Lanes,
    upper_shift: Lanes,
    lower_shift: Lanes,
    letter_bound: Lanes,
    space: Lanes,
    line: Lanes,
    dash: Lanes,
    z: Lanes,
    f: Lanes,
    /// Weights in the order of `features::features`, and sums of two.
    w0: Lanes,
    w01: Lanes,
    w2: Lanes,
    w3: Lanes,
    w4: Lanes,
    w5: Lanes,
    w6: Lanes,
    w68: Lanes,
    w7: Lanes,
    /// `ASCII_OFFSET + ASCII_BASE`, which every pair gets.
    base: Lanes,
}

impl Splats {
    const NEW: Splats = {
        const fn w(f: usize) -> u8 {
            FEATURE_WEIGHTS[f] as u8
        }
        const fn shift(low: u8) -> Lanes {
            Lanes::of(0x80u8.wrapping_sub(low))
        }
        const fn bound(low: u8, high: u8) -> Lanes {
            Lanes::of(0x80u8.wrapping_add(high - low + 1))
        }
        Splats {
            digit_shift: shift(b'0'),
            digit_bound: bound(b'0', b'9'),
            upper_shift: shift(b'A'),
            lower_shift: shift(b'a'),
            letter_bound: bound(b'a', b'z'),
            space: Lanes::of(b' '),
            line: Lanes::of(b'\n'),
            dash: Lanes::of(b'-'),
            z: Lanes::of(b'Z'),
            f: Lanes::of(b'f'),
            w0: Lanes::of(w(0)),
            w01: Lanes::of(w(0).wrapping_add(w(1))),
            w2: Lanes::of(w(2)),
            w3: Lanes::of(w(3)),
            w4: Lanes::of(w(4)),
            w5: Lanes::of(w(5)),
            w6: Lanes::of(w(6)),
            w68: Lanes::of(w(6).wrapping_add(w(8))),
            w7: Lanes::of(w(7)),
            base: Lanes::of(ASCII_OFFSET.wrapping_add(ASCII_BASE as u8)),
        }
    };
}

/// The splats, twice: one copy for each block of a step, each reached
/// through `black_box`. As constants, the compiler made each again where
/// it was used (a `vpbroadcastb` a use, 19 of the loop's 138 instructions
/// per 64 bytes, since there are more of them than registers); read
/// through an opaque reference, and each copy once a step, those it does
/// not keep in registers are mostly read by the instructions that use
/// them. One copy for both blocks is worse: the compiler then keeps more
/// of them in registers for the whole step and moves the rest about
/// (65.4k instructions for the nested orders' estimates, against 56.6k).
static SPLATS: [Splats; 2] = [Splats::NEW, Splats::NEW];

/// The scores of the 32 pairs (`prev[k]`, `byte[k]`), all ASCII, one per
/// byte: `ASCII_OFFSET + ASCII_BASE` plus the weight of each feature that
/// holds, wrapping in `u8` exactly as `kernel::ascii_score` does (whose
/// compile-time check proves that no pair's true score leaves 0..=255).
///
/// Every feature holds of one kind of byte only (a digit, a capital, a
/// byte past `Z`, a line break, a space, a dash), and those kinds are
/// disjoint: so the weights a byte of each kind can get are worked out
/// from the byte before it, and each byte takes those of its kind by a
/// chain of byte blends, rather than each feature masked to its weight and
/// added (29 instructions a block, where that took 38).
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unused_unsafe)]
unsafe fn scores(prev: __m256i, byte: __m256i, k: &Splats) -> __m256i {
    unsafe {
        let eq = |v, b| _mm256_cmpeq_epi8(v, b);
        let above = |v, b| _mm256_cmpgt_epi8(v, b);
        let digit_before = in_range(prev, k.digit_shift.get(), k.digit_bound.get());
        let space_before = eq(prev, k.space.get());
        let above_z_before = above(prev, k.z.get());
        let line_before = eq(prev, k.line.get());
        // What each kind of byte gets after `prev`. A digit: a run of
        // digits starts (0), after a space (1), which is no digit.
        let digit = _mm256_blendv_epi8(
            _mm256_andnot_si256(digit_before, k.w0.get()),
            k.w01.get(),
            space_before,
        );
        // A capital after a lowercase letter (2).
        let upper = _mm256_and_si256(above_z_before, k.w2.get());
        // Past `Z`: after anything else (3); past `f` (4) whatever came
        // before.
        let past_z = _mm256_add_epi8(
            _mm256_andnot_si256(above_z_before, k.w3.get()),
            _mm256_and_si256(above(byte, k.f.get()), k.w4.get()),
        );
        // A line break not after one (5); a space (6), first of a line (8);
        // a dash (7).
        let line = _mm256_andnot_si256(line_before, k.w5.get());
        let space = _mm256_blendv_epi8(k.w6.get(), k.w68.get(), line_before);
        let mut score = _mm256_and_si256(
            in_range(byte, k.digit_shift.get(), k.digit_bound.get()),
            digit,
        );
        score = _mm256_blendv_epi8(
            score,
            upper,
            in_range(byte, k.upper_shift.get(), k.letter_bound.get()),
        );
        score = _mm256_blendv_epi8(score, past_z, above(byte, k.z.get()));
        score = _mm256_blendv_epi8(score, line, eq(byte, k.line.get()));
        score = _mm256_blendv_epi8(score, space, eq(byte, k.space.get()));
        score = _mm256_blendv_epi8(score, k.w7.get(), eq(byte, k.dash.get()));
        _mm256_add_epi8(score, k.base.get())
    }
}

#[cfg(test)]
#[path = "avx2_tests.rs"]
mod tests;
