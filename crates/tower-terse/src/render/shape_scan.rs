//! The shape pass of the working bound ([`super::working`]), 64 bytes at a
//! time: every rewrite reads its whole body once here before it starts, so
//! this pass is a fixed share of every rewrite's cost.
//!
//! A block of 64 bytes is turned into bit masks (quotes, backslashes,
//! opening and closing brackets, `,` and `:`), 32 bytes per AVX2 compare on
//! x86-64 CPUs that have it ([`crate::cpu::avx2`]; the whole pass is
//! compiled for AVX2 and POPCNT then, so the masks are worked out inline),
//! else 16 bytes per SSE2 compare. In a block without a backslash every
//! quote opens or closes a
//! string, so the bytes inside strings are the prefix XOR of the quotes,
//! carried from block to block (one carry-less multiply with AVX2, whose
//! CPUs all have PCLMULQDQ); the values are then a population count and
//! the nesting is walked bracket by bracket. A block with a backslash (rare
//! in API JSON) is read as the rules say, a byte at a time outside strings
//! and eight bytes at a time inside them, up to where the next block starts
//! outside an escape.

use crate::scan;

/// Bytes per block: one bit of a `u64` mask each.
const BLOCK: usize = 64;

/// What the pass has counted so far, and where it stands.
struct Count {
    values: usize,
    depth: usize,
    deepest: usize,
    /// The next byte is inside a string (after its opening quote).
    in_string: bool,
}

impl Count {
    fn open(&mut self) {
        self.values += 1;
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
    }

    fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// The values and keys (every one but the first follows one of `,` `:` `[`
/// `{` outside strings, so one more than those) and the deepest nesting of
/// `body`, strings skipped (a quote ends a string unless escaped; an
/// unterminated string runs to the end).
pub(super) fn count(body: &[u8]) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2_clmul() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX2, POPCNT and PCLMULQDQ, as it has just said.
        return unsafe { count_avx2(body) };
    }
    count_with(body, masks, prefix_xor)
}

/// [`count`] compiled for AVX2, its masks 32 bytes per compare, its
/// population counts one instruction each and its prefix XOR one
/// carry-less multiply ([`prefix_xor_clmul`]).
///
/// # Safety
///
/// The CPU must support AVX2, POPCNT and PCLMULQDQ
/// ([`crate::cpu::avx2_clmul`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,pclmulqdq")]
#[allow(unsafe_code)]
unsafe fn count_avx2(body: &[u8]) -> (usize, usize) {
    count_with(
        body,
        |block| masks_avx2(block),
        |bits| prefix_xor_clmul(bits),
    )
}

/// [`count`] with `masks` as the way a block becomes masks and `prefix_xor`
/// as the way its quotes become the bytes inside strings. Always inlined,
/// so that it is compiled with the features of its caller and inlines
/// both.
#[inline(always)]
fn count_with(
    body: &[u8],
    masks: impl Fn(&[u8; BLOCK]) -> Masks,
    prefix_xor: impl Fn(u64) -> u64,
) -> (usize, usize) {
    let mut count = Count {
        values: 1,
        depth: 0,
        deepest: 0,
        in_string: false,
    };
    let mut at = 0;
    while let Some(block) = body.get(at..at + BLOCK) {
        let block: &[u8; BLOCK] = block.try_into().unwrap_or(&[0; BLOCK]);
        let masks = masks(block);
        if masks.backslash {
            at = bytewise(body, at, at + BLOCK, &mut count);
            continue;
        }
        // Bit i set: byte i is inside a string (an opening quote counts as
        // inside, a closing one as outside; neither is counted below).
        // XOR with all ones when the block starts inside a string.
        let inside = prefix_xor(masks.quote) ^ (count.in_string as u64).wrapping_neg();
        count.in_string = inside >> 63 == 1;
        let outside = !inside;
        let open = masks.open & outside;
        let close = masks.close & outside;
        // Opening brackets and separators: each starts a value or a key.
        count.values += (masks.starts & outside).count_ones() as usize;
        if close == 0 {
            count.depth += open.count_ones() as usize;
            count.deepest = count.deepest.max(count.depth);
        } else {
            let mut brackets = open | close;
            while brackets != 0 {
                let bit = brackets & brackets.wrapping_neg();
                if open & bit != 0 {
                    count.depth += 1;
                    count.deepest = count.deepest.max(count.depth);
                } else {
                    count.close();
                }
                brackets &= brackets - 1;
            }
        }
        at += BLOCK;
    }
    bytewise(body, at, body.len(), &mut count);
    (count.values, count.deepest)
}

