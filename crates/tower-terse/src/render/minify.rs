//! The same JSON minified: the third candidate of every token-saving choice
//! (beside the JSON as written and TOON).
//!
//! Most services write JSON pretty-printed (`indent=2`,
//! `JSON.stringify(v, null, 2)`) or with Python's `", "` separators, and on
//! nested records TOON costs more tokens than that JSON minified, though
//! fewer than it as written. Minified here is a byte pass over the text the
//! handler wrote that drops the whitespace RFC 8259 §2 calls insignificant
//! (space, tab, line feed, carriage return outside strings) and copies every
//! other byte: keys, key order, string escapes and numbers stay exactly as
//! written (`1.0`, `1e2`, `-0`, `12345678901234567890`), which a
//! re-serialization through a parsed value would not promise.

/// Whether `byte` is whitespace JSON allows between its tokens.
const fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bit `b` set for each blank byte `b` (all below 64).
const BLANKS: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\n' | 1 << b'\r';

/// Bytes per block: one bit of a `u64` mask each.
const BLOCK: usize = 64;

/// `json` without its insignificant whitespace, or `None` when it has none
/// (the text is then its own minified form, and nothing is allocated).
///
/// The text need not be JSON: on text that is not, it still only drops
/// blanks outside what it reads as strings, as the byte-by-byte pass does.
pub(crate) fn minify(json: &str) -> Option<String> {
    minify_with::<true>(json)
}

/// [`minify`] of text a JSON parser has read whole: outside its strings it
/// has no byte below `!` but the four blanks (a parser skips those and no
/// other), so the bytes dropped need no second look.
pub(crate) fn minify_parsed(json: &str) -> Option<String> {
    minify_with::<false>(json)
}

/// [`minify`], the bytes dropped checked to be blanks when `CHECKED`.
///
/// A block of 64 bytes at a time: its quotes, backslashes and bytes below
/// `!` become bit masks (16 bytes per SSE2 compare on x86-64), the
/// bytes inside strings are the prefix XOR of the quotes that open or close
/// one, and what is left of the low bytes outside strings are the blanks to
/// drop. Most upstreams write minified JSON, and then that is all it costs;
/// otherwise the runs between blanks are copied whole, those of up to 16
/// bytes as one fixed-size copy.
///
/// On CPUs with AVX2 the whole pass is compiled for it ([`minify_avx2`]),
/// its masks 32 bytes per compare.
fn minify_with<const CHECKED: bool>(json: &str) -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2_clmul() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX2, POPCNT and PCLMULQDQ, as it has just
        // said.
        return unsafe { minify_avx2::<CHECKED>(json) };
    }
    minify_blocks::<CHECKED>(json, masks, prefix_xor, false)
}

/// [`minify_with`] compiled for AVX2, its masks 32 bytes per compare, the
/// bytes inside strings one carry-less multiply a block
/// ([`prefix_xor_clmul`](super::shape_scan::prefix_xor_clmul)) and a
/// parsed text's blocks written by byte shuffles.
///
/// # Safety
///
/// The CPU must support AVX2, POPCNT and PCLMULQDQ
/// ([`crate::cpu::avx2_clmul`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,pclmulqdq")]
#[allow(unsafe_code)]
unsafe fn minify_avx2<const CHECKED: bool>(json: &str) -> Option<String> {
    minify_blocks::<CHECKED>(
        json,
        |block| masks_avx2(block),
        |bits| super::shape_scan::prefix_xor_clmul(bits),
        true,
    )
}

