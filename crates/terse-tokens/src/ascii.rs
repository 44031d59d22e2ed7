//! Exact counts of ASCII text: the o200k_base pre-tokenizer written out for
//! ASCII bytes, and a per-thread memo of each piece's tokens.
//!
//! API JSON and its TOON are mostly ASCII, and they repeat their pieces:
//! keys, `","`, `":"`, indentation, a few dozen words. `tiktoken` finds
//! each piece with its own scanner and looks it up in its vocabulary (a
//! table of megabytes) or merges it, about a hundred instructions a token;
//! here the text is taken a segment at a time: a run of digits (three
//! digits a token), or the bytes up to the end of a word (`","status`,
//! `"\n    name"`), which a small memo of the segments seen before, on
//! this thread, in this or an earlier text, answers whole. Where segments
//! start is found 64 bytes at a time as bits (`bounds`), and the loop goes
//! from one span to the next (the segments that fit in 32 bytes, a word and
//! the number after it) with a window of those bits, `trailing_zeros` and
//! `leading_zeros`, never visiting the starts inside a span; the loop is
//! compiled twice, for the baseline and for CPUs with AVX2 and BMI2 (the
//! same code, fewer instructions); a span of up to 32
//! bytes is four words of the text, masked to its length by a table, one
//! multiplication to hash and a compare of 32 bytes. A segment not in the memo is
//! split into pieces, found eight bytes at a time and answered from a memo
//! of pieces; a piece not in it is counted alone: by `tiktoken`, or by the
//! caller's counter for long pieces when it is longer than [`LONG_PIECE`].
//! The memo is a fixed 88 KiB per thread that counts.
//!
//! Finding a piece: the byte classes of eight bytes at once are a few
//! additions and masks over one `u64` (each byte below 0x80, so no carry
//! crosses a byte), and a run ends at the first byte whose class bit is
//! clear (`trailing_zeros`). The same word, masked to the piece's length,
//! is the memo key of a piece of up to eight bytes (most of them), hashed
//! with one multiplication. Work is linear in the text: each byte is read
//! by a constant number of word loads.
//!
//! Why the sum is the exact count: BPE runs on each piece alone, so a
//! text's tokens are the sum of its pieces' tokens, and a piece counted
//! alone is one piece again (the rules below take the same bytes from its
//! start; whitespace pieces end at the end of the text, where `\s+(?!\S)`
//! takes them whole). The rules are those of the o200k_base pattern, in its
//! order, restricted to ASCII, where each class is a set of bytes:
//!
//! 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
//! 2. `[^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*(?i:…)?`
//! 3. `\p{N}{1,3}`
//! 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
//! 5. `\s*[\r\n]+`
//! 6. `\s+(?!\S)`
//! 7. `\s+`
//!
//! The unit tests hold the result to `tiktoken` counting the text whole on
//! random ASCII made of every kind of byte, and the differential test to
//! `bpe-openai`.

use std::cell::RefCell;

use super::bounds::{BLOCK, Classes};

/// Pieces longer than this are counted by the caller's counter for long
/// pieces: `tiktoken` merges a long piece in time that grows faster than
/// its length.
pub(super) const LONG_PIECE: usize = 64;
/// Longest piece the memo keeps; longer ones (rare in API text) are
/// counted each time.
const KEY_MAX: usize = 24;
/// Longest span of the segments' table: a TOON line's key and value with
/// the indentation of the next (`\n    status: refunded`), a JSON value
/// with the next key (`":"Maple Delta","address`), one lookup where there
/// were two with sixteen. A segment longer than this (rare in API text) is
/// counted each time.
const SEGMENT_MAX: usize = 32;
/// Sets of the memo of spans of up to [`SEGMENT_MAX`] bytes: a document
/// has a few hundred distinct spans at most that repeat (keys with the
/// punctuation around them, indentation, words); the rest (ids, numbers)
/// are counted once anyway.
const SEGMENT_SETS: usize = 256;
/// Slots of a set of segments: four, since a hundred spans in 256 sets
/// put three in one set about as often as not (and with two ways, the
/// three would replace each other on every document).
const SEGMENT_WAYS: usize = 4;
/// Slots of the memo of pieces of up to eight bytes, for the segments not
/// in the memo.
const SHORT_SLOTS: usize = 2048;
/// Slots of the memo of pieces of 9 to [`KEY_MAX`] bytes: fewer, longer
/// words (`" description"`, `"\":\""`-style runs).
const LONG_SLOTS: usize = 512;

/// A segment of up to [`SEGMENT_MAX`] bytes and its tokens.
#[derive(Clone, Copy)]
struct Segment {
    /// The segment as [`segment_key`] packs it; zeros for an empty slot
    /// (no key is).
    key: [u64; 4],
    tokens: u64,
}

/// A piece of up to eight bytes and its tokens.
#[derive(Clone, Copy)]
struct Short {
    /// The piece as [`short_key`] packs it; 0 for an empty slot (no key is
    /// 0).
    key: u64,
    tokens: u64,
}

/// A piece of 9 to [`KEY_MAX`] bytes and its tokens.
#[derive(Clone, Copy)]
struct Long {
    /// The piece's length; 0 for an empty slot.
    tag: u8,
    tokens: u8,
    /// The piece's bytes as [`long_key`] packs them.
    key: [u64; 3],
}

/// The memo of one thread: sets of slots in each table (four for
/// segments, two for pieces); a new text takes the first slot of its set
/// and moves the others one slot on, the last one out, so its size never
/// depends on the input.
struct Memo {
    segments: [[Segment; SEGMENT_WAYS]; SEGMENT_SETS],
    short: [Short; SHORT_SLOTS],
    long: [Long; LONG_SLOTS],
}

// The size the docs give: 1 024 slots of 40 bytes, 2 048 of 16 and 512 of
// 32, 88 KiB.
const _: () = assert!(std::mem::size_of::<Memo>() == 88 << 10);

thread_local! {
    static MEMO: RefCell<Box<Memo>> = RefCell::new(Memo::empty());
}

/// The class of an ASCII byte as the pattern sees it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    /// `\r` and `\n`.
    Break,
    /// The rest of `\s`: space, tab, vertical tab, form feed.
    Space,
    /// Neither: punctuation and control bytes.
    Punct,
}

const fn class(b: u8) -> Class {
    match b {
        b'A'..=b'Z' => Class::Upper,
        b'a'..=b'z' => Class::Lower,
        b'0'..=b'9' => Class::Digit,
        b'\r' | b'\n' => Class::Break,
        b' ' | b'\t' | 0x0b | 0x0c => Class::Space,
        _ => Class::Punct,
    }
}

