//! The estimator's kernel: the weight of every pair of bytes, and their sum
//! over a chunk with the runs of lowercase letters, vectorized on ASCII.
//!
//! This is the portable kernel: what CPUs without AVX2 run, and the
//! reference that `avx2`'s kernel is tested and benchmarked against.
//! `dispatch` picks one of them per call and `estimate` adds the chunks up;
//! this module depends on neither, so they form a line: `estimate` ->
//! `dispatch` -> `kernel` (or `avx2`).

use super::classes::{BYTE_CLASS, START};
use super::features::{FEATURES, RUN, features, lower};
use super::weights::{
    ASCII_BASE, ASCII_OFFSET, ASCII_SCALE_BITS, FEATURE_WEIGHTS, RUN_WEIGHT, SCALE_BITS, WEIGHTS,
};

/// The weight of the pair (`prev`, `byte`), times 2^SCALE_BITS.
///
/// Two ASCII bytes are weighed by their features, any other pair by the
/// classes of its bytes. This is the whole model: the vector path and the
/// table below both compute exactly these weights.
pub(super) const fn pair_weight(prev: u8, byte: u8) -> i32 {
    if prev < 0x80 && byte < 0x80 {
        (ascii_score(prev, byte) as i32 - ASCII_OFFSET as i32) << (SCALE_BITS - ASCII_SCALE_BITS)
    } else {
        WEIGHTS[BYTE_CLASS[prev as usize] as usize][BYTE_CLASS[byte as usize] as usize] as i32
    }
}

/// The weight of a pair of ASCII bytes in 2^-ASCII_SCALE_BITS tokens, plus
/// `ASCII_OFFSET` so that it is never negative: one byte per pair, so that
/// sixteen pairs fit one SIMD register.
///
/// The sum wraps in `u8`; `SCORES_FIT_A_BYTE` checks at compile time that
/// no pair's true sum leaves 0..=255, so the wrapped sum is the true one.
#[inline(always)]
const fn ascii_score(prev: u8, byte: u8) -> u8 {
    let has = features(prev, byte);
    let mut score = ASCII_OFFSET.wrapping_add(ASCII_BASE as u8);
    let mut f = 0;
    while f < FEATURES {
        // `if` on a mask, not a branch: `mask & weight` on vectors. Weights
        // are taken mod 256: the true sum is in 0..=255, so wrapping is exact.
        score = score.wrapping_add((FEATURE_WEIGHTS[f] as u8) & 0u8.wrapping_sub(has[f] as u8));
        f += 1;
    }
    score
}

/// Every ASCII pair's score fits a byte: checked in full at compile time
/// (the pair table's construction evaluates it).
const SCORES_FIT_A_BYTE: () = {
    let mut index = 0;
    while index < 1 << 14 {
        let (prev, byte) = ((index >> 7) as u8, (index & 0x7f) as u8);
        let has = features(prev, byte);
        let mut sum = ASCII_OFFSET as i32 + ASCII_BASE as i32;
        let mut f = 0;
        while f < FEATURES {
            if has[f] {
                sum += FEATURE_WEIGHTS[f] as i32;
            }
            f += 1;
        }
        assert!(
            0 <= sum && sum <= 255,
            "an ASCII pair's score does not fit a byte"
        );
        index += 1;
    }
};

/// The weight of every (previous byte, byte) pair, indexed by
/// `previous | byte << 8`: the path for text that is not all ASCII.
///
/// Looking a pair of bytes up directly, instead of first looking up the class
/// of each byte, takes one load per byte instead of three, and no load waits
/// for another. 2^16 entries x 2 bytes = 128 KiB, but text uses few distinct
/// pairs, so the lines in use stay in L1 cache.
pub(super) static PAIR: [i16; 1 << 16] = expand();

