//! The crate's one eight-bytes-at-a-time byte scanner, for the hot loops
//! that look for a rare byte in text that almost never holds one: JSON
//! escapes in compact lines, line breaks in template values.
//!
//! [`find`] is plain safe Rust over `u64` words rather than `memchr` or
//! SIMD intrinsics: the sets searched for (a range plus a few bytes) are
//! not what `memchr` finds, and eight bytes a word is fast enough for bytes
//! that are rare.
//!
//! The passes over whole bodies are another matter: the UTF-8 check of a
//! body ([`utf8`]) reads it 64 bytes a block, with AVX2 where the CPU has
//! it, through the one load of a block into two AVX2 registers
//! ([`halves_avx2`]) that the shape scan and the minifier share.

/// `byte` in every byte of a word.
pub(crate) const fn splat(byte: u8) -> u64 {
    0x0101_0101_0101_0101 * byte as u64
}

/// The high bit of every zero byte of `word` set (and possibly of bytes
/// above a zero byte: borrows only run upwards, so the lowest flagged byte
/// is always a zero byte).
pub(crate) const fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(splat(1)) & !word & splat(0x80)
}

/// The high bit of every byte of `word` equal to `byte` set (and possibly
/// some above it, as [`zero_bytes`]).
pub(crate) const fn bytes_equal(word: u64, byte: u8) -> u64 {
    zero_bytes(word ^ splat(byte))
}

/// The high bit of every byte of `word` below 0x20 (an ASCII control) set
/// (and possibly some above it, as [`zero_bytes`]).
pub(crate) const fn controls(word: u64) -> u64 {
    zero_bytes(word & splat(0xe0))
}

/// The offset of the first byte of `bytes` for which `is_match` holds.
///
/// `flag` must mark every such byte of a little-endian word, built from
/// [`zero_bytes`] and its kin: the lowest byte it marks is checked with
/// `is_match` and the scan goes on past a false alarm.
#[inline]
pub(crate) fn find(
    bytes: &[u8],
    flag: impl Fn(u64) -> u64,
    is_match: impl Fn(u8) -> bool,
) -> Option<usize> {
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let mut flagged = flag(word);
        while flagged != 0 {
            let i = at + (flagged.trailing_zeros() / 8) as usize;
            if is_match(bytes[i]) {
                return Some(i);
            }
            // Clear that byte's flag and look at the next one.
            flagged &= flagged - 1;
        }
        at += 8;
    }
    let tail = bytes.len() - at;
    if tail == 0 {
        return None;
    }
    // The last eight bytes as one word, shifted so that the tail's bytes
    // are its low bytes: the flags of the zeros shifted in above them are
    // cleared (borrows only run upwards, so those zeros flag nothing below).
    if let Some(last) = bytes
        .len()
        .checked_sub(8)
        .and_then(|from| bytes.get(from..))
    {
        let word = u64::from_le_bytes(last.try_into().unwrap_or([0; 8])) >> (8 * (8 - tail));
        let mut flagged = flag(word) & (u64::MAX >> (8 * (8 - tail)));
        while flagged != 0 {
            let i = at + (flagged.trailing_zeros() / 8) as usize;
            if is_match(bytes[i]) {
                return Some(i);
            }
            flagged &= flagged - 1;
        }
        return None;
    }
    bytes[at..]
        .iter()
        .position(|&b| is_match(b))
        .map(|i| at + i)
}

/// `bytes` as text, when they are UTF-8: what `std::str::from_utf8` says,
/// sooner on the bodies a rewrite reads, which are mostly or wholly ASCII.
///
/// The ASCII at the start is found 64 bytes at a time ([`ascii_blocks`]),
/// where `from_utf8`'s own ASCII path takes 0.7 instructions a byte;
/// `from_utf8` checks what follows, from the first block that holds a byte
/// of 0x80 or above.
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    let ascii = ascii_blocks(bytes);
    std::str::from_utf8(bytes.get(ascii..)?).ok()?;
    #[allow(unsafe_code)]
    // SAFETY: `bytes[..ascii]` is ASCII, every byte of it below 0x80, and
    // `bytes[ascii..]` is UTF-8, as `from_utf8` has just said; ASCII
    // followed by UTF-8 is UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// How many bytes at the start of `bytes` are whole blocks of 64 ASCII
