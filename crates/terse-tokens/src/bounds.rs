//! Where the segments of ASCII text start, 64 bytes at a time, as bits.
//!
//! The exact counter of ASCII text (`ascii`) takes the text a segment at a
//! time: a run of digits, or the bytes up to the end of a word (the first
//! byte after a letter that is neither a letter, a digit nor an
//! apostrophe). Whether a segment starts at a byte depends on that byte and
//! the one before it alone, so the starts of 64 bytes are a few operations
//! on three bit masks of them: digits, letters, and the bytes that keep a
//! segment going after a letter (letters, digits, the apostrophe). The
//! masks come from SSE2 compares on x86-64 (every x86-64 CPU has SSE2) and
//! from eight-byte words elsewhere; both give the same bits, which a test
//! checks on every ASCII byte at every position of a block.
//!
//! Then the counter's loop goes from span to span (as many whole segments
//! as fit in 32 bytes) with a window of these bits, rather than testing the
//! bytes of each segment for its end.

/// Bytes per block: one bit each in a `u64`.
pub(super) const BLOCK: usize = 64;

/// The classes of the bytes of one block, one bit per byte (bit `i` for
/// byte `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Classes {
    /// ASCII digits.
    pub(super) digit: u64,
    /// ASCII letters.
    pub(super) letter: u64,
    /// Letters, digits and the apostrophe: after a letter, these do not
    /// end a segment (a digit starts one of its own).
    pub(super) word: u64,
}

impl Classes {
    /// The classes of `block`, which must be ASCII (bytes of 0x80 and
    /// above may be taken for any class).
    #[inline(always)]
    pub(super) fn of(block: &[u8; BLOCK]) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let (digit, letter, word) = super::sse2::classes(block);
            Self {
                digit,
                letter,
                word,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Self::portable(block)
        }
    }

    /// [`Classes::of`] with AVX2: the same bits in half the instructions.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(unsafe_code)]
    pub(super) unsafe fn of_wide(block: &[u8; BLOCK]) -> Self {
        // SAFETY: the caller has AVX2.
        let (digit, letter, word) = unsafe { super::wide::classes(block) };
        Self {
            digit,
            letter,
            word,
        }
    }

    /// [`Classes::of`] with eight-byte words: what targets other than
    /// x86-64 run, and the reference the SSE2 kernel is tested against.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    pub(super) fn portable(block: &[u8; BLOCK]) -> Self {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        const LOW: u64 = 0x0101_0101_0101_0101;
        // Bit 7 of each byte of `w` in `lo..=hi`; no sum carries into the
        // next byte, since every byte is below 0x80.
        let within = |w: u64, lo: u8, hi: u8| {
            let at_least = |c: u8| w.wrapping_add(LOW * u64::from(0x80 - c));
            at_least(lo) & !at_least(hi + 1) & !w & HIGH
        };
        // Bit 7 of each byte of `m`, as the low eight bits: each byte `i`
        // moves to bit `56 + i` of the product, and no two terms of it
        // overlap, so nothing carries.
        let bits = |m: u64| (m >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        let mut classes = Self {
            digit: 0,
            letter: 0,
            word: 0,
        };
        for (k, chunk) in block.chunks_exact(8).enumerate() {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            let w = u64::from_le_bytes(word);
            let digit = within(w, b'0', b'9');
            // A letter with bit 5 set is a small letter; no other byte is.
            let letter = within(w | (LOW * 0x20), b'a', b'z');
            let apostrophe = within(w, b'\'', b'\'');
            classes.digit |= bits(digit) << (8 * k);
            classes.letter |= bits(letter) << (8 * k);
            classes.word |= bits(digit | letter | apostrophe) << (8 * k);
        }
        classes
    }

    /// The bytes of the block where a segment starts, given `before`, the
    /// classes of the block before it (only its last byte counts; all
    /// zeros before the text): a digit after a byte that is not one, a
    /// byte that is not a digit after a digit, and a byte that is neither
    /// a letter, a digit nor an apostrophe after a letter.
    #[inline(always)]
    pub(super) fn starts(&self, before: &Self) -> u64 {
        let digit_before = self.digit << 1 | before.digit >> 63;
        let letter_before = self.letter << 1 | before.letter >> 63;
        (self.digit ^ digit_before) | letter_before & !self.word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn block_of(bytes: &[u8]) -> [u8; BLOCK] {
        let mut block = [0; BLOCK];
        block.copy_from_slice(bytes);
        block
    }

    #[test]
    fn every_ascii_byte_at_every_position_has_its_class() {
        for b in 0..0x80u8 {
            for at in 0..BLOCK {
                let mut block = [b'.'; BLOCK];
                block[at] = b;
                let classes = Classes::of(&block);
                assert_eq!(classes, Classes::portable(&block), "{b:#x} at {at}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    #[allow(unsafe_code)]
                    // SAFETY: the CPU has just said it has AVX2.
                    let wide = unsafe { Classes::of_wide(&block) };
                    assert_eq!(wide, classes, "{b:#x} at {at}");
                }
                let bit = 1u64 << at;
                assert_eq!(classes.digit & bit != 0, b.is_ascii_digit(), "{b:#x}");
                assert_eq!(classes.letter & bit != 0, b.is_ascii_alphabetic(), "{b:#x}");
                assert_eq!(
                    classes.word & bit != 0,
                    b.is_ascii_alphanumeric() || b == b'\'',
                    "{b:#x}"
                );
                // The other bytes are punctuation: no class.
                assert_eq!(classes.word & !bit, 0);
            }
        }
    }

    proptest! {
        #[test]
        fn both_kernels_agree_on_any_ascii_block(
            bytes in proptest::collection::vec(0..0x80u8, BLOCK)
        ) {
            let block = block_of(&bytes);
            prop_assert_eq!(Classes::of(&block), Classes::portable(&block));
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                #[allow(unsafe_code)]
                // SAFETY: the CPU has just said it has AVX2.
                let wide = unsafe { Classes::of_wide(&block) };
                prop_assert_eq!(wide, Classes::portable(&block));
            }
        }
    }

    #[test]
    fn starts_cross_blocks() {
        let none = Classes {
            digit: 0,
            letter: 0,
            word: 0,
        };
        let mut digits = [b'.'; BLOCK];
        digits[0] = b'1';
        // A digit first: a start after punctuation or a letter, none after
        // a digit.
        let first = Classes::of(&digits);
        assert_eq!(first.starts(&none) & 3, 3);
        let mut ends_in_digit = [b'.'; BLOCK];
        ends_in_digit[BLOCK - 1] = b'7';
        assert_eq!(first.starts(&Classes::of(&ends_in_digit)) & 3, 2);
        // After a letter, punctuation starts a segment and an apostrophe
        // does not.
        let mut ends_in_letter = [b'.'; BLOCK];
        ends_in_letter[BLOCK - 1] = b'x';
        let before = Classes::of(&ends_in_letter);
        assert_eq!(Classes::of(&[b','; BLOCK]).starts(&before) & 1, 1);
        assert_eq!(Classes::of(&[b'\''; BLOCK]).starts(&before) & 1, 0);
        assert_eq!(Classes::of(&[b'y'; BLOCK]).starts(&before), 0);
    }
}
