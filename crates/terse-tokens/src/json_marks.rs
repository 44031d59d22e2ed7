//! Where a block of 64 bytes of JSON has its quotes, backslashes,
//! openings (`{`, `[`) and closings (`}`, `]`), one bit per byte (bit `i`
//! for byte `i`): with SSE2, which every x86-64 CPU has (four 16-byte
//! vectors, four compares each), else a byte at a time. `records.rs` walks
//! a list's records with them (and with AVX2, in a third of the
//! instructions, `marks_wide`); this file knows nothing of it.

#![allow(unsafe_code)]
// `unsafe` blocks around intrinsics that newer compilers call safe where
// SSE2 is on (always, on x86-64); the crate's minimum Rust still calls them
// unsafe.
#![allow(unused_unsafe)]

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
    _mm_set1_epi8,
};

/// The marks of one block.
#[derive(Default)]
pub(super) struct Marks {
    pub(super) quotes: u64,
    pub(super) backslashes: u64,
    pub(super) opens: u64,
    pub(super) closes: u64,
}

/// The marks of `block`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn marks(block: &[u8; 64]) -> Marks {
    let mut marks = Marks::default();
    for (i, &byte) in block.iter().enumerate() {
        let bit = 1 << i;
        match byte {
            b'"' => marks.quotes |= bit,
            b'\\' => marks.backslashes |= bit,
            b'{' | b'[' => marks.opens |= bit,
            b'}' | b']' => marks.closes |= bit,
            _ => {}
        }
    }
    marks
}

/// The marks of `block`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn marks(block: &[u8; 64]) -> Marks {
    let mut marks = Marks::default();
    for k in 0..4 {
        // SAFETY: SSE2 is part of x86-64, so every x86-64 CPU runs these
        // intrinsics; the load reads bytes `16k..16k + 16` of `block`,
        // which has 64 of them, unaligned loads allowed.
        let (quotes, backslashes, opens, closes) = unsafe {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            // `{` and `[` differ in bit 5 only, as do `}` and `]`.
            let folded = _mm_or_si128(v, splat(0x20));
            (
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, splat(b'"'))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, splat(b'\\'))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(folded, splat(b'{'))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(folded, splat(b'}'))),
            )
        };
        // `pmovmskb` sets the low 16 bits only.
        let bits = |mask: i32| u64::from(mask as u16) << (16 * k);
        marks.quotes |= bits(quotes);
        marks.backslashes |= bits(backslashes);
        marks.opens |= bits(opens);
        marks.closes |= bits(closes);
    }
    marks
}

/// `byte` in every lane.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn splat(byte: u8) -> __m128i {
    // SAFETY: SSE2 is part of x86-64 (see `marks`).
    unsafe { _mm_set1_epi8(byte as i8) }
}

/// [`marks`] with AVX2: two 32-byte vectors, a compare per mark each, and
/// the quotes' running XOR (`prefix_xor` in `records.rs`) by one
/// carry-less multiplication: the marks of a block in about a third of
/// the SSE2 kernel's instructions (a near tie's record walk reads half of
/// the JSON with them).
///
/// # Safety
///
/// The CPU must support AVX2 and PCLMULQDQ ([`crate::cpu::avx2_clmul`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
#[inline]
pub(super) unsafe fn marks_wide(block: &[u8; 64]) -> Marks {
    use core::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    // SAFETY: the caller has AVX2; the loads read bytes 0..32 and 32..64
    // of `block`, which has 64 of them, unaligned loads allowed.
    unsafe {
        let at = block.as_ptr();
        let low = _mm256_loadu_si256(at.cast::<__m256i>());
        let high = _mm256_loadu_si256(at.add(32).cast::<__m256i>());
        // `{` and `[` differ in bit 5 only, as do `}` and `]`.
        let fold = _mm256_set1_epi8(0x20);
        let (low_folded, high_folded) = (_mm256_or_si256(low, fold), _mm256_or_si256(high, fold));
        let bits = |low: __m256i, high: __m256i, byte: u8| {
            let byte = _mm256_set1_epi8(byte as i8);
            u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, byte)) as u32)
                | u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, byte)) as u32) << 32
        };
        Marks {
            quotes: bits(low, high, b'"'),
            backslashes: bits(low, high, b'\\'),
            opens: bits(low_folded, high_folded, b'{'),
            closes: bits(low_folded, high_folded, b'}'),
        }
    }
}