/// [`class`] of every byte below 0x80, looked up rather than computed.
static CLASSES: [Class; 128] = {
    let mut table = [Class::Punct; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = class(b as u8);
        b += 1;
    }
    table
};

/// Bit 7 of every byte of a word.
const HIGH: u64 = 0x8080_8080_8080_8080;
/// Bit 0 of every byte of a word.
const LOW: u64 = 0x0101_0101_0101_0101;
/// The byte that stands for "past the end" in a word: no text byte is
/// 0x80 or above, and no class below takes it.
const PAST: u8 = 0x80;

/// Bytes `at..at + 8` of `bytes` as a little-endian word, [`PAST`] where
/// the text has ended.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        Some(chunk) => u64::from_le_bytes(*chunk),
        None => word_past_end(bytes, at),
    }
}

/// [`word_at`] for the last bytes of the text.
#[cold]
#[inline(never)]
fn word_past_end(bytes: &[u8], at: usize) -> u64 {
    let mut word = [PAST; 8];
    let rest = bytes.get(at..).unwrap_or_default();
    let rest = &rest[..rest.len().min(8)];
    word[..rest.len()].copy_from_slice(rest);
    u64::from_le_bytes(word)
}

/// Bit 7 set in each byte of `w` that is at least `c` (`1 <= c <= 0x80`),
/// [`PAST`] included. Every byte must be at most `c + 0x7f`, so that no sum
/// carries into the next byte: ASCII and [`PAST`] are, for any `c`, and so
/// is [`PAST`] with bit 5 set (0xa0) for the small letters' bounds.
#[inline(always)]
const fn at_least(w: u64, c: u8) -> u64 {
    w.wrapping_add(LOW * (0x80 - c) as u64)
}

/// Bit 7 set in each byte of `w` in `lo..=hi` (`hi < 0x7f`).
#[inline(always)]
const fn within(w: u64, lo: u8, hi: u8) -> u64 {
    at_least(w, lo) & !at_least(w, hi + 1) & !w & HIGH
}

#[inline(always)]
const fn upper(w: u64) -> u64 {
    within(w, b'A', b'Z')
}

#[inline(always)]
const fn lower(w: u64) -> u64 {
    within(w, b'a', b'z')
}

#[inline(always)]
const fn digit(w: u64) -> u64 {
    within(w, b'0', b'9')
}

/// `\r` and `\n`.
#[inline(always)]
const fn breaks(w: u64) -> u64 {
    within(w, b'\n', b'\n') | within(w, b'\r', b'\r')
}

/// `\s`: tab, line feed, vertical tab, form feed, carriage return, space.
#[inline(always)]
const fn space(w: u64) -> u64 {
    within(w, b'\t', b'\r') | within(w, b' ', b' ')
}

/// Neither a letter, a digit nor whitespace.
#[inline(always)]
const fn punct(w: u64) -> u64 {
    !(upper(w) | lower(w) | digit(w) | space(w)) & !w & HIGH
}

/// Rule 4's tail: line breaks and slashes.
#[inline(always)]
const fn tail(w: u64) -> u64 {
    breaks(w) | within(w, b'/', b'/')
}

/// The low `n` bytes of a word (`n <= 8`).
#[inline(always)]
const fn below(n: usize) -> u64 {
    if n >= 8 { u64::MAX } else { (1 << (8 * n)) - 1 }
}

/// Where the run of bytes that `class` marks ends, from `at`, where `w` is
/// [`word_at`] `at`.
#[inline(always)]
fn run(bytes: &[u8], mut at: usize, mut w: u64, class: fn(u64) -> u64) -> usize {
    loop {
        let stop = !class(w) & HIGH;
        if stop != 0 {
            return at + (stop.trailing_zeros() / 8) as usize;
        }
        at += 8;
        w = word_at(bytes, at);
    }
}

/// The end of the contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`,
/// `'d`, any case) at `i`, or `i`.
#[inline(always)]
fn contraction(bytes: &[u8], i: usize) -> usize {
    if bytes.get(i) != Some(&b'\'') {
        return i;
    }
    contraction_at(bytes, i)
}