/// Reads `body` from `at` as the rules say until at least `stop` (a string
/// open there is read to its end, which may lie past `stop`); returns where
/// it stopped, outside any string unless the text ran out.
fn bytewise(body: &[u8], mut at: usize, stop: usize, count: &mut Count) -> usize {
    if count.in_string {
        // Past its closing quote.
        at = string_end(body, at) + 1;
        count.in_string = false;
    }
    while at < stop.min(body.len()) {
        match body[at] {
            b'"' => at = string_end(body, at + 1),
            b'[' | b'{' => count.open(),
            b']' | b'}' => count.close(),
            b',' | b':' => count.values += 1,
            _ => {}
        }
        at += 1;
    }
    at
}

/// The offset of the quote that closes the string whose text starts at
/// `at`, eight bytes at a time (the byte after a backslash is text); the
/// text's length when it is unterminated.
fn string_end(body: &[u8], mut at: usize) -> usize {
    loop {
        let rest = body.get(at..).unwrap_or_default();
        let special = scan::find(
            rest,
            |word| scan::bytes_equal(word, b'"') | scan::bytes_equal(word, b'\\'),
            |b| b == b'"' || b == b'\\',
        );
        match special {
            Some(found) if rest[found] == b'\\' => at += found + 2,
            Some(found) => return at + found,
            None => return body.len(),
        }
    }
}

/// Bit i of each mask is set when byte i of a block is that byte.
#[derive(Debug, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    /// The block holds a backslash: all the pass needs to know of them.
    backslash: bool,
    /// `[` or `{`.
    open: u64,
    /// `]` or `}`.
    close: u64,
    /// `,` `:` `[` or `{`: where a value or key starts after.
    starts: u64,
}

/// Bit i set when an odd number of the bits 0 to i of `bits` are set.
fn prefix_xor(mut bits: u64) -> u64 {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    bits
}

/// [`prefix_xor`] as one carry-less multiply by all ones: bit i of the
/// product is the XOR of bits 0 to i of `bits`. The minifier's AVX2 pass
/// takes its strings' bytes with it too.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2,pclmulqdq")]
#[inline]
pub(super) fn prefix_xor_clmul(bits: u64) -> u64 {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8,
    };
    let product = _mm_clmulepi64_si128::<0>(_mm_cvtsi64_si128(bits as i64), _mm_set1_epi8(-1));
    _mm_cvtsi128_si64(product) as u64
}

#[cfg(target_arch = "x86_64")]
fn masks(block: &[u8; BLOCK]) -> Masks {
    #[allow(unsafe_code)]
    // SAFETY: SSE2 is part of the x86-64 baseline every x86-64 CPU has; the
    // function reads nothing but `block`, in safe code.
    unsafe {
        masks_sse2(block)
    }
}

/// [`Masks`] of a block, 16 bytes per compare. `[` and `{` (and `]` and
/// `}`) differ only in bit 5, so one compare of the bytes with bit 5 set
/// finds both, and no other byte.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks_sse2(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8,
    };
    let bits = |lanes: __m128i, byte: u8| -> u64 {
        // The mask holds 16 bits, one per byte.
        u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(lanes, _mm_set1_epi8(byte as i8))) as u16)
    };
    let mut masks = Masks::default();
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        let half =
            |from: usize| i64::from_le_bytes(chunk[from..from + 8].try_into().unwrap_or([0; 8]));
        let lanes = _mm_set_epi64x(half(8), half(0));
        let folded = _mm_or_si128(lanes, _mm_set1_epi8(0x20));
        let shift = 16 * i;
        masks.quote |= bits(lanes, b'"') << shift;
        masks.backslash |= bits(lanes, b'\\') != 0;
        masks.open |= bits(folded, b'{') << shift;
        masks.close |= bits(folded, b'}') << shift;
        let starts = _mm_or_si128(
            _mm_or_si128(
                _mm_cmpeq_epi8(lanes, _mm_set1_epi8(b',' as i8)),
                _mm_cmpeq_epi8(lanes, _mm_set1_epi8(b':' as i8)),
            ),
            _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8)),
        );
        masks.starts |= u64::from(_mm_movemask_epi8(starts) as u16) << shift;
    }
    masks
}