const fn expand() -> [i16; 1 << 16] {
    let () = SCORES_FIT_A_BYTE;
    let mut table = [0; 1 << 16];
    let mut index = 0;
    while index < 1 << 16 {
        let weight = pair_weight((index & 0xff) as u8, (index >> 8) as u8);
        assert!(weight >= i16::MIN as i32 && weight <= i16::MAX as i32);
        table[index] = weight as i16;
        index += 1;
    }
    table
}

/// A byte of the start class: the first byte of a text is paired with it.
pub(super) const START_BYTE: u8 = b'\n';
const _: () = assert!(BYTE_CLASS[START_BYTE as usize] == START);

/// Bytes summed in an `i32` before spilling into the `i64` total: at most
/// 2^15 weights of at most 2^15 each, so the narrow sum cannot overflow.
pub(super) const CHUNK: usize = 1 << 15;

/// Bytes the fast path takes at a time: four vectors of sixteen.
const BLOCK: usize = 64;

/// The sum of the weights of the first `pairs` pairs `(bytes[i], bytes[i +
/// 1])` and of the runs of lowercase letters that start at their first
/// bytes; `pairs` is at most `CHUNK`. `bytes` may go on past the last pair,
/// by up to `RUN - 1` bytes, for the runs that start in the chunk and end
/// after it.
///
/// Blocks of 64 pairs whose 65 bytes are all ASCII take the vector path. A
/// block that is not all ASCII is taken lane by lane (16 pairs): the lanes
/// with a byte of 0x80 or above go through the pair table, as does the
/// tail. Runs are counted with vectors in every block (a byte of 0x80 or
/// above is simply not a letter), one at a time in the tail.
///
/// Always inlined, so that each caller in `dispatch` (the baseline, and the
/// AVX2 build of this code the bench compares with) compiles it for its
/// own instruction set.
#[inline(always)]
pub(super) fn chunk_sum(bytes: &[u8], pairs: usize) -> i64 {
    debug_assert!(pairs <= CHUNK && pairs < bytes.len().max(1));
    // Scores of ASCII pairs, offset by ASCII_OFFSET each: at most
    // 255 * CHUNK < 2^23.
    let mut scores = 0u32;
    let mut ascii_pairs = 0u32;
    let mut runs = 0u32;
    let mut table = 0i32;
    let mut i = 0;
    while i + BLOCK <= pairs {
        let Some(block) = bytes[i..].first_chunk::<{ BLOCK + 1 }>() else {
            break; // never: pair `i + BLOCK - 1` ends at byte `i + BLOCK`
        };
        // Four lanes of sixteen pairs, each a window of seventeen bytes.
        let window = |at: usize| block[at..].first_chunk::<{ LANE + 1 }>();
        let lanes = (window(0), window(LANE), window(2 * LANE), window(3 * LANE));
        if let (true, Some(a), Some(b), Some(c), Some(d)) =
            (is_ascii(block), lanes.0, lanes.1, lanes.2, lanes.3)
        {
            scores += lane_sum(a) + lane_sum(b) + lane_sum(c) + lane_sum(d);
            ascii_pairs += BLOCK as u32;
        } else {
            for at in (0..BLOCK).step_by(LANE) {
                let Some(window) = window(at) else {
                    break; // never: a block has 65 bytes
                };
                if window.iter().fold(0, |any, &b| any | b) < 0x80 {
                    scores += lane_sum(window);
                    ascii_pairs += LANE as u32;
                } else {
                    table += pair_sum(window);
                }
            }
        }
        runs += match bytes[i..].first_chunk::<{ BLOCK + RUN - 1 }>() {
            Some(ahead) => block_runs(ahead),
            None => scalar_runs(&bytes[i..], BLOCK),
        };
        i += BLOCK;
    }
    table += pair_sum(bytes.get(i..pairs + 1).unwrap_or_default());
    runs += scalar_runs(&bytes[i..], pairs.saturating_sub(i));
    let ascii = i64::from(scores) - i64::from(ascii_pairs) * i64::from(ASCII_OFFSET);
    (ascii << (SCALE_BITS - ASCII_SCALE_BITS))
        + i64::from(table)
        + i64::from(runs) * i64::from(RUN_WEIGHT)
}