/// [`contraction`] where `bytes[i]` is an apostrophe.
#[inline(never)]
fn contraction_at(bytes: &[u8], i: usize) -> usize {
    let lower = |k: usize| bytes.get(i + k).map(u8::to_ascii_lowercase);
    match (lower(1), lower(2)) {
        (Some(b'r'), Some(b'e')) | (Some(b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => i + 3,
        (Some(b's' | b't' | b'm' | b'd'), _) => i + 2,
        _ => i,
    }
}

/// Rules 1 and 2 from the first letter at `at`, where `w` is [`word_at`]
/// `at`: capitals, then small letters (rule 1); capitals alone (rule 2);
/// then a contraction.
#[inline(always)]
fn letters(bytes: &[u8], at: usize, w: u64) -> usize {
    // Most words end within the word: the capitals' end, then the first
    // byte after it that is not a small letter.
    let capitals = (!upper(w) & HIGH).trailing_zeros();
    let stop = !lower(w) & HIGH & !below(capitals as usize / 8);
    if capitals < 64 && stop != 0 {
        return contraction(bytes, at + (stop.trailing_zeros() / 8) as usize);
    }
    letters_across(bytes, at, w)
}

/// [`letters`] for a run that reaches past its first word.
#[inline(never)]
fn letters_across(bytes: &[u8], at: usize, w: u64) -> usize {
    let small = run(bytes, at, w, upper);
    contraction(bytes, run(bytes, small, word_at(bytes, small), lower))
}

/// Rule 4 from the first punctuation byte at `at`: punctuation, then line
/// breaks and slashes.
#[inline(always)]
fn punctuation(bytes: &[u8], at: usize, w: u64) -> usize {
    let end = run(bytes, at, w, punct);
    match bytes.get(end) {
        Some(b'\r' | b'\n' | b'/') => run(bytes, end, word_at(bytes, end), tail),
        _ => end,
    }
}

/// Rules 5 to 7 from the whitespace at `i`, where `w` is [`word_at`] `i`.
#[inline(always)]
fn whitespace(bytes: &[u8], i: usize, w: u64) -> usize {
    let end = run(bytes, i, w, space);
    // The run's last line break, a word at a time.
    let mut last = None;
    let (mut at, mut w) = (i, w);
    while at < end {
        let found = breaks(w) & below(end - at);
        if found != 0 {
            last = Some(at + (63 - found.leading_zeros() as usize) / 8);
        }
        at += 8;
        w = word_at(bytes, at);
    }
    match last {
        // Rule 5: up to the run's last line break.
        Some(last) => last + 1,
        // Rule 6: all but the last byte before a byte that is not
        // whitespace; rule 7: that last byte alone.
        None if end < bytes.len() && end - i >= 2 => end - 1,
        None => end,
    }
}

/// The end of the piece that starts at `i < bytes.len()`, in ASCII text,
/// where `w` is [`word_at`] `i`.
#[inline(always)]
fn piece_end(bytes: &[u8], i: usize, w: u64) -> usize {
    let first = CLASSES[usize::from(w as u8 & 0x7f)];
    let second = (w >> 8) as u8;
    // Rules 1 and 2: letters, with one byte before them that is not a line
    // break, a letter or a digit.
    match first {
        Class::Upper | Class::Lower => letters(bytes, i, w),
        Class::Space | Class::Punct if second.is_ascii_alphabetic() => {
            letters(bytes, i + 1, word_at(bytes, i + 1))
        }
        // Rule 3.
        Class::Digit => {
            // At most three: a stop at the fourth byte whatever it is.
            let stop = !digit(w) & HIGH | 0x80 << 24;
            i + (stop.trailing_zeros() / 8) as usize
        }
        // Rule 4: punctuation, with one space before it.
        Class::Punct => punctuation(bytes, i, w),
        Class::Space if w as u8 == b' ' && punct(w) & 0x8000 != 0 => {
            punctuation(bytes, i + 1, word_at(bytes, i + 1))
        }
        // Whitespace.
        Class::Space | Class::Break => whitespace(bytes, i, w),
    }
}

/// The memo key of a piece of 2 to 8 bytes whose first bytes `w` holds:
/// its bytes, with bit 7 of its last byte set (no ASCII byte has it), so
/// the length is in the key and no key is 0.
#[inline(always)]
fn short_key(w: u64, len: usize) -> u64 {
    w & below(len) | 0x80 << (8 * (len - 1))
}

/// How [`segment_key`] packs a span of each length: the mask of its
/// thirty-two bytes (its first eight in the first word) and the bit set in
/// them; one `and` and one `or` a word.
#[derive(Clone, Copy)]
struct Packing {
    mask: [u64; 4],
    tag: [u64; 4],
}

/// [`Packing`] by length, 1 to [`SEGMENT_MAX`]: the span's bytes, with
/// bit 7 of the last one set, then zeros: up to eight bytes, a first word
/// as [`short_key`] packs a piece and three words of zeros. No ASCII byte
/// has bit 7, so the set bit tells the length, and no key is zeros.
static PACKING: [Packing; SEGMENT_MAX + 1] = {
    let mut table = [Packing {
        mask: [0; 4],
        tag: [0; 4],
    }; SEGMENT_MAX + 1];
    let mut len = 1;
    while len <= SEGMENT_MAX {
        let mut word = 0;
        while word < 4 {
            let bytes = len.saturating_sub(8 * word);
            table[len].mask[word] = below(if bytes > 8 { 8 } else { bytes });
            if bytes >= 1 && bytes <= 8 {
                table[len].tag[word] = 0x80 << (8 * (bytes - 1));
            }
            word += 1;
        }
        len += 1;
    }
    table
};

/// The memo key of the span `start..end` of `bytes`, 1 to
/// [`SEGMENT_MAX`] bytes long: four words that tell any two such spans
/// apart ([`PACKING`]), made from one load of thirty-two bytes without a
/// branch on the length.
#[inline(always)]
fn segment_key(bytes: &[u8], start: usize, end: usize) -> [u64; 4] {
    let packing = &PACKING[end - start];
    let all = match bytes
        .get(start..)
        .and_then(<[u8]>::first_chunk::<SEGMENT_MAX>)
    {
        Some(chunk) => *chunk,
        None => span_past_end(bytes, start),
    };
    let mut key = [0; 4];
    for (word, (chunk, (mask, tag))) in key.iter_mut().zip(
        all.chunks_exact(8)
            .zip(packing.mask.iter().zip(&packing.tag)),
    ) {
        let mut eight = [0; 8];
        eight.copy_from_slice(chunk);
        *word = u64::from_le_bytes(eight) & mask | tag;
    }
    key
}

/// The [`SEGMENT_MAX`] bytes of `bytes` from `at` for [`segment_key`] near
/// the end of the text, zeros past it (which the key masks off).
#[cold]
#[inline(never)]
fn span_past_end(bytes: &[u8], at: usize) -> [u8; SEGMENT_MAX] {
    let mut chunk = [0; SEGMENT_MAX];
    let rest = bytes.get(at..).unwrap_or_default();
    let rest = &rest[..rest.len().min(SEGMENT_MAX)];
    chunk[..rest.len()].copy_from_slice(rest);
    chunk
}

/// The memo's set for a segment's key: its halves folded into two words
/// first, as [`segment_key_wide`]'s caller folds them in registers.
#[inline(always)]
fn segment_set(key: [u64; 4]) -> usize {
    folded_set(key[0] ^ key[2], key[1] ^ key[3])
}

/// The memo's set for a segment's key folded into two words.
#[inline(always)]
fn folded_set(low: u64, high: u64) -> usize {
    let h = (low ^ high.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 56) as usize % SEGMENT_SETS
}

/// [`segment_key`] of the span of `len` bytes (1 to [`SEGMENT_MAX`]) at
/// the start of `chunk`, in one register, and its set in the memo: in the
/// loop compiled for AVX2, where the key built as four words went through
/// the stack on its way to the hash and the compares (a dozen
/// instructions a span).
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unsafe_code, unused_unsafe)]
unsafe fn segment_key_wide(
    chunk: &[u8; SEGMENT_MAX],
    len: usize,
) -> (core::arch::x86_64::__m256i, usize) {
    use core::arch::x86_64::{
        __m256i, _mm_cvtsi128_si64, _mm_extract_epi64, _mm_xor_si128, _mm256_and_si256,
        _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_or_si256,
    };
    let packing = &PACKING[len];
    // SAFETY: the caller has AVX2; each load reads 32 bytes: `chunk`'s
    // and the four words of the packing's mask and tag.
    unsafe {
        let bytes = _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>());
        let mask = _mm256_loadu_si256(packing.mask.as_ptr().cast::<__m256i>());
        let tag = _mm256_loadu_si256(packing.tag.as_ptr().cast::<__m256i>());
        let key = _mm256_or_si256(_mm256_and_si256(bytes, mask), tag);
        let folded = _mm_xor_si128(
            _mm256_castsi256_si128(key),
            _mm256_extracti128_si256::<1>(key),
        );
        let set = folded_set(
            _mm_cvtsi128_si64(folded) as u64,
            _mm_extract_epi64::<1>(folded) as u64,
        );
        (key, set)
    }
}

