//! The byte classes of a block of ASCII text (`bounds::Classes`) with SSE2,
//! which every x86-64 CPU has: four 16-byte vectors, a few compares each,
//! one `pmovmskb` per class and vector.

#![allow(unsafe_code)]
// `unsafe` blocks around intrinsics that newer compilers call safe where
// SSE2 is on (always, on x86-64); the crate's minimum Rust still calls them
// unsafe.
#![allow(unused_unsafe)]

use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8,
};

use super::bounds::{BLOCK, Classes};

/// The classes of `block`, as `Classes::portable` computes them for ASCII.
///
/// Bytes compare as signed: ASCII bytes are all positive, so `a > b` is
/// their order.
#[inline(always)]
pub(super) fn classes(block: &[u8; BLOCK]) -> Classes {
    let mut classes = Classes {
        digit: 0,
        letter: 0,
        word: 0,
    };
    for k in 0..BLOCK / 16 {
        // SAFETY: SSE2 is part of x86-64, so every x86-64 CPU runs these
        // intrinsics; the load reads bytes `16k..16k + 16` of `block`,
        // which has `BLOCK` of them, unaligned loads allowed.
        let (digit, letter, word) = unsafe {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
            let digit = _mm_and_si128(
                _mm_cmpgt_epi8(v, splat(b'0' - 1)),
                _mm_cmpgt_epi8(splat(b'9' + 1), v),
            );
            // A letter with bit 5 set is a small letter; no other byte is.
            let folded = _mm_or_si128(v, splat(0x20));
            let letter = _mm_and_si128(
                _mm_cmpgt_epi8(folded, splat(b'a' - 1)),
                _mm_cmpgt_epi8(splat(b'z' + 1), folded),
            );
            let apostrophe = _mm_cmpeq_epi8(v, splat(b'\''));
            let word = _mm_or_si128(_mm_or_si128(digit, letter), apostrophe);
            (
                _mm_movemask_epi8(digit),
                _mm_movemask_epi8(letter),
                _mm_movemask_epi8(word),
            )
        };
        // `pmovmskb` sets the low 16 bits only.
        let bits = |mask: i32| u64::from(mask as u16) << (16 * k);
        classes.digit |= bits(digit);
        classes.letter |= bits(letter);
        classes.word |= bits(word);
    }
    classes
}

/// `b` in every byte of a vector.
#[inline(always)]
fn splat(b: u8) -> __m128i {
    // SAFETY: SSE2 is part of x86-64.
    unsafe { _mm_set1_epi8(b as i8) }
}
