//! Where a block of 64 bytes of JSON has its quotes, backslashes,
//! openings (`{`, `[`) and closings (`}`, `]`), one bit per byte (bit `i`
//! for byte `i`): with SSE2, which every x86-64 CPU has (four 16-byte
//! vectors, four compares each), else a byte at a time. `records.rs` walks
//! a list's records with them; this file knows nothing of it.

#![allow(unsafe_code)]
// `unsafe` blocks around intrinsics that newer compilers call safe where
// SSE2 is on (always, on x86-64); the crate's minimum Rust still calls them
// unsafe.
#![allow(unused_unsafe)]

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
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