/// [`minify_with`] with `masks` as the way a block becomes masks and
/// `prefix_xor` as the way its quotes become the bytes inside strings; `wide`
/// when the CPU has AVX2 (and so SSSE3) and POPCNT, so that a parsed
/// text's blocks are written by byte shuffles. Always inlined, so that it
/// is compiled with the features of its caller.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn minify_blocks<const CHECKED: bool>(
    json: &str,
    masks: impl Fn(&[u8; BLOCK]) -> Masks,
    prefix_xor: impl Fn(u64) -> u64,
    wide: bool,
) -> Option<String> {
    let bytes = json.as_bytes();
    let mut state = State::default();
    let mut out: Option<Output> = None;
    #[cfg(target_arch = "x86_64")]
    let shuffles = !CHECKED && wide;
    let mut at = 0;
    while at < bytes.len() {
        let mut padded = [0; BLOCK];
        let (block, valid) = match bytes.get(at..at + BLOCK) {
            Some(block) => (block.try_into().unwrap_or(&padded), u64::MAX),
            None => {
                // The last bytes, padded with zeros that no mask keeps.
                let tail = &bytes[at..];
                padded[..tail.len()].copy_from_slice(tail);
                (&padded, u64::MAX >> (BLOCK - tail.len()))
            }
        };
        let mut drop = state.drop(&masks(block), valid, &prefix_xor) & valid;
        if drop != 0 {
            let out = out.get_or_insert_with(|| Output::new(bytes.len()));
            #[cfg(target_arch = "x86_64")]
            if !CHECKED && shuffles {
                // Every byte dropped is a blank (the text was parsed): the
                // block is written without them in one go.
                #[allow(unsafe_code)]
                // SAFETY: the CPU has AVX2 (and so SSSE3) and POPCNT, as it
                // has said.
                unsafe {
                    out.compact_block(bytes, at, block, !drop & valid);
                }
                at += BLOCK;
                continue;
            }
            while drop != 0 {
                let start = drop.trailing_zeros() as usize;
                let end = start + (!(drop >> start)).trailing_zeros() as usize;
                drop = if end >= BLOCK {
                    0
                } else {
                    drop & (u64::MAX << end)
                };
                // A byte below `!` outside a string that is not a blank:
                // only in text that is not JSON, which the byte-by-byte
                // pass reads.
                if CHECKED
                    && !bytes[at + start..at + end]
                        .iter()
                        .all(|&byte| BLANKS >> (byte & 63) & 1 == 1)
                {
                    return minify_bytewise(json);
                }
                out.skip(bytes, at + start, at + end);
            }
        }
        at += BLOCK;
    }
    let mut out = out?;
    out.finish(bytes);
    #[allow(unsafe_code)]
    // SAFETY: the bytes are those of `json`, a `&str`, in order, less some
    // of its bytes below `!` (the masks' `low`, exact on every path, and
    // only where `valid`): ASCII bytes, each a character of its own, so
    // what is left is the same UTF-8 without those characters.
    Some(unsafe { String::from_utf8_unchecked(out.buf) })
}

/// Where the scan stands between blocks.
#[derive(Default)]
struct State {
    /// The next byte is inside a string (after its opening quote).
    in_string: bool,
    /// The next byte is inside a string and escaped: text, whatever it is.
    escaped: bool,
}

impl State {
    /// The blanks outside strings among the bytes of a block with these
    /// `masks` (only the `valid` ones), the bytes inside strings taken by
    /// `prefix_xor`; the state moves past the block. Always inlined, so
    /// that it is compiled with the features of the pass that calls it.
    #[inline(always)]
    fn drop(&mut self, masks: &Masks, valid: u64, prefix_xor: impl Fn(u64) -> u64) -> u64 {
        let quote = masks.quote & valid;
        let backslash = masks.backslash & valid;
        let toggles = if backslash == 0 && !self.escaped {
            // Every quote opens or closes a string.
            quote
        } else {
            self.string_quotes(quote, backslash)
        };
        // Bit i set: byte i is inside a string (an opening quote counts as
        // inside, a closing one as outside; a blank is neither).
        let mut inside = prefix_xor(toggles);
        if self.in_string {
            inside = !inside;
        }
        self.in_string = inside >> 63 == 1;
        masks.low & !inside
    }

    /// The quotes of a block with backslashes that open or close a string,
    /// read in order as the rules say: a backslash inside a string makes
    /// the byte after it text (which may be the next block's first); one
    /// outside a string is a byte like any other.
    fn string_quotes(&mut self, quote: u64, backslash: u64) -> u64 {
        let mut inside = self.in_string;
        let mut specials = quote | backslash;
        if self.escaped {
            specials &= !1;
            self.escaped = false;
        }
        let mut toggles = 0;
        while specials != 0 {
            let bit = specials & specials.wrapping_neg();
            specials &= specials - 1;
            if quote & bit != 0 {
                toggles |= bit;
                inside = !inside;
            } else if inside {
                match bit << 1 {
                    0 => self.escaped = true,
                    next => specials &= !next,
                }
            }
        }
        toggles
    }
}

/// The minified text being written.
struct Output {
    /// The bytes kept so far. Its capacity is the text's own size and
    /// `BLOCK + 8` bytes more, reserved once: the output never grows past
    /// the text, a short run is copied as 16 bytes whatever its length (cut
    /// back to it at once: the next run goes where it ends), and a block is
    /// stored 8 bytes at a time past the bytes it keeps.
    buf: Vec<u8>,
    /// The start of the bytes of the text not yet copied.
    kept: usize,
}

