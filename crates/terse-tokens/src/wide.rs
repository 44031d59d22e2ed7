//! The byte classes of a block of 64 bytes of ASCII text with AVX2: two
//! 32-byte vectors, a few compares each, one `vpmovmskb` per class and
//! vector; half the instructions of the SSE2 kernel (`sse2.rs`), whose
//! masks it returns bit for bit. The exact counter's loop compiled for
//! AVX2 calls it; this file knows nothing of it.

#![allow(unsafe_code)]
// `unsafe` blocks around intrinsics that newer compilers call safe where
// AVX2 is on; the crate's minimum Rust still calls them unsafe.
#![allow(unused_unsafe)]

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
};

/// Bytes per block: one bit each in a `u64`.
const BLOCK: usize = 64;

/// The classes of `block` as three masks, one bit per byte (bit `i` for
/// byte `i`): digits, letters, and letters, digits and the apostrophe.
///
/// Bytes compare as signed: ASCII bytes are all positive, so `a > b` is
/// their order.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn classes(block: &[u8; BLOCK]) -> (u64, u64, u64) {
    let (mut all_digit, mut all_letter, mut all_word) = (0, 0, 0);
    for k in 0..BLOCK / 32 {
        // SAFETY: the caller has AVX2; the load reads bytes
        // `32k..32k + 32` of `block`, which has `BLOCK` of them, unaligned
        // loads allowed.
        let (digit, letter, word) = unsafe {
            let v = _mm256_loadu_si256(block.as_ptr().add(32 * k).cast::<__m256i>());
            let digit = _mm256_and_si256(
                _mm256_cmpgt_epi8(v, splat(b'0' - 1)),
                _mm256_cmpgt_epi8(splat(b'9' + 1), v),
            );
            // A letter with bit 5 set is a small letter; no other byte is.
            let folded = _mm256_or_si256(v, splat(0x20));
            let letter = _mm256_and_si256(
                _mm256_cmpgt_epi8(folded, splat(b'a' - 1)),
                _mm256_cmpgt_epi8(splat(b'z' + 1), folded),
            );
            let apostrophe = _mm256_cmpeq_epi8(v, splat(b'\''));
            let word = _mm256_or_si256(_mm256_or_si256(digit, letter), apostrophe);
            (
                _mm256_movemask_epi8(digit),
                _mm256_movemask_epi8(letter),
                _mm256_movemask_epi8(word),
            )
        };
        // Through `black_box`: LLVM otherwise merges the two halves'
        // masks into one of 64 lanes, which without AVX-512 it takes
        // apart a byte at a time.
        let bits = |mask: i32| u64::from(core::hint::black_box(mask) as u32) << (32 * k);
        all_digit |= bits(digit);
        all_letter |= bits(letter);
        all_word |= bits(word);
    }
    (all_digit, all_letter, all_word)
}

/// `b` in every byte of a vector.
#[target_feature(enable = "avx2")]
#[inline]
fn splat(b: u8) -> __m256i {
    // SAFETY: AVX2 is on wherever this is compiled in.
    unsafe { _mm256_set1_epi8(b as i8) }
}