/// `piece` (9 to [`KEY_MAX`] bytes) as three words: the first eight bytes
/// and the last eight, and the eight after the first for pieces of 16
/// bytes or more. With the length, the words tell any two pieces apart.
#[inline]
fn long_key(piece: &[u8]) -> [u64; 3] {
    let len = piece.len();
    let u64_at = |at: usize| word_at(piece, at);
    match len {
        16.. => [u64_at(0), u64_at(8), u64_at(len - 8)],
        _ => [u64_at(0), u64_at(len - 8), 0],
    }
}

/// The memo's set (its first slot) for a short key.
#[inline(always)]
fn short_set(key: u64) -> usize {
    ((key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % SHORT_SLOTS) & !1
}

/// The memo's set (its first slot) for a long key and its tag (length,
/// and bit 7 for a segment).
#[inline]
fn long_set(key: [u64; 3], tag: u8) -> usize {
    let h = (key[0] ^ key[1].rotate_left(21) ^ key[2].rotate_left(42))
        .wrapping_add(u64::from(tag).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xA24B_AED4_963E_E407);
    ((h >> 52) as usize % LONG_SLOTS) & !1
}

impl Memo {
    /// A memo with nothing in it.
    fn empty() -> Box<Self> {
        Box::new(Memo {
            segments: [[Segment {
                key: [0; 4],
                tokens: 0,
            }; SEGMENT_WAYS]; SEGMENT_SETS],
            short: [Short { key: 0, tokens: 0 }; SHORT_SLOTS],
            long: [Long {
                tag: 0,
                tokens: 0,
                key: [0; 3],
            }; LONG_SLOTS],
        })
    }

    /// The tokens of the segment with `key`, if the memo has them.
    #[inline(always)]
    fn segment(&self, key: [u64; 4]) -> Option<usize> {
        let set = &self.segments[segment_set(key)];
        if set[0].key == key {
            return Some(set[0].tokens as usize);
        }
        set[1..]
            .iter()
            .find(|slot| slot.key == key)
            .map(|slot| slot.tokens as usize)
    }

    /// [`Memo::segment`] of a key from [`segment_key_wide`], in set `set`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(unsafe_code, unused_unsafe)]
    unsafe fn segment_wide(&self, key: core::arch::x86_64::__m256i, set: usize) -> Option<usize> {
        use core::arch::x86_64::{
            __m256i, _mm256_loadu_si256, _mm256_testz_si256, _mm256_xor_si256,
        };
        let set = self.segments.get(set)?;
        set.iter()
            .find(|slot| {
                // SAFETY: the caller has AVX2; the load reads the slot's
                // four words of key.
                unsafe {
                    let differ = _mm256_xor_si256(
                        key,
                        _mm256_loadu_si256(slot.key.as_ptr().cast::<__m256i>()),
                    );
                    _mm256_testz_si256(differ, differ) == 1
                }
            })
            .map(|slot| slot.tokens as usize)
    }

    /// Keeps the tokens of the segment with `key`, as
    /// [`Memo::keep_short`] does.
    #[inline(never)]
    fn keep_segment(&mut self, key: [u64; 4], tokens: usize) {
        let set = &mut self.segments[segment_set(key)];
        set.copy_within(..SEGMENT_WAYS - 1, 1);
        set[0] = Segment {
            key,
            tokens: tokens as u64,
        };
    }

    /// The tokens of the text with a short key, if the memo has them.
    #[inline(always)]
    fn short(&self, key: u64) -> Option<usize> {
        let set = short_set(key);
        let slots = &self.short[set..set + 2];
        slots
            .iter()
            .find(|slot| slot.key == key)
            .map(|slot| slot.tokens as usize)
    }

    /// Keeps the tokens of the text with a short key. Two ways: the newest
    /// of a set first, the one before it second, so two texts that share a
    /// set do not replace each other on every line.
    #[inline(never)]
    fn keep_short(&mut self, key: u64, tokens: usize) {
        let set = short_set(key);
        self.short[set + 1] = self.short[set];
        self.short[set] = Short {
            key,
            tokens: tokens as u64,
        };
    }

    /// The tokens of the text of 9 to [`KEY_MAX`] bytes with `key` and
    /// `tag`, if the memo has them.
    #[inline(never)]
    fn long(&self, key: [u64; 3], tag: u8) -> Option<usize> {
        let set = long_set(key, tag);
        self.long[set..set + 2]
            .iter()
            .find(|slot| slot.tag == tag && slot.key == key)
            .map(|slot| usize::from(slot.tokens))
    }

    /// Keeps the tokens of a text of 9 to [`KEY_MAX`] bytes, as
    /// [`Memo::keep_short`] does.
    #[inline(never)]
    fn keep_long(&mut self, key: [u64; 3], tag: u8, tokens: usize) {
        let set = long_set(key, tag);
        self.long[set + 1] = self.long[set];
        // Text of 24 bytes has at most 24 tokens.
        self.long[set] = Long {
            tag,
            tokens: tokens as u8,
            key,
        };
    }
}

/// The tokens of a run of `len` digits: three digits a token. A table for
/// the runs of API text (ids, prices, dates), cheaper than the division.
#[inline(always)]
fn digit_tokens(len: usize) -> usize {
    const RUNS: [u8; 32] = {
        let mut table = [0; 32];
        let mut len = 0;
        while len < 32 {
            table[len] = len.div_ceil(3) as u8;
            len += 1;
        }
        table
    };
    match RUNS.get(len) {
        Some(&tokens) => usize::from(tokens),
        None => len.div_ceil(3),
    }
}

/// Counts pieces, with the memo and the counters of new pieces.
struct Pieces<'a, L> {
    bytes: &'a [u8],
    memo: &'a mut Memo,
    encoding: &'a tiktoken::CoreBpe,
    long: &'a L,
}