impl Output {
    fn new(size: usize) -> Self {
        Output {
            // The text, and what a block's stores may write past it.
            buf: Vec::with_capacity(size + BLOCK + 8),
            kept: 0,
        }
    }

    /// Copies the text up to `start` and skips it to `end`.
    fn skip(&mut self, bytes: &[u8], start: usize, end: usize) {
        let len = self.buf.len() + (start - self.kept);
        match bytes.get(self.kept..self.kept + 16) {
            Some(chunk) if start - self.kept <= 16 => {
                let chunk: &[u8; 16] = chunk.try_into().unwrap_or(&[0; 16]);
                self.buf.extend_from_slice(chunk);
                self.buf.truncate(len);
            }
            _ => self.buf.extend_from_slice(&bytes[self.kept..start]),
        }
        self.kept = end;
    }

    /// Copies the text up to the block at `at`, then the bytes of `keep` of
    /// `block` (the text's bytes from `at`, padded when they are the last
    /// and fewer than a block): each half of each 16 bytes moved to the
    /// front of a register by one byte shuffle (its order read from
    /// [`COMPACT`]) and stored as 8 bytes where the bytes kept so far end,
    /// the bytes past them overwritten by the next store or left past the
    /// text's end. Spaced JSON has a blank every few bytes, each a run of
    /// its own to skip, where this costs the same whatever the blanks.
    ///
    /// # Safety
    ///
    /// The CPU must support SSSE3 (which every AVX2 CPU has) and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3,popcnt")]
    fn compact_block(&mut self, bytes: &[u8], at: usize, block: &[u8; BLOCK], keep: u64) {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi8, _mm_loadl_epi64, _mm_loadu_si128, _mm_set1_epi8,
            _mm_shuffle_epi8, _mm_storel_epi64,
        };
        if self.kept < at {
            self.buf.extend_from_slice(&bytes[self.kept..at]);
        }
        // Room for the block and the 8 bytes the last store may write past
        // what it keeps (reserved up front: see `Output::new`).
        self.buf.reserve(BLOCK + 8);
        let start = self.buf.len();
        let room = self.buf.spare_capacity_mut();
        if room.len() < BLOCK + 8 {
            return; // never: just reserved
        }
        let to = room.as_mut_ptr().cast::<u8>();
        let mut written = 0;
        for (i, sixteen) in block.chunks_exact(16).enumerate() {
            for (half, shift) in [(0u8, 16 * i), (8, 16 * i + 8)] {
                let kept = (keep >> shift) as u8;
                #[allow(unsafe_code)]
                // SAFETY: `sixteen` is 16 readable bytes and each order 8;
                // `written` is at most 56 here, so the 8 bytes stored at
                // `to + written` stay in the `BLOCK + 8` bytes of `room`.
                unsafe {
                    let lanes = _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>());
                    let order = _mm_add_epi8(
                        _mm_loadl_epi64(COMPACT[usize::from(kept)].as_ptr().cast::<__m128i>()),
                        // The high half's positions: 8 more (0x80, no byte,
                        // stays above 0x7f).
                        _mm_set1_epi8(half as i8),
                    );
                    _mm_storel_epi64(
                        to.add(written).cast::<__m128i>(),
                        _mm_shuffle_epi8(lanes, order),
                    );
                }
                written += kept.count_ones() as usize;
            }
        }
        #[allow(unsafe_code)]
        // SAFETY: the `written` bytes after the text were stored above
        // (each store's first bytes are the ones it keeps), and they are
        // within the capacity.
        unsafe {
            self.buf.set_len(start + written);
        }
        self.kept = (at + BLOCK).min(bytes.len());
    }

    /// Copies the rest of the text.
    fn finish(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(&bytes[self.kept..]);
    }
}