/// How many of the 64 windows of `RUN` bytes starting at `ahead[0..64]`
/// are all lowercase letters: the 64 bytes at each of the `RUN` offsets
/// tested with vector compares, the masks ANDed, then summed.
#[inline(always)]
fn block_runs(ahead: &[u8; BLOCK + RUN - 1]) -> u32 {
    let mut all = [1u8; BLOCK];
    for shift in 0..RUN {
        let Some(window) = ahead[shift..].first_chunk::<BLOCK>() else {
            continue; // never: `ahead` has `RUN - 1` bytes past the block
        };
        for (mask, &b) in all.iter_mut().zip(window) {
            *mask &= u8::from(lower(b));
        }
    }
    all.iter().map(|&m| u32::from(m)).sum()
}

/// How many windows of `RUN` lowercase letters start at `bytes[0..starts]`,
/// one at a time.
#[inline]
pub(super) fn scalar_runs(bytes: &[u8], starts: usize) -> u32 {
    let mut runs = 0;
    for start in 0..starts {
        if let Some(window) = bytes.get(start..start + RUN)
            && window.iter().all(|&b| lower(b))
        {
            runs += 1;
        }
    }
    runs
}

/// Pairs in a vector.
const LANE: usize = 16;

/// Whether all 65 bytes of `block` are below 0x80: its bytes ORed together
/// eight at a time, then the high bit of each tested at once.
#[inline(always)]
fn is_ascii(block: &[u8; BLOCK + 1]) -> bool {
    let mut any = u64::from(block[0]);
    for word in block[1..].chunks_exact(8) {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        any |= u64::from_le_bytes(eight);
    }
    any & 0x8080_8080_8080_8080 == 0
}

/// The sum of the scores of the sixteen pairs of a window of seventeen
/// ASCII bytes.
#[inline(always)]
fn lane_sum(window: &[u8; LANE + 1]) -> u32 {
    let [prev @ .., _] = window;
    let [_, bytes @ ..] = window;
    pairs_sum(prev, bytes)
}

/// The sum of the scores of the pairs (`prev[k]`, `bytes[k]`), all ASCII.
///
/// Written lane by lane; LLVM turns it into SIMD compares, masks and adds on
/// one register, and sums the lanes with `psadbw` (all SSE2).
#[inline(always)]
pub(super) fn pairs_sum(prev: &[u8; LANE], bytes: &[u8; LANE]) -> u32 {
    let mut scores = [0u8; LANE];
    for k in 0..LANE {
        scores[k] = ascii_score(prev[k], bytes[k]);
    }
    scores.iter().map(|&s| u32::from(s)).sum()
}

/// The sum of the table weights of the pairs `(bytes[i], bytes[i + 1])`; at
/// most `CHUNK + 1` bytes.
///
/// A pair read as a little-endian `u16` is `previous | byte << 8`, the
/// table's index, so each byte costs one two-byte load (`movzx`), one table
/// load and one add: no shifts or masks, and no load waits for another.
#[inline]
pub(super) fn pair_sum(bytes: &[u8]) -> i32 {
    debug_assert!(bytes.len() <= CHUNK + 1);
    // Four sums, so that consecutive adds do not wait for each other.
    let mut sums = [0i32; 4];
    let mut i = 0;
    while let Some(nine) = bytes[i..].first_chunk::<9>() {
        for k in 0..8 {
            let pair = u16::from_le_bytes([nine[k], nine[k + 1]]);
            sums[k % 4] += i32::from(PAIR[usize::from(pair)]);
        }
        i += 8;
    }
    for pair in bytes[i..].windows(2) {
        sums[0] += i32::from(PAIR[usize::from(u16::from_le_bytes([pair[0], pair[1]]))]);
    }
    sums.iter().sum()
}