impl<L: Fn(&str, usize) -> Option<usize>> Pieces<'_, L> {
    /// The tokens of the text `start..end` of `bytes`, whose ends are piece
    /// boundaries, counted piece by piece; `None` once past `limit`.
    #[inline(never)]
    fn count(&mut self, start: usize, end: usize, limit: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut total = 0usize;
        let mut i = start;
        while i < end {
            let w = word_at(bytes, i);
            let stop = piece_end(bytes, i, w);
            let piece = &bytes[i..stop];
            total += match piece.len() {
                // Every byte is a token, and so is every string of two or
                // three digits (a unit test checks all of them).
                1 => 1,
                2 | 3 if (w as u8).is_ascii_digit() => 1,
                len @ 2..=8 => {
                    let key = short_key(w, len);
                    self.memo.short(key).unwrap_or_else(|| {
                        let tokens = self.alone(piece);
                        self.memo.keep_short(key, tokens);
                        tokens
                    })
                }
                len @ 9..=KEY_MAX => {
                    let (key, tag) = (long_key(piece), len as u8);
                    self.memo.long(key, tag).unwrap_or_else(|| {
                        let tokens = self.alone(piece);
                        self.memo.keep_long(key, tag, tokens);
                        tokens
                    })
                }
                ..=LONG_PIECE => self.alone(piece),
                _ => {
                    let piece = std::str::from_utf8(piece).unwrap_or_default();
                    (self.long)(piece, limit.saturating_sub(total))?
                }
            };
            if total > limit {
                return None;
            }
            i = stop;
        }
        Some(total)
    }

    /// The tokens of one piece of ASCII text, counted by `tiktoken`.
    fn alone(&self, piece: &[u8]) -> usize {
        // A piece of ASCII text is UTF-8.
        std::str::from_utf8(piece).map_or(0, |piece| self.encoding.count(piece))
    }

    /// The tokens of a segment (not the last of the text) of up to [`SEGMENT_MAX`] bytes
    /// that the memo does not have: counted and kept.
    #[inline(never)]
    fn new_segment(&mut self, key: [u64; 4], start: usize, end: usize) -> Option<usize> {
        let tokens = self.count(start, end, usize::MAX)?;
        self.memo.keep_segment(key, tokens);
        Some(tokens)
    }

    /// The tokens of the segments `start..end` (none of the last of the
    /// text), at most [`SEGMENT_MAX`] bytes in all: from the memo, or
    /// counted and kept.
    #[inline(always)]
    fn span<const WIDE: bool>(&mut self, start: usize, end: usize) -> Option<usize> {
        match end - start {
            0 => Some(0),
            // Every byte is a token.
            1 => Some(1),
            _ => {
                #[cfg(target_arch = "x86_64")]
                if WIDE
                    && let Some(chunk) = self
                        .bytes
                        .get(start..)
                        .and_then(<[u8]>::first_chunk::<SEGMENT_MAX>)
                {
                    #[allow(unsafe_code)]
                    // SAFETY: only `count_wide` counts with `WIDE`, and it
                    // runs only where the CPU has AVX2.
                    let (key, tokens) = unsafe {
                        let (key, set) = segment_key_wide(chunk, end - start);
                        (key, self.memo.segment_wide(key, set))
                    };
                    return match tokens {
                        Some(tokens) => Some(tokens),
                        None => {
                            // SAFETY: `__m256i` is 32 bytes of plain data,
                            // as `[u64; 4]` is.
                            #[allow(unsafe_code)]
                            let key = unsafe {
                                core::mem::transmute::<core::arch::x86_64::__m256i, [u64; 4]>(key)
                            };
                            self.new_segment(key, start, end)
                        }
                    };
                }
                let key = segment_key(self.bytes, start, end);
                match self.memo.segment(key) {
                    Some(tokens) => Some(tokens),
                    None => self.new_segment(key, start, end),
                }
            }
        }
    }

    /// The tokens of a segment (not the last of the text) longer than
    /// [`SEGMENT_MAX`]: counted piece by piece each time, its pieces from
    /// the memo of pieces.
    #[inline(never)]
    fn long_segment(&mut self, start: usize, end: usize, limit: usize) -> Option<usize> {
        self.count(start, end, limit)
    }

    /// The tokens of the last segment of the text, `start..`: never kept,
    /// since no byte follows it; `None` once past `limit`.
    #[inline(never)]
    fn last(&mut self, start: usize, limit: usize) -> Option<usize> {
        let end = self.bytes.len();
        if self.bytes.get(start).is_some_and(u8::is_ascii_digit) {
            return Some((end - start).div_ceil(3));
        }
        self.count(start, end, limit)
    }
}

/// One step of [`Spans`]: the text from one cut to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Span {
    /// Whole segments `start..end`, none a run of digits nor the last of
    /// the text, at most [`SEGMENT_MAX`] bytes in all: the memo's unit.
    Words(usize, usize),
    /// A run of digits `start..end`, not the last segment.
    Digits(usize, usize),
    /// [`Span::Words`] `start..digits` and then [`Span::Digits`]
    /// `digits..end`: a word and the number after it (`: 7743`,
    /// `","id":12`), found in one step.
    WordsDigits(usize, usize, usize),
    /// One segment `start..end` longer than [`SEGMENT_MAX`], neither a run
    /// of digits nor the last segment.
    Long(usize, usize),
    /// The last segment of the text, from here to its end.
    Last(usize),
}

/// The bits of one block that [`Spans`] reads: where segments start, and
/// which bytes are digits.
#[derive(Clone, Copy)]
struct Bits {
    starts: u64,
    digit: u64,
}

/// The spans of ASCII text in order, found from the bits of the segment
/// starts ([`Classes::starts`]) without visiting each start: from a span's
/// first byte, the starts of the next [`SEGMENT_MAX`] bytes are one window
/// of the bits of its block and the next, and the span ends at the first
/// run of digits in it, else at the last start in it (the start of the
/// segment that reaches past it). That is where a walk from start to start
/// would cut, taking whole segments while they fit: the same spans, so the
/// same memo keys, with work per span rather than per segment.
///
/// A segment starts at a digit after a byte that is not one, at a byte
/// that is not a digit after a digit, and at a byte that is neither a
/// letter, a digit nor an apostrophe after a letter. Both kinds of
/// boundary are piece boundaries whatever comes before or after: no piece
/// holds a digit and anything else (rule 3 is the only one that takes
/// digits), and a piece that holds a letter ends at the last letter of the
/// run, or at a contraction after it, which starts with an apostrophe.
struct Spans<'a, const WIDE: bool> {
    bytes: &'a [u8],
    /// Where the block of `current` starts; at most `from`.
    at: usize,
    /// Where the next span starts: a segment start.
    from: usize,
    current: Bits,
    /// The bits of the block after `current`'s (none past the text).
    next: Bits,
    /// The classes of `next`'s block, which the starts of the one after
    /// it depend on.
    before: Classes,
}

impl<'a, const WIDE: bool> Spans<'a, WIDE> {
    #[inline(always)]
    fn new(bytes: &'a [u8]) -> Self {
        let mut before = Classes {
            digit: 0,
            letter: 0,
            word: 0,
        };
        let current = Self::block(bytes, 0, &mut before);
        let next = Self::block(bytes, BLOCK, &mut before);
        Self {
            bytes,
            at: 0,
            from: 0,
            current,
            next,
            before,
        }
    }

    /// The bits of the block at `at`, given the classes of the block
    /// before it (which it then replaces): no starts past the text.
    #[inline(always)]
    fn block(bytes: &[u8], at: usize, before: &mut Classes) -> Bits {
        let classes = match bytes.get(at..).and_then(<[u8]>::first_chunk::<BLOCK>) {
            Some(block) => Self::classes(block),
            None if at < bytes.len() => Self::classes(&last_block(bytes, at)),
            None => {
                return Bits {
                    starts: 0,
                    digit: 0,
                };
            }
        };
        let mut starts = classes.starts(before);
        if bytes.len() - at < BLOCK {
            starts &= (1 << (bytes.len() - at)) - 1;
        }
        *before = classes;
        Bits {
            starts,
            digit: classes.digit,
        }
    }