/// For each mask of eight bits, the positions of its set bits in order,
/// then 0x80 (which a byte shuffle reads as a zero byte): the shuffle that
/// moves the bytes a mask keeps to the front of a word.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static COMPACT: [[u8; 8]; 256] = {
    let mut table = [[0x80; 8]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut next = 0;
        let mut bit = 0;
        while bit < 8 {
            if mask >> bit & 1 == 1 {
                table[mask][next] = bit as u8;
                next += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

/// Bit i of each mask is set when byte i of a block is that byte.
#[derive(Debug, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// A byte below `!`: the blanks, and controls that JSON has nowhere.
    low: u64,
}

/// `byte` in every byte of a word.
const fn splat(byte: u8) -> u64 {
    0x0101_0101_0101_0101 * byte as u64
}

const LOW7: u64 = splat(0x7f);
const HIGH: u64 = splat(0x80);

/// The high bit of every byte of `word` equal to `byte`, and of no other
/// (exact, unlike the borrow trick, which may flag bytes above a match).
const fn equal(word: u64, byte: u8) -> u64 {
    let word = word ^ splat(byte);
    !(((word & LOW7) + LOW7) | word) & HIGH
}

/// The high bit of every byte of `word` below `bound` (at most 0x80).
const fn below(word: u64, bound: u8) -> u64 {
    !(((word & LOW7) + splat(0x80 - bound)) | word) & HIGH
}

/// The high bits of a word's bytes as eight bits, byte i's as bit i.
const fn gather(flags: u64) -> u64 {
    ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// [`Masks`] of a block: 16 bytes per compare on x86-64 (SSE2 is part of
/// its baseline), a word at a time elsewhere.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks(block: &[u8; BLOCK]) -> Masks {
    #[allow(unsafe_code)]
    // SAFETY: SSE2 is part of the x86-64 baseline every x86-64 CPU has; the
    // function reads nothing but `block`, in safe code.
    unsafe {
        masks_sse2(block)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks(block: &[u8; BLOCK]) -> Masks {
    masks_by_word(block)
}

/// [`Masks`] of a block, 16 bytes per compare: a byte below `!` is one
/// the unsigned minimum with 0x20 leaves as it is. A quarter of the word
/// version's instructions, which spaced JSON (a blank after every `,` and
/// `:`) pays on every block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks_sse2(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // The mask holds 16 bits, one per byte.
    let bits = |flags: __m128i| u64::from(_mm_movemask_epi8(flags) as u16);
    let mut masks = Masks::default();
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        #[allow(unsafe_code)]
        // SAFETY: `chunk` is 16 readable bytes, the width of the unaligned
        // load.
        let lanes = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let shift = 16 * i;
        masks.quote |= bits(_mm_cmpeq_epi8(lanes, _mm_set1_epi8(b'"' as i8))) << shift;
        masks.backslash |= bits(_mm_cmpeq_epi8(lanes, _mm_set1_epi8(b'\\' as i8))) << shift;
        let low = _mm_cmpeq_epi8(_mm_min_epu8(lanes, _mm_set1_epi8(b' ' as i8)), lanes);
        masks.low |= bits(low) << shift;
    }
    masks
}

/// [`Masks`] of a block, 32 bytes per compare, each half loaded straight
/// into a register; a byte below `!` as in [`masks_sse2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn masks_avx2(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    let (low, high) = crate::scan::halves_avx2(block);
    // The masks of a compare of each half, as 64 bits.
    let bits = |low: __m256i, high: __m256i| -> u64 {
        u64::from(_mm256_movemask_epi8(low) as u32)
            | u64::from(_mm256_movemask_epi8(high) as u32) << 32
    };
    let eq = |lanes: __m256i, byte: u8| _mm256_cmpeq_epi8(lanes, _mm256_set1_epi8(byte as i8));
    let below_bang = |lanes: __m256i| {
        _mm256_cmpeq_epi8(_mm256_min_epu8(lanes, _mm256_set1_epi8(b' ' as i8)), lanes)
    };
    Masks {
        quote: bits(eq(low, b'"'), eq(high, b'"')),
        backslash: bits(eq(low, b'\\'), eq(high, b'\\')),
        low: bits(below_bang(low), below_bang(high)),
    }
}

/// [`Masks`] of a block, a word at a time: what other targets use, and
/// what the vector version is held to.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks_by_word(block: &[u8; BLOCK]) -> Masks {
    let mut masks = Masks::default();
    let mut any_backslash = 0;
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let shift = 8 * i;
        masks.quote |= gather(equal(word, b'"')) << shift;
        masks.low |= gather(below(word, b'!')) << shift;
        any_backslash |= equal(word, b'\\');
    }
    if any_backslash != 0 {
        for (i, chunk) in block.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            masks.backslash |= gather(equal(word, b'\\')) << (8 * i);
        }
    }
    masks
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