/// Bit `i` set when an odd number of the bits of `bits` up to `i` are, as
/// `records.rs`'s `prefix_xor` computes it: the product of `bits` and all
/// ones without carries.
///
/// # Safety
///
/// The CPU must support PCLMULQDQ (and SSE2, which every x86-64 CPU has).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
#[inline]
pub(super) unsafe fn prefix_xor_clmul(bits: u64) -> u64 {
    use core::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x};
    // SAFETY: the caller has PCLMULQDQ; SSE2 is part of x86-64.
    unsafe {
        let product =
            _mm_clmulepi64_si128::<0>(_mm_set_epi64x(0, bits as i64), _mm_set_epi64x(0, -1));
        _mm_cvtsi128_si64(product) as u64
    }
}

/// Bit `i` set where byte `i` of `window` is a line break and byte
/// `i + 3` a dash, for the first 32 bytes: the candidates for a TOON
/// list's record line (`\n  -`), which `records.rs` then checks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn line_dashes(window: &[u8; 35]) -> u32 {
    let half = |from: usize| {
        // SAFETY: SSE2 is part of x86-64; the loads read bytes
        // `from..from + 16` and `from + 3..from + 19` of `window`, which
        // has 35 of them for `from` 0 or 16, unaligned loads allowed.
        unsafe {
            let at = window.as_ptr().add(from);
            let breaks = _mm_cmpeq_epi8(_mm_loadu_si128(at.cast::<__m128i>()), splat(b'\n'));
            let dashes = _mm_cmpeq_epi8(_mm_loadu_si128(at.add(3).cast::<__m128i>()), splat(b'-'));
            _mm_movemask_epi8(_mm_and_si128(breaks, dashes)) as u32
        }
    };
    half(0) | half(16) << 16
}

/// [`line_dashes`] a byte at a time.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn line_dashes(window: &[u8; 35]) -> u32 {
    (0..32).fold(0, |bits, i| {
        bits | u32::from(window[i] == b'\n' && window[i + 3] == b'-') << i
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn marks_are_each_bytes_and_the_wide_ones_the_same(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), Just(b'{'), Just(b'['), Just(b'}'), Just(b']'), Just(b'{' | 0x80), any::<u8>()],
                64,
            ),
        ) {
            let block: [u8; 64] = bytes.try_into().unwrap();
            let want = marks(&block);
            let bits = |of: &dyn Fn(u8) -> bool| {
                (0..64).fold(0u64, |bits, i| bits | u64::from(of(block[i])) << i)
            };
            prop_assert_eq!(
                (want.quotes, want.backslashes, want.opens, want.closes),
                (
                    bits(&|b| b == b'"'),
                    bits(&|b| b == b'\\'),
                    bits(&|b| b == b'{' || b == b'['),
                    bits(&|b| b == b'}' || b == b']'),
                )
            );
            #[cfg(target_arch = "x86_64")]
            if crate::cpu::avx2_clmul() {
                // SAFETY: the CPU has just said it has AVX2 and PCLMULQDQ.
                let (wide, prefix) = unsafe { (marks_wide(&block), prefix_xor_clmul(want.quotes)) };
                prop_assert_eq!(
                    (wide.quotes, wide.backslashes, wide.opens, wide.closes),
                    (want.quotes, want.backslashes, want.opens, want.closes)
                );
                let running = (0..64).fold((0u64, false), |(bits, odd), i| {
                    let odd = odd ^ (want.quotes >> i & 1 == 1);
                    (bits | u64::from(odd) << i, odd)
                });
                prop_assert_eq!(prefix, running.0);
            }
        }
    }
}