    /// The classes of `block`: with AVX2 in the loop compiled for it.
    #[inline(always)]
    fn classes(block: &[u8; BLOCK]) -> Classes {
        #[cfg(target_arch = "x86_64")]
        if WIDE {
            #[allow(unsafe_code)]
            // SAFETY: only `count_wide` walks with `WIDE`, and it runs only
            // where the CPU has AVX2.
            return unsafe { Classes::of_wide(block) };
        }
        Classes::of(block)
    }

    /// Moves on one block.
    #[inline(always)]
    fn advance(&mut self) {
        self.at += BLOCK;
        self.current = self.next;
        self.next = Self::block(self.bytes, self.at + BLOCK, &mut self.before);
    }

    /// The first segment start after `from` (in `current`'s block), or
    /// `None` when `from` starts the last segment.
    #[inline(always)]
    fn start_after(&mut self, from: usize) -> Option<usize> {
        let mut starts = self.current.starts & (u64::MAX << 1 << (from - self.at));
        loop {
            if starts != 0 {
                return Some(self.at + starts.trailing_zeros() as usize);
            }
            if self.at + BLOCK >= self.bytes.len() {
                return None;
            }
            self.advance();
            starts = self.current.starts;
        }
    }

    /// A span that ends where the segment at `from` ends: `span` when
    /// another segment follows, [`Span::Last`] when none does.
    #[inline(always)]
    fn through_segment(&mut self, from: usize, span: fn(usize, usize) -> Span) -> Span {
        match self.start_after(from) {
            Some(end) => {
                self.from = end;
                span(from, end)
            }
            None => {
                self.from = self.bytes.len();
                Span::Last(from)
            }
        }
    }

    /// The next span, `None` after the last.
    #[inline(always)]
    fn next_span(&mut self) -> Option<Span> {
        let from = self.from;
        if from >= self.bytes.len() {
            return None;
        }
        while from - self.at >= BLOCK {
            self.advance();
        }
        // Bits from `from` on: of this block, then the next.
        let off = from - self.at;
        let window = |here: u64, after: u64| here >> off | (after << 1) << (63 - off);
        let digit = window(self.current.digit, self.next.digit);
        if digit & 1 != 0 {
            return Some(self.through_segment(from, Span::Digits));
        }
        // The starts of the next `SEGMENT_MAX` bytes, `from` excluded.
        const REACH: u64 = (2 << SEGMENT_MAX) - 2;
        let all = window(self.current.starts, self.next.starts);
        let starts = all & REACH;
        let digits = starts & digit;
        let cut = if digits != 0 {
            let cut = digits.trailing_zeros();
            // The run of digits ends at the next start, most often in the
            // same window (which reaches 63 bytes on); else it is the next
            // step's.
            let after = all >> cut >> 1;
            if after != 0 {
                let digits = from + cut as usize;
                self.from = digits + 1 + after.trailing_zeros() as usize;
                return Some(Span::WordsDigits(from, digits, self.from));
            }
            cut
        } else if starts != 0 {
            63 - starts.leading_zeros()
        } else {
            // The segment at `from` reaches past `SEGMENT_MAX` bytes, or
            // is the last.
            return Some(self.through_segment(from, Span::Long));
        };
        self.from = from + cut as usize;
        Some(Span::Words(from, self.from))
    }
}

/// The bytes of the text from `at` (fewer than [`BLOCK`]), then zeros,
/// which are no digit and no letter.
#[cold]
#[inline(never)]
fn last_block(bytes: &[u8], at: usize) -> [u8; BLOCK] {
    let mut block = [0; BLOCK];
    let rest = bytes.get(at..).unwrap_or_default();
    let rest = &rest[..rest.len().min(BLOCK)];
    block[..rest.len()].copy_from_slice(rest);
    block
}

/// The exact o200k_base count of the ASCII `text` by `encoding`, or `None`
/// once it passes `limit`. Pieces longer than [`LONG_PIECE`] are counted
/// by `long` (the count of one piece when it is at most its second
/// argument, else `None`), every other by `encoding`. `encoding` must be
/// o200k_base: the memo is shared by every call on the thread.
///
/// The text is taken a span at a time ([`Spans`]): a run of digits, whose
/// pieces are its digits three at a time, one token each; or the bytes up
/// to the end of a word, which the memo answers whole, together with the
/// words after it up to the next run of digits, as many whole segments as
/// fit in [`SEGMENT_MAX`] bytes (`","status":"`, `\n    name: `), one
/// lookup where there were two or three. A span not in the memo is
/// counted piece by piece. The tokens of a span depend on its bytes alone,
/// since the byte after it (a digit or a byte after a word) makes the same
/// pieces in it wherever it stands; the last segment of the text, which
/// has no byte after it, is never kept. Runs of digits are never in a
/// span: ids and prices would fill the memo with spans met once.
pub(super) fn count_till(
    text: &str,
    limit: usize,
    encoding: &tiktoken::CoreBpe,
    long: impl Fn(&str, usize) -> Option<usize>,
) -> Option<usize> {
    debug_assert!(text.is_ascii());
    MEMO.with(move |memo| {
        let mut memo = memo.borrow_mut();
        let mut pieces = Pieces {
            bytes: text.as_bytes(),
            memo: &mut memo,
            encoding,
            long: &long,
        };
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx2_bmi() {
            #[allow(unsafe_code)]
            // SAFETY: `count_wide` needs AVX2, BMI1, BMI2 and LZCNT, and
            // the CPU has just said it has them all.
            return unsafe { count_wide(&mut pieces, limit) };
        }
        count_baseline(&mut pieces, limit)
    })
}

/// [`count_spans`] compiled for the target's baseline.
#[inline(never)]
fn count_baseline<L: Fn(&str, usize) -> Option<usize>>(
    pieces: &mut Pieces<'_, L>,
    limit: usize,
) -> Option<usize> {
    count_spans::<L, false>(pieces, limit)
}

/// [`count_spans`] compiled with AVX2, BMI1, BMI2 and LZCNT: the same
/// code, fewer instructions a byte.
///
/// # Safety
///
/// The CPU must support AVX2, BMI1, BMI2 and LZCNT
/// ([`crate::cpu::avx2_bmi`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn count_wide<L: Fn(&str, usize) -> Option<usize>>(
    pieces: &mut Pieces<'_, L>,
    limit: usize,
) -> Option<usize> {
    count_spans::<L, true>(pieces, limit)
}