/// [`minify`] a byte at a time, as the rules say it: what text that is not
/// JSON is read with, and what the block pass is held to.
fn minify_bytewise(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    // The start of the bytes not yet copied.
    let mut kept = 0;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' {
            at = string_end(bytes, at + 1);
        } else if is_blank(byte) {
            let run = at;
            while bytes.get(at).copied().is_some_and(is_blank) {
                at += 1;
            }
            // The allocation is the text's own size, known and already
            // held: the output never grows past it.
            let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
            out.extend_from_slice(&bytes[kept..run]);
            kept = at;
        } else {
            at += 1;
        }
    }
    let mut out = out?;
    out.extend_from_slice(&bytes[kept..]);
    String::from_utf8(out).ok()
}

/// The index just past the string whose text starts at `at` (after its
/// opening quote): past its closing quote, or the end of an unterminated
/// string.
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => return at + 1,
            // An escape takes the byte after it, whatever it is.
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn only_whitespace_between_tokens_goes() {
        let pretty = "{\n  \"a b\": [1, 2],\r\n\t\"c\" : \"x \\\" y\\\\\" ,\n  \"d\": {}\n}\n";
        assert_eq!(
            minify(pretty).as_deref(),
            Some(r#"{"a b":[1,2],"c":"x \" y\\","d":{}}"#)
        );
        // Nothing to drop: nothing allocated.
        assert_eq!(minify(r#"{"a":"x y","b":[1,2]}"#), None);
        assert_eq!(minify(""), None);
        assert_eq!(minify(" ").as_deref(), Some(""));
    }

    #[test]
    fn numbers_and_escapes_are_kept_digit_for_digit() {
        let pretty = "[\n  1.0,\n  1e2,\n  -0,\n  12345678901234567890,\n  1.50E+002,\n  \
                      0.1000000000000000055511151231257827,\n  \"\\u00e9\\/\\n\",\n  \"é\"\n]";
        let minified = minify(pretty).expect("whitespace to drop");
        assert_eq!(
            minified,
            "[1.0,1e2,-0,12345678901234567890,1.50E+002,\
             0.1000000000000000055511151231257827,\"\\u00e9\\/\\n\",\"é\"]"
        );
        // A re-serialization would have written these otherwise.
        let value: Value = serde_json::from_str(pretty).expect("JSON");
        assert_ne!(value.to_string(), minified);
    }

    #[test]
    fn strings_keep_their_blanks_and_quotes() {
        let json = "[ \"  \\\\\" , \"\\\\\\\"  \" ]";
        assert_eq!(minify(json).as_deref(), Some(r#"["  \\","\\\"  "]"#));
        // Unterminated: its text is kept.
        assert_eq!(minify("[ \"a  b").as_deref(), Some("[\"a  b"));
    }

    proptest::proptest! {
        #[test]
        fn minified_json_is_the_same_value(value in json_value(), indent in 0usize..3) {
            use serde::Serialize;
            let written = match indent {
                0 => value.to_string(),
                n => {
                    let indent = b"\t  ".get(..n).unwrap_or(b" ");
                    let mut out = Vec::new();
                    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent);
                    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
                    value.serialize(&mut serializer).expect("serialize");
                    String::from_utf8(out).expect("UTF-8")
                }
            };
            let minified = minify(&written);
            let text = minified.as_deref().unwrap_or(&written);
            // serde_json writes no whitespace of its own when compact.
            proptest::prop_assert_eq!(text, value.to_string());
            if indent == 0 {
                proptest::prop_assert!(minified.is_none());
            }
        }
    }

    #[test]
    fn gather_takes_each_high_bit_to_its_byte() {
        for bits in 0u64..256 {
            let flags = (0..8).fold(0, |flags, i| flags | ((bits >> i) & 1) << (8 * i + 7));
            assert_eq!(gather(flags), bits);
        }
    }

    proptest::proptest! {
        #[test]
        fn vector_masks_are_the_word_masks(bytes in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(b"  \t\n\r\x00\x1f!\"\\\\a\x7f\x80\xa0\xff".to_vec()),
                proptest::prelude::any::<u8>()
            ],
            BLOCK..=BLOCK))
        {
            let block: &[u8; BLOCK] = bytes.as_slice().try_into().unwrap();
            proptest::prop_assert_eq!(masks(block), masks_by_word(block));
            #[cfg(target_arch = "x86_64")]
            if crate::cpu::avx2() {
                #[allow(unsafe_code)]
                // SAFETY: the CPU has just said it has AVX2.
                let wide = unsafe { masks_avx2(block) };
                proptest::prop_assert_eq!(wide, masks_by_word(block));
            }
        }
    }

    #[test]
    fn blocks_with_and_without_blanks_in_any_order() {
        // Blocks without a blank (left for a later copy), then blocks with
        // one every few bytes (written a block at a time), ending at every
        // offset of a last, partial block.
        for plain in [0, 1, 63, 64, 65, 130] {
            for spaced in 0..70 {
                let items: Vec<String> = (0..spaced).map(|i| format!("\"k{i}\": {i}")).collect();
                let text = format!("{{\"p\":\"{}\",{}}}", "x".repeat(plain), items.join(", "));
                assert_eq!(minify_parsed(&text), minify_bytewise(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn escapes_and_strings_across_blocks() {
        // A backslash as the last byte of a block escapes the next block's
        // first; strings and blank runs that cross a block's end.
        for pad in 0..70 {
            let text = format!(
                "[ {:pad$}\"{}\\\" \",  \"{}\" ,\n\t{}  ]",
                "",
                "a".repeat(pad),
                " ".repeat(pad),
                "1".repeat(pad % 7 + 1)
            );
            assert_eq!(minify(&text), minify_bytewise(&text), "{text:?}");
            assert_eq!(minify_parsed(&text), minify_bytewise(&text), "{text:?}");
        }
    }

    proptest::proptest! {
        /// The block pass writes what the byte-by-byte pass writes, on
        /// JSON pretty-printed in several styles.
        #[test]
        fn the_block_pass_is_the_bytewise_pass(value in json_value(), style in 0usize..STYLES.len()) {
            let mut written = String::new();
            write_styled(&value, &STYLES[style], 0, &mut written);
            let bytewise = minify_bytewise(&written);
            proptest::prop_assert_eq!(minify(&written), bytewise.clone());
            proptest::prop_assert_eq!(minify_parsed(&written), bytewise);
        }

        /// And on any text, JSON or not: blanks, controls, quotes and
        /// backslashes anywhere.
        #[test]
        fn the_block_pass_is_the_bytewise_pass_on_any_text(bytes in proptest::collection::vec(
            proptest::sample::select(b"  \t\n\r\x00\x01\x0b\x1f!\"\\[]{},:a1".to_vec()),
            0..300))
        {
            let text = String::from_utf8(bytes).expect("ASCII");
            proptest::prop_assert_eq!(minify(&text), minify_bytewise(&text));
        }
    }

    /// How JSON is written: the indent per level, the line break, and what
    /// follows a key and separates values.
    struct Style {
        indent: &'static str,
        newline: &'static str,
        colon: &'static str,
        comma: &'static str,
    }

    const STYLES: [Style; 6] = [
        // Minified.
        Style {
            indent: "",
            newline: "",
            colon: ":",
            comma: ",",
        },
        // Python's default separators.
        Style {
            indent: "",
            newline: "",
            colon: ": ",
            comma: ", ",
        },
        // indent=2.
        Style {
            indent: "  ",
            newline: "\n",
            colon: ": ",
            comma: ",",
        },
        // Tabs and CRLF.
        Style {
            indent: "\t",
            newline: "\r\n",
            colon: ": ",
            comma: ",",
        },
        // Four spaces, spaced both sides.
        Style {
            indent: "    ",
            newline: "\n",
            colon: " : ",
            comma: " ,",
        },
        // Odd but legal.
        Style {
            indent: " \t",
            newline: " \r\n ",
            colon: "\t:\n",
            comma: "\r,\t",
        },
    ];

    /// `value` written in `style` (recursive: test values are shallow).
    fn write_styled(value: &Value, style: &Style, depth: usize, out: &mut String) {
        let line = |depth: usize, out: &mut String| {
            out.push_str(style.newline);
            for _ in 0..depth {
                out.push_str(style.indent);
            }
        };
        match value {
            Value::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(style.comma);
                    }
                    line(depth + 1, out);
                    write_styled(item, style, depth + 1, out);
                }
                line(depth, out);
                out.push(']');
            }
            Value::Object(entries) if !entries.is_empty() => {
                out.push('{');
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(style.comma);
                    }
                    line(depth + 1, out);
                    out.push_str(&Value::from(key.as_str()).to_string());
                    out.push_str(style.colon);
                    write_styled(item, style, depth + 1, out);
                }
                line(depth, out);
                out.push('}');
            }
            leaf => out.push_str(&leaf.to_string()),
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z \t\n,:\"\\\\é\u{1}]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a b]{1,3}", inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }
}
