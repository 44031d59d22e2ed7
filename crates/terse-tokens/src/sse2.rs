//! The byte classes of a block of 64 bytes of ASCII text with SSE2, which
//! every x86-64 CPU has: four 16-byte vectors, a few compares each, one
//! `pmovmskb` per class and vector. `bounds::Classes` calls it; this file
//! knows nothing of it, only the three masks it returns.

#![allow(unsafe_code)]
// `unsafe` blocks around intrinsics that newer compilers call safe where
// SSE2 is on (always, on x86-64); the crate's minimum Rust still calls them
// unsafe.
#![allow(unused_unsafe)]

use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8,
};

/// Bytes per block: one bit each in a `u64`.
const BLOCK: usize = 64;

/// The classes of `block` as three masks, one bit per byte (bit `i` for
/// byte `i`): digits, letters, and letters, digits and the apostrophe; as
/// `bounds::Classes::portable` computes them for ASCII.
///
/// Bytes compare as signed: ASCII bytes are all positive, so `a > b` is
/// their order.
#[inline(always)]
pub(super) fn classes(block: &[u8; BLOCK]) -> (u64, u64, u64) {
    let (mut all_digit, mut all_letter, mut all_word) = (0, 0, 0);
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
        all_digit |= bits(digit);
        all_letter |= bits(letter);
        all_word |= bits(word);
    }
    (all_digit, all_letter, all_word)
}

/// `b` in every byte of a vector.
#[inline(always)]
fn splat(b: u8) -> __m128i {
    // SAFETY: SSE2 is part of x86-64.
    unsafe { _mm_set1_epi8(b as i8) }
}
