//! Exact counts of ASCII text: the o200k_base pre-tokenizer written out for
//! ASCII bytes, and a per-thread memo of each piece's tokens.
//!
//! API JSON and its TOON are mostly ASCII, and they repeat their pieces:
//! keys, `","`, `":"`, indentation, a few dozen words. `tiktoken` finds
//! each piece with its own scanner and looks it up in its vocabulary (a
//! table of megabytes) or merges it, about a hundred instructions a token;
//! here a piece is found with a table of byte classes and answered from a
//! small memo of the pieces seen before, on this thread, in this or an
//! earlier text. A piece not in the memo is counted by `tiktoken`, alone.
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

/// Longest piece the memo keeps; longer ones (rare in API text) are
/// counted by `tiktoken` each time.
const KEY_MAX: usize = 24;
/// Slots of the memo: a document has a few hundred distinct pieces at
/// most that repeat; the rest (ids, numbers) are counted once anyway.
/// 4 096 slots of 32 bytes: 128 KiB per thread that counts.
const SLOTS: usize = 4096;

#[derive(Clone, Copy)]
struct Slot {
    /// The piece's length, 0 for an empty slot (no piece is empty).
    len: u8,
    tokens: u8,
    /// The piece's bytes as [`key`] packs them.
    key: [u64; 3],
}

// The size the docs give: 4 096 slots of 32 bytes.
const _: () = assert!(SLOTS * std::mem::size_of::<Slot>() == 128 << 10);

const EMPTY: Slot = Slot {
    len: 0,
    tokens: 0,
    key: [0; 3],
};