/// The body of [`count_till`]: its text's spans, counted.
#[inline(always)]
fn count_spans<L: Fn(&str, usize) -> Option<usize>, const WIDE: bool>(
    pieces: &mut Pieces<'_, L>,
    limit: usize,
) -> Option<usize> {
    let mut spans = Spans::<WIDE>::new(pieces.bytes);
    let mut total = 0usize;
    while let Some(span) = spans.next_span() {
        total += match span {
            Span::Words(start, end) => pieces.span::<WIDE>(start, end)?,
            Span::Digits(start, end) => digit_tokens(end - start),
            Span::WordsDigits(start, digits, end) => {
                pieces.span::<WIDE>(start, digits)? + digit_tokens(end - digits)
            }
            Span::Long(start, end) => {
                pieces.long_segment(start, end, limit.saturating_sub(total))?
            }
            Span::Last(start) => pieces.last(start, limit.saturating_sub(total))?,
        };
        if total > limit {
            return None;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoding() -> &'static tiktoken::CoreBpe {
        tiktoken::get_encoding("o200k_base").unwrap_or_else(|| unreachable!())
    }

    /// The long pieces' counter, as `exact` gives it: the count of one
    /// piece up to a limit.
    fn long(piece: &str, limit: usize) -> Option<usize> {
        Some(encoding().count(piece)).filter(|&count| count <= limit)
    }

    fn check(text: &str) {
        assert_eq!(
            count_till(text, usize::MAX, encoding(), long),
            Some(encoding().count(text)),
            "{text:?}"
        );
    }

    /// The segments of `text` as a byte-by-byte scan finds them, the
    /// reference for the segments of [`Spans`]: a run of digits, or from a byte
    /// that is not a digit to the first digit, or to the first byte after
    /// a letter that is neither a letter, a digit nor an apostrophe.
    fn scanned_segments(text: &[u8]) -> Vec<(usize, usize)> {
        let mut segments = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let mut end = start + 1;
            if text[start].is_ascii_digit() {
                while end < text.len() && text[end].is_ascii_digit() {
                    end += 1;
                }
            } else {
                while end < text.len() {
                    let (before, b) = (text[end - 1], text[end]);
                    if b.is_ascii_digit()
                        || before.is_ascii_alphabetic()
                            && !(b.is_ascii_alphanumeric() || b == b'\'')
                    {
                        break;
                    }
                    end += 1;
                }
            }
            segments.push((start, end));
            start = end;
        }
        segments
    }

    /// The spans the segments of `scanned_segments` make when taken one
    /// by one, the reference for [`Spans`]: non-digit segments gathered
    /// while they fit in [`SEGMENT_MAX`] bytes, a run of digits or a
    /// longer segment alone, the last segment alone.
    fn grouped(text: &[u8]) -> Vec<Span> {
        let segments = scanned_segments(text);
        let Some((&(last, _), rest)) = segments.split_last() else {
            return Vec::new();
        };
        let mut spans = Vec::new();
        let mut pending = 0;
        for &(start, end) in rest {
            let digits = text[start].is_ascii_digit();
            if !digits && end - pending <= SEGMENT_MAX {
                continue;
            }
            if start > pending {
                spans.push(Span::Words(pending, start));
            }
            if digits {
                spans.push(Span::Digits(start, end));
                pending = end;
            } else if end - start <= SEGMENT_MAX {
                pending = start;
            } else {
                spans.push(Span::Long(start, end));
                pending = end;
            }
        }
        if last > pending {
            spans.push(Span::Words(pending, last));
        }
        spans.push(Span::Last(last));
        spans
    }

    /// The spans [`Spans`] finds.
    fn spans(text: &[u8]) -> Vec<Span> {
        let mut walk = Spans::<false>::new(text);
        let mut spans = Vec::new();
        while let Some(span) = walk.next_span() {
            match span {
                Span::WordsDigits(start, digits, end) => {
                    spans.extend([Span::Words(start, digits), Span::Digits(digits, end)]);
                }
                span => spans.push(span),
            }
        }
        spans
    }

    /// Every piece `piece_end` finds, as `tiktoken`'s pre-tokenizer would
    /// find them: counted alone, each is one piece again.
    fn pieces(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let end = piece_end(text.as_bytes(), i, word_at(text.as_bytes(), i));
            out.push(&text[i..end]);
            i = end;
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        // Every kind of ASCII byte the pattern tells apart, alone and in
        // the runs JSON and TOON make, contractions included.
        #[test]
        fn agrees_with_tiktoken_counting_the_text_whole(
            parts in proptest::collection::vec(
                "( |  |   |\t|\n|\r\n|\n\n| \n|\n  |\x0b|\x0c|\x00|\x7f|a|Ab|ABC|xY|'s|'T|'re|'LL|'d|'|1|22|4444|,|:|/|-|\"|\",\"|\": \"|\\{|\\}|\\[|\\]|\\.|_|#|!)",
                0..40,
            )
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(
                count_till(&text, usize::MAX, encoding(), long),
                Some(encoding().count(&text))
            );
        }

        // Runs of every class long and short, so that pieces start and end
        // at every offset of the eight-byte words and cross them, and some
        // pieces are longer than the memo keeps or than `LONG_PIECE`.
        #[test]
        fn agrees_with_tiktoken_on_runs_across_words(
            runs in proptest::collection::vec(("[aZ7 \t\n\r!/'\x00]", 1..80usize), 0..12)
        ) {
            let text: String = runs.iter().map(|(c, n)| c.repeat(*n)).collect();
            prop_assert_eq!(
                count_till(&text, usize::MAX, encoding(), long),
                Some(encoding().count(&text))
            );
        }

        // Where segments start, on any ASCII, across blocks.
        #[test]
        fn segments_start_where_the_scan_says(text in "[\\x00-\\x7f]{0,300}") {
            prop_assert_eq!(spans(text.as_bytes()), grouped(text.as_bytes()));
        }

        // Any ASCII at all, byte by byte.
        #[test]
        fn agrees_with_tiktoken_on_any_ascii(text in "[\\x00-\\x7f]{0,60}") {
            prop_assert_eq!(
                count_till(&text, usize::MAX, encoding(), long),
                Some(encoding().count(&text))
            );
        }
    }

    /// The count of `text` by both builds of the loop, each with a memo of
    /// its own: the baseline always, the wide one where the CPU runs it.
    fn both_builds(text: &str) -> Vec<Option<usize>> {
        let mut memo = Memo::empty();
        let mut pieces = Pieces {
            bytes: text.as_bytes(),
            memo: &mut memo,
            encoding: encoding(),
            long: &long,
        };
        let mut counts = vec![count_baseline(&mut pieces, usize::MAX)];
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::avx2_bmi() {
            let mut memo = Memo::empty();
            pieces.memo = &mut memo;
            #[allow(unsafe_code)]
            // SAFETY: the CPU has just said it runs `count_wide`.
            counts.push(unsafe { count_wide(&mut pieces, usize::MAX) });
        }
        counts
    }

    proptest! {
        // Fewer cases: each text is a few hundred bytes.
        #![proptest_config(ProptestConfig::with_cases(200))]

        // Texts of the units JSON and TOON are made of, long enough to
        // cross several blocks of the segments' masks.
        #[test]
        fn agrees_with_tiktoken_on_documents_across_blocks(
            parts in proptest::collection::vec(
                "(\",\"|\":\"|\": |\n  |\n    - |\\{\"|\"\\}|,|:|id|name|Status|It's|ord_|12|2025-06-02|3\\.5| |\t|a|Z|'|\n)",
                0..120,
            )
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(spans(text.as_bytes()), grouped(text.as_bytes()));
            prop_assert_eq!(
                count_till(&text, usize::MAX, encoding(), long),
                Some(encoding().count(&text))
            );
        }

        // The loop compiled for the baseline and for AVX2 and BMI: the
        // same spans, the same counts, on documents and on any ASCII.
        #[test]
        fn both_builds_agree_with_tiktoken(
            parts in proptest::collection::vec(
                "(\",\"|\":\"|\": |\n  |\n    - |\\{\"|\"\\}|,|:|id|name|Status|It's|ord_|12|2025-06-02|3\\.5| |\t|a|Z|'|\n)",
                0..120,
            ),
            noise in "[\\x00-\\x7f]{0,200}",
        ) {
            for text in [parts.concat(), noise] {
                let expected = Some(encoding().count(&text));
                for count in both_builds(&text) {
                    prop_assert_eq!(count, expected);
                }
            }
        }
    }

    #[test]
    fn segments_at_every_offset_of_a_block() {
        // Each kind of segment boundary, and segments and pieces longer
        // than a block (and than `LONG_PIECE`), at every offset of the
        // 64-byte blocks and across their edges.
        let patterns = [
            "a1".to_owned(),
            "1a".to_owned(),
            "ab,".to_owned(),
            "x's".to_owned(),
            "\",\"status\":\"".to_owned(),
            "\n      name: x".to_owned(),
            "9".repeat(70),
            "q".repeat(70),
            " ".repeat(70) + "z",
            "!".repeat(70),
            "\n".repeat(70),
            "ab".repeat(40) + "'ll7",
        ];
        for pattern in &patterns {
            for offset in 0..=2 * BLOCK {
                for filler in [".", "7", "k"] {
                    let text = format!("{}{pattern}", filler.repeat(offset));
                    for text in [text.clone(), format!("{text}-"), format!("{text}5 y")] {
                        assert_eq!(spans(text.as_bytes()), grouped(text.as_bytes()), "{text:?}");
                        check(&text);
                    }
                }
            }
        }
    }

    #[test]
    fn segment_keys_tell_segments_apart() {
        // Every length, with bytes that a shorter or longer segment could
        // share: runs of one byte, and 0x00, which the masks fill with.
        let mut keys = std::collections::HashSet::new();
        for b in [b'\0', b'a', b'"'] {
            for len in 1..=SEGMENT_MAX {
                let text = vec![b; 40];
                for start in [0, 3, 40 - len] {
                    let key = segment_key(&text, start, start + len);
                    assert_ne!(key, [0; 4]);
                    keys.insert((b, len, key));
                }
            }
        }
        let distinct: std::collections::HashSet<_> = keys.iter().map(|(_, _, key)| key).collect();
        assert_eq!(distinct.len(), 3 * SEGMENT_MAX);
        assert_eq!(keys.len(), 3 * SEGMENT_MAX);
    }

    #[test]
    fn every_string_of_up_to_three_digits_is_one_token() {
        for n in 0..1000 {
            for text in [format!("{n}"), format!("{n:02}"), format!("{n:03}")] {
                assert_eq!(encoding().count(&text), 1, "{text}");
            }
        }
    }

    #[test]
    fn documents_in_every_layout() {
        let toon = "data[2]:\n  - id: ord_1\n    status: paid\n    items[1]{sku,qty}:\n      A-1,2\n  - id: 7\n";
        let pretty = "{\n    \"a\": [\n        1,\n        \"x\"\n    ],\n\t\"b\": null\r\n}\n\n";
        let spaced = r#"{"id": 1, "a":  22, "b": [3,	4], "c": "It's 5", "d": -6}"#;
        for text in [
            toon,
            pretty,
            spaced,
            "",
            " ",
            "\n",
            "a\n",
            ",\n/x",
            "  1",
            "\t!",
            "x  \n  ",
            "'s",
            "don't",
            "WE'LL",
            "HTTPRequest",
            "a'",
            "\t\ta",
        ] {
            check(text);
        }
    }

    #[test]
    fn pieces_counted_alone_are_one_piece() {
        let text = "{\"userName\": \"It's  ok\", \"n\": [12345, 6]}\r\n  next:\tTAB\n\n/ end  ";
        for piece in pieces(text) {
            assert_eq!(pieces(piece), [piece], "{text:?}");
        }
    }

    #[test]
    fn stops_once_past_the_limit_and_answers_repeats_from_the_memo() {
        let text = "key: value\n  other: 12\n".repeat(50);
        let count = encoding().count(&text);
        assert_eq!(count_till(&text, count, encoding(), long), Some(count));
        assert_eq!(count_till(&text, count - 1, encoding(), long), None);
        assert_eq!(count_till(&text, 3, encoding(), long), None);
        // Pieces that share a set replace each other; counts stay exact.
        // Words of letters only, each its own piece, twice the memo's size.
        let word = |mut n: usize| {
            let mut word = String::from(" q");
            while n > 0 {
                word.push(char::from(b'a' + (n % 26) as u8));
                n /= 26;
            }
            word
        };
        // Segments that share a set replace each other too: twice as many
        // distinct words as the segments' table holds, each followed by a
        // byte, so that the memo keeps it.
        let words: String = (0..2 * SEGMENT_WAYS * SEGMENT_SETS)
            .map(|n| word(n) + ",")
            .collect();
        for _ in 0..2 {
            assert_eq!(
                count_till(&words, usize::MAX, encoding(), long),
                Some(encoding().count(&words))
            );
        }
        for _ in 0..2 {
            for n in 0..(2 * SHORT_SLOTS) {
                let text = word(n);
                assert_eq!(
                    count_till(&text, usize::MAX, encoding(), long),
                    Some(encoding().count(&text))
                );
            }
        }
    }
}