/// [`Masks`] of a block, 32 bytes per compare, each half loaded straight
/// into a register. `[` and `{` (and `]` and `}`) differ only in bit 5, as
/// in [`masks_sse2`]; a backslash anywhere in the block is all the caller
/// needs to know of them, so their halves are joined before their one
/// move to a mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn masks_avx2(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };
    let (low, high) = crate::scan::halves_avx2(block);
    let eq = |lanes: __m256i, byte: u8| _mm256_cmpeq_epi8(lanes, _mm256_set1_epi8(byte as i8));
    // The mask of a compare of each half, as 64 bits.
    let bits = |low: __m256i, high: __m256i| -> u64 {
        u64::from(_mm256_movemask_epi8(low) as u32)
            | u64::from(_mm256_movemask_epi8(high) as u32) << 32
    };
    let fold = |lanes: __m256i| _mm256_or_si256(lanes, _mm256_set1_epi8(0x20));
    let (low_folded, high_folded) = (fold(low), fold(high));
    let (low_open, high_open) = (eq(low_folded, b'{'), eq(high_folded, b'{'));
    let starts = |lanes: __m256i, open: __m256i| {
        _mm256_or_si256(_mm256_or_si256(eq(lanes, b','), eq(lanes, b':')), open)
    };
    Masks {
        quote: bits(eq(low, b'"'), eq(high, b'"')),
        backslash: _mm256_movemask_epi8(_mm256_or_si256(eq(low, b'\\'), eq(high, b'\\'))) != 0,
        open: bits(low_open, high_open),
        close: bits(eq(low_folded, b'}'), eq(high_folded, b'}')),
        starts: bits(starts(low, low_open), starts(high, high_open)),
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; BLOCK]) -> Masks {
    masks_bytewise(block)
}

/// [`Masks`] of a block, a byte at a time: what other targets use, and
/// what the vector version is held to.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks_bytewise(block: &[u8; BLOCK]) -> Masks {
    let mut masks = Masks::default();
    for (i, &byte) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match byte {
            b'"' => masks.quote |= bit,
            b'\\' => masks.backslash = true,
            b'[' | b'{' => {
                masks.open |= bit;
                masks.starts |= bit;
            }
            b']' | b'}' => masks.close |= bit,
            b',' | b':' => masks.starts |= bit,
            _ => {}
        }
    }
    masks
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_prefix_xor_marks_the_bytes_between_quotes() {
        assert_eq!(prefix_xor(0), 0);
        assert_eq!(prefix_xor(0b1001), 0b0111);
        assert_eq!(prefix_xor(1), u64::MAX);
        assert_eq!(prefix_xor(1 << 63), 1 << 63);
    }

    proptest! {
        #[test]
        fn the_carry_less_prefix_xor_is_the_shifted_one(bits in any::<u64>()) {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("pclmulqdq") {
                #[allow(unsafe_code)]
                // SAFETY: the CPU has just said it has PCLMULQDQ (and SSE2
                // is part of the x86-64 baseline).
                let product = unsafe { prefix_xor_clmul(bits) };
                prop_assert_eq!(product, prefix_xor(bits));
            }
        }
    }

    proptest! {
        #[test]
        fn vector_masks_are_the_bytewise_masks(bytes in proptest::collection::vec(
            prop_oneof![proptest::sample::select(b"[]{},:\\\" a;<=>|".to_vec()), any::<u8>()],
            BLOCK..=BLOCK))
        {
            let block: &[u8; BLOCK] = bytes.as_slice().try_into().unwrap();
            prop_assert_eq!(masks(block), masks_bytewise(block));
            #[cfg(target_arch = "x86_64")]
            if crate::cpu::avx2() {
                #[allow(unsafe_code)]
                // SAFETY: the CPU has just said it has AVX2.
                let wide = unsafe { masks_avx2(block) };
                prop_assert_eq!(wide, masks_bytewise(block));
            }
        }

        /// Whichever masks a CPU uses, the counts are those of the masks
        /// made a byte at a time, escapes and strings across blocks
        /// included.
        #[test]
        fn counts_do_not_depend_on_the_masks(bytes in proptest::collection::vec(
            proptest::sample::select(b"[]{},:\\\" a1".to_vec()),
            0..300))
        {
            prop_assert_eq!(count(&bytes), count_with(&bytes, masks_bytewise, prefix_xor));
        }
    }
}