/// bytes: one test of the high bits of two 32-byte vectors OR-ed together
/// a block with AVX2 ([`crate::cpu::avx2`]), else of eight words.
fn ascii_blocks(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX2, as it has just said.
        return unsafe { ascii_blocks_avx2(bytes) };
    }
    ascii_blocks_by_word(bytes)
}

/// [`ascii_blocks`] with AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn ascii_blocks_avx2(bytes: &[u8]) -> usize {
    use std::arch::x86_64::{_mm256_movemask_epi8, _mm256_or_si256};
    let mut ascii = 0;
    for block in bytes.chunks_exact(64) {
        let (low, high) = halves_avx2(block.try_into().unwrap_or(&[0; 64]));
        if _mm256_movemask_epi8(_mm256_or_si256(low, high)) != 0 {
            break;
        }
        ascii += 64;
    }
    ascii
}

/// The two halves of a 64-byte block, each loaded straight into an AVX2
/// register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn halves_avx2(
    block: &[u8; 64],
) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256};
    #[allow(unsafe_code)]
    // SAFETY: `block` is 64 readable bytes, so the unaligned 32-byte loads
    // at offsets 0 and 32 stay inside it.
    unsafe {
        let at = block.as_ptr();
        (
            _mm256_loadu_si256(at.cast::<__m256i>()),
            _mm256_loadu_si256(at.add(32).cast::<__m256i>()),
        )
    }
}

/// [`ascii_blocks`] a word at a time: what other CPUs use, and what the
/// vector version is held to.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn ascii_blocks_by_word(bytes: &[u8]) -> usize {
    let mut ascii = 0;
    for block in bytes.chunks_exact(64) {
        let high = block.chunks_exact(8).fold(0, |high, word| {
            high | u64::from_le_bytes(word.try_into().unwrap_or([0; 8]))
        });
        if high & splat(0x80) != 0 {
            break;
        }
        ascii += 64;
    }
    ascii
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn special(b: u8) -> bool {
        b == b'"' || b == b'\\' || b < 0x20
    }

    fn find_special(bytes: &[u8]) -> Option<usize> {
        find(
            bytes,
            |w| bytes_equal(w, b'"') | bytes_equal(w, b'\\') | controls(w),
            special,
        )
    }

    #[test]
    fn finds_the_first_match_in_words_and_tail() {
        assert_eq!(find_special(b""), None);
        assert_eq!(find_special(b"plain text, no escapes"), None);
        assert_eq!(find_special(b"0123456789\"x\""), Some(10));
        assert_eq!(find_special(b"ab\\"), Some(2));
        // A byte above a match flags as a false alarm: the match still wins.
        assert_eq!(find_special(&[b'a', 0x00, 0x01, b'b']), Some(1));
        assert_eq!(find_special(&[b'a'; 9]), None);
    }

    proptest! {
        /// ASCII runs of any length before, between and after bytes of any
        /// value (valid sequences, and lone bytes that break them), so that
        /// the first non-ASCII byte falls anywhere in a block.
        #[test]
        fn utf8_is_what_from_utf8_says(parts in proptest::collection::vec(
            (0usize..150, prop_oneof![
                Just(Vec::new()),
                any::<char>().prop_map(|c| c.to_string().into_bytes()),
                any::<u8>().prop_map(|b| vec![b]),
            ]),
            0..6,
        )) {
            let mut bytes = Vec::new();
            for (ascii, other) in parts {
                bytes.extend((0..ascii).map(|i| b'a' + (i % 26) as u8));
                bytes.extend(other);
            }
            prop_assert_eq!(utf8(&bytes), std::str::from_utf8(&bytes).ok());
            prop_assert_eq!(ascii_blocks(&bytes), ascii_blocks_by_word(&bytes));
        }

        #[test]
        fn finds_what_a_plain_scan_finds(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            prop_assert_eq!(find_special(&bytes), bytes.iter().position(|&b| special(b)));
            let wide = find(&bytes, |w| bytes_equal(w, 0xc2) | bytes_equal(w, 0x7f), |b| b == 0xc2 || b == 0x7f);
            prop_assert_eq!(wide, bytes.iter().position(|&b| b == 0xc2 || b == 0x7f));
        }
    }
}