thread_local! {
    /// The memo: sets of two slots; a new piece takes the first slot of
    /// its set and moves the piece there to the second, whatever was
    /// there, so its size never depends on the input.
    static MEMO: RefCell<Box<[Slot; SLOTS]>> = RefCell::new(Box::new([EMPTY; SLOTS]));
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

/// The class of `bytes[i]`, or `None` past the end. The text is ASCII.
#[inline(always)]
fn at(bytes: &[u8], i: usize) -> Option<Class> {
    bytes.get(i).map(|&b| CLASSES[usize::from(b & 0x7f)])
}

/// Where the run of bytes of class `class` from `i` ends.
#[inline(always)]
fn run(bytes: &[u8], mut i: usize, class: Class) -> usize {
    while at(bytes, i) == Some(class) {
        i += 1;
    }
    i
}

/// The end of the contraction (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`,
/// `'d`, any case) at `i`, or `i`.
#[inline]
fn contraction(bytes: &[u8], i: usize) -> usize {
    if bytes.get(i) != Some(&b'\'') {
        return i;
    }
    let lower = |k: usize| bytes.get(i + k).map(u8::to_ascii_lowercase);
    match (lower(1), lower(2)) {
        (Some(b'r'), Some(b'e')) | (Some(b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => i + 3,
        (Some(b's' | b't' | b'm' | b'd'), _) => i + 2,
        _ => i,
    }
}

/// The end of the piece that starts at `i < bytes.len()`, in ASCII text.
#[inline]
fn piece_end(bytes: &[u8], i: usize) -> usize {
    let first = at(bytes, i).unwrap_or(Class::Punct);
    let second = at(bytes, i + 1);
    let is_letter = |c: Option<Class>| matches!(c, Some(Class::Upper | Class::Lower));
    // Rules 1 and 2: letters, with one byte before them that is not a line
    // break, a letter or a digit.
    let letters = match first {
        Class::Upper | Class::Lower => Some(i),
        Class::Space | Class::Punct if is_letter(second) => Some(i + 1),
        _ => None,
    };
    if let Some(start) = letters {
        // Capitals, then small letters (rule 1); capitals alone (rule 2).
        let end = run(bytes, run(bytes, start, Class::Upper), Class::Lower);
        return contraction(bytes, end);
    }
    match first {
        // Rule 3.
        Class::Digit => {
            let mut end = i + 1;
            while end < i + 3 && at(bytes, end) == Some(Class::Digit) {
                end += 1;
            }
            end
        }
        // Rule 4: punctuation, with one space before it.
        Class::Punct => punct_tail(bytes, run(bytes, i, Class::Punct)),
        Class::Space if bytes[i] == b' ' && second == Some(Class::Punct) => {
            punct_tail(bytes, run(bytes, i + 1, Class::Punct))
        }
        // Whitespace.
        _ => {
            let mut end = i;
            let mut last_break = None;
            while let Some(Class::Space | Class::Break) = at(bytes, end) {
                if bytes[end] == b'\r' || bytes[end] == b'\n' {
                    last_break = Some(end);
                }
                end += 1;
            }
            match last_break {
                // Rule 5: up to the run's last line break.
                Some(last) => last + 1,
                // Rule 6: all but the last byte before a byte that is not
                // whitespace; rule 7: that last byte alone.
                None if end < bytes.len() && end - i >= 2 => end - 1,
                None => end,
            }
        }
    }
}

/// Rule 4's tail: the line breaks and slashes after punctuation.
#[inline]
fn punct_tail(bytes: &[u8], mut end: usize) -> usize {
    while matches!(bytes.get(end), Some(b'\r' | b'\n' | b'/')) {
        end += 1;
    }
    end
}

/// `piece` (2 to [`KEY_MAX`] bytes) as three words, with reads of fixed
/// size (no copy of a variable length): the first eight bytes and the last
/// eight, and the eight after the first for pieces of 16 bytes or more;
/// shorter pieces as two overlapping halves or their bytes. With the
/// length, the words tell any two pieces apart.
#[inline]
fn key(piece: &[u8]) -> [u64; 3] {
    let len = piece.len();
    let u64_at = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&piece[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let u32_at = |at: usize| {
        let mut word = [0u8; 4];
        word.copy_from_slice(&piece[at..at + 4]);
        u64::from(u32::from_le_bytes(word))
    };
    match len {
        16.. => [u64_at(0), u64_at(8), u64_at(len - 8)],
        8.. => [u64_at(0), u64_at(len - 8), 0],
        4.. => [u32_at(0) | u32_at(len - 4) << 32, 0, 0],
        _ => [
            piece.iter().rev().fold(0, |w, &b| w << 8 | u64::from(b)),
            0,
            0,
        ],
    }
}

/// The memo's slot for a piece of `len` bytes with `key`.
#[inline]
fn slot_of(key: [u64; 3], len: usize) -> usize {
    let h = (key[0] ^ key[1].rotate_left(21) ^ key[2].rotate_left(42))
        .wrapping_add((len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xA24B_AED4_963E_E407);
    (h >> 52) as usize % SLOTS
}

/// The exact o200k_base count of the ASCII `text` by `encoding`, or `None`
/// once it passes `limit`. `text` must be ASCII and have no long run (see
/// `exact::has_long_run`): a long piece would go to `tiktoken` whole.
/// `encoding` must be o200k_base: the memo is shared by every call on the
/// thread.
pub(super) fn count_till(text: &str, limit: usize, encoding: &tiktoken::CoreBpe) -> Option<usize> {
    debug_assert!(text.is_ascii());
    let bytes = text.as_bytes();
    let alone = |piece: &[u8]| {
        // A piece of ASCII text is UTF-8.
        std::str::from_utf8(piece).map_or(0, |piece| encoding.count(piece))
    };
    MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let mut total = 0usize;
        let mut i = 0;
        while i < bytes.len() {
            let end = piece_end(bytes, i);
            let piece = &bytes[i..end];
            total += match piece.len() {
                // Every byte is a token, and so is every string of two or
                // three digits (a unit test checks all of them).
                1 => 1,
                2 | 3 if at(bytes, i) == Some(Class::Digit) => 1,
                len if len <= KEY_MAX => {
                    let key = key(piece);
                    let set = slot_of(key, len) & !1;
                    let found = |slot: &Slot| usize::from(slot.len) == len && slot.key == key;
                    if found(&memo[set]) {
                        usize::from(memo[set].tokens)
                    } else if found(&memo[set + 1]) {
                        usize::from(memo[set + 1].tokens)
                    } else {
                        let tokens = alone(piece);
                        // Two ways: the newest piece of a set first, the one
                        // before it second, so two pieces that share a set
                        // do not replace each other on every line.
                        memo[set + 1] = memo[set];
                        // A piece of 24 bytes has at most 24 tokens.
                        memo[set] = Slot {
                            len: len as u8,
                            tokens: tokens as u8,
                            key,
                        };
                        tokens
                    }
                }
                _ => alone(piece),
            };
            if total > limit {
                return None;
            }
            i = end;
        }
        Some(total)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoding() -> &'static tiktoken::CoreBpe {
        tiktoken::get_encoding("o200k_base").unwrap_or_else(|| unreachable!())
    }

    fn check(text: &str) {
        assert_eq!(
            count_till(text, usize::MAX, encoding()),
            Some(encoding().count(text)),
            "{text:?}"
        );
    }

    /// Every piece `piece_end` finds, as `tiktoken`'s pre-tokenizer would
    /// find them: counted alone, each is one piece again.
    fn pieces(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let end = piece_end(text.as_bytes(), i);
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
                count_till(&text, usize::MAX, encoding()),
                Some(encoding().count(&text))
            );
        }

        // Any ASCII at all, byte by byte.
        #[test]
        fn agrees_with_tiktoken_on_any_ascii(text in "[\\x00-\\x7f]{0,60}") {
            prop_assert_eq!(
                count_till(&text, usize::MAX, encoding()),
                Some(encoding().count(&text))
            );
        }
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
        assert_eq!(count_till(&text, count, encoding()), Some(count));
        assert_eq!(count_till(&text, count - 1, encoding()), None);
        assert_eq!(count_till(&text, 3, encoding()), None);
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
        for _ in 0..2 {
            for n in 0..(2 * SLOTS) {
                let text = word(n);
                assert_eq!(
                    count_till(&text, usize::MAX, encoding()),
                    Some(encoding().count(&text))
                );
            }
        }
    }
}
