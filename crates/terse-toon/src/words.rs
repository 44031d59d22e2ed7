//! Tests of eight bytes at once, in a `u64` read little-endian (byte `i`
//! in bits `8 * i` to `8 * i + 7`), for the short texts the codec looks at
//! most: numbers, codes and dates.

/// The high bit of each byte.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that is an ASCII digit, and no
/// other bit. Per byte, on its low seven bits (no borrow or carry crosses
/// a byte): the high bit of `from_zero` is set where they are at least
/// `0`, that of `past_nine` where they are past `9`; a byte with its own
/// high bit set is no digit.
#[inline(always)]
pub(crate) fn ascii_digits(word: u64) -> u64 {
    let low = word & !HIGH;
    let from_zero = (low | HIGH).wrapping_sub(0x3030_3030_3030_3030) & HIGH;
    let past_nine = low.wrapping_add(0x4646_4646_4646_4646) & HIGH;
    from_zero & !past_nine & !(word & HIGH)
}

#[cfg(test)]
mod tests {
    use super::ascii_digits;

    #[test]
    fn every_byte_at_every_place_is_told_alone() {
        for byte in 0..=u8::MAX {
            for place in 0..8 {
                // The byte among neighbours of both kinds.
                for fill in [b'5', b'a', 0xff, 0] {
                    let mut bytes = [fill; 8];
                    bytes[place] = byte;
                    let want = bytes.iter().enumerate().fold(0, |mask, (i, b)| {
                        mask | u64::from(b.is_ascii_digit()) << (8 * i + 7)
                    });
                    assert_eq!(ascii_digits(u64::from_le_bytes(bytes)), want, "{bytes:?}");
                }
            }
        }
    }
}
