//! Exact counts with the o200k_base BPE: `tiktoken` for ordinary text, a
//! linear backtracking encoder (`bpe`) for text with long pieces.
//!
//! `tiktoken` counts API JSON several times as fast as `bpe-openai`, but a
//! pre-tokenizer piece longer than a few dozen bytes (a run of one letter,
//! of spaces, of punctuation, of CJK) goes through its heap merge at a few
//! MB/s, slower still as the piece grows: a megabyte of `a` ran at about
//! 2 MB/s. The backtracking encoder of `bpe` is linear whatever the piece.
//! So a text with a run that may form a long piece ([`has_long_run`]) is
//! counted by the linear encoder, every other by `tiktoken`. ASCII text is
//! split into pieces here in linear time whatever it holds (`ascii`), so
//! there only a piece longer than 64 bytes goes to the linear encoder,
//! alone. Text with bytes beyond ASCII is first cut where its parts, counted
//! alone, split into the whole text's pieces (`mixed`): its ASCII parts are
//! counted the ASCII way, and only the parts around the other bytes the
//! way above, each on its own, so a long run in one part sends that part
//! alone to the linear encoder.
//!
//! The linear encoder's tables are not shipped: they are built from
//! `tiktoken`'s own o200k_base vocabulary (which the binary embeds,
//! compressed, in under 1 MB) on the first text that needs them, once per
//! process (a few seconds of one core). `bpe-openai` ships the same tables
//! serialized, 32 MB of the binary; it is only a dev-dependency here, the
//! independent counter of the differential test.

use std::sync::LazyLock;

use super::ascii;
use super::mixed;
use super::pieces::{self, Spaces};

use bpe::byte_pair_encoding::BytePairEncoding;
use bpe_openai::Tokenizer;

/// Pieces up to this long are counted by `tiktoken` at its ordinary speed;
/// a text with a run that may make a longer piece goes to the linear
/// encoder.
const LONG_RUN: usize = 64;

/// The hash factor `bpe-openai` serializes o200k_base with: no two tokens
/// of the vocabulary collide under it.
const HASH_FACTOR: u64 = 17_846_336_922_010_275_747;

/// The o200k_base pre-tokenizer as `bpe-openai` writes it for the
/// `regex-automata` engine: the third pattern of the tiktoken regex,
/// `\s+(?!\S)`, is a one-character look-ahead.
const PATTERNS: [&str; 6] = [
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "\\p{N}{1,3}",
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
    "\\s*[\\r\\n]+",
    "\\s+$",
];

// The two `expect`s below read data compiled into the binary (the
// vocabulary and fixed patterns), never a request: they hold on every build
// or on none, and the unit tests run both on every build.
#[allow(clippy::expect_used)]
fn tiktoken() -> &'static tiktoken::CoreBpe {
    static ENCODING: LazyLock<&'static tiktoken::CoreBpe> = LazyLock::new(|| {
        tiktoken::get_encoding("o200k_base").expect("the o200k_base vocabulary is compiled in")
    });
    &ENCODING
}

/// The linear encoder, built from `tiktoken`'s vocabulary on first use.
#[allow(clippy::expect_used)]
fn linear() -> &'static Tokenizer {
    static LINEAR: LazyLock<Tokenizer> = LazyLock::new(|| {
        let encoding = tiktoken();
        let size = u32::try_from(encoding.vocab_size()).expect("vocabulary fits u32");
        // Ranks are the ids 0..size, in order, as the dictionary wants them.
        let tokens = (0..size).map(|id| encoding.decode(&[id]));
        let bpe = BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR));
        let first = PATTERNS.join("|");
        Tokenizer::new_lookahead(
            bpe,
            &[(&first, false), ("\\s+\\s", true), ("\\s+", false)],
            false,
        )
        .expect("the o200k_base patterns compile")
    });
    &LINEAR
}

/// Counts the o200k_base tokens of `text` exactly.
///
/// Available with the `exact-tokens` cargo feature (on by default: the
/// smart fallback settles near ties with it, see [`choose`](super::choose())).
///
/// Ordinary text is counted by the `tiktoken` crate, hundreds of MB/s on
/// API JSON, with its line breaks and indentation split off and counted
/// through a small table (`tiktoken` would hand each to its regex); ASCII
/// text (most API JSON and its TOON) is split into pieces here and each
/// word with the punctuation before it, or each piece, answered from a
/// per-thread memo of those seen before (a fixed 88 KiB), `tiktoken`
/// counting only the new ones; in text with characters beyond ASCII, only
/// the parts around them (to where the pre-tokenizer's pieces allow a cut)
/// are counted the general way, the ASCII between them as ASCII text; text
/// with a run
/// of one kind of character long enough to make
/// a long tokenizer piece (a megabyte of one letter, deep indentation, a
/// wall of punctuation) is counted by a linear-time encoder instead, tens
/// of MB/s whatever the text. That encoder's tables are built once per
/// process, on the first such text, from the vocabulary embedded in the
/// binary (a few seconds); nothing is downloaded at run time. Both agree
/// with the reference tokenizer on every corpus of the repository, and with
/// each other and with `bpe-openai` in a differential test. Special-token
/// markers such as `<|endoftext|>` count as the ordinary text they are,
/// since a response body is data, not a prompt template. Even so, it is
/// far slower than [`estimate`](super::estimate()), which is the one for
/// hot paths.
///
/// ```
/// assert_eq!(terse_tokens::exact(""), 0);
/// assert_eq!(terse_tokens::exact("hello world"), 2);
/// let body = r#"{"id":1,"title":"Weekly sync"}"#;
/// assert!(terse_tokens::exact(body) > 5);
/// ```
pub fn exact(text: &str) -> usize {
    Counter::new().count(text)
}

/// Builds the exact counters' tables now rather than on the first text
/// that needs them: the linear encoder's take a few seconds of one core.
/// A server calls it on a thread of its own as it starts, so that its
/// first near tie does not wait for them. Later calls return at once.
///
/// ```
/// terse_tokens::warm();
/// // A long run of one letter: counted by the linear encoder, built now.
/// assert!(terse_tokens::exact(&"a".repeat(1000)) > 100);
/// ```
pub fn warm() {
    linear();
}

/// The exact count of `text` when it is at most `limit`; `None` when it is
/// more. Both counters stop once the count passes `limit`, so comparing a
/// second text with a first costs no more than the first.
#[cfg(test)]
pub(super) fn exact_till(text: &str, limit: usize) -> Option<usize> {
    Counter::new().count_till(text, limit)
}

/// Exact counts that share one table of whitespace pieces between texts:
/// the smart fallback counts a document's JSON and then its TOON with one.
pub(super) struct Counter {
    spaces: Spaces,
}

impl Counter {
    pub(super) fn new() -> Self {
        Self {
            spaces: Spaces::new(),
        }
    }

    /// The exact count of `text`.
    pub(super) fn count(&mut self, text: &str) -> usize {
        self.count_till(text, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The exact count of `text` when it is at most `limit`; `None` when it
    /// is more, found once the count passes `limit`.
    pub(super) fn count_till(&mut self, text: &str, limit: usize) -> Option<usize> {
        if text.is_ascii() {
            return ascii_till(text, limit);
        }
        // Cut where the parts split into the whole text's pieces: the ASCII
        // parts keep the ASCII counter, the rest take the general way.
        let mut total = 0usize;
        mixed::each_part(text.as_bytes(), |range, ascii| {
            // Parts end at ASCII bytes: char boundaries.
            let part = text.get(range).unwrap_or_default();
            let left = limit - total;
            total += if ascii {
                ascii_till(part, left)?
            } else {
                self.general_till(part, left)?
            };
            Some(())
        })?;
        Some(total)
    }

    /// [`Counter::count_till`] for text with bytes beyond ASCII, counted
    /// whole: by the linear encoder when it has a run that may make a long
    /// piece, else by `tiktoken` with the whitespace pieces taken out.
    fn general_till(&mut self, text: &str, limit: usize) -> Option<usize> {
        if has_long_run(text.as_bytes()) {
            let linear = linear();
            linear.count_till_limit(&linear.normalize(text), limit)
        } else {
            pieces::count_till(text, limit, tiktoken(), &mut self.spaces)
        }
    }
}

/// The exact count of the ASCII `text` when it is at most `limit`.
fn ascii_till(text: &str, limit: usize) -> Option<usize> {
    // ASCII pieces are found in linear time whatever the text; only a long
    // one goes to the linear encoder, alone.
    ascii::count_till(text, limit, tiktoken(), |piece, limit| {
        let linear = linear();
        linear.count_till_limit(&linear.normalize(piece), limit)
    })
}

/// Whether `bytes` has a run that may form a pre-tokenizer piece longer
/// than `LONG_RUN`; it may say yes where there is none, never no where
/// there is one.
///
/// An o200k_base piece is a run of letters (with one character before it
/// and a contraction after it), of whitespace, or of punctuation (with a
/// space before it and any line breaks and slashes after it); digits come
/// three at a time at most. So a long piece holds a long stretch whose
/// ASCII bytes are all letters, all whitespace or all punctuation, line
/// breaks and slashes aside. Bytes of 0x80 and above may be any of those
/// (a CJK letter, a no-break space, a dash), and line breaks and slashes
/// may follow punctuation, so those continue whatever stretch they are in;
/// an ASCII digit ends it.
pub fn has_long_run(bytes: &[u8]) -> bool {
    may_have_long_run(bytes) && scan_long_run(bytes)
}

/// Less the few bytes a piece may carry around its stretch: the character
/// before a word, a contraction after it.
const STRETCH: usize = LONG_RUN - 8;

/// Blocks [`may_have_long_run`] looks at: a stretch longer than
/// [`STRETCH`] holds at least two whole aligned blocks of this size.
const BLOCK: usize = 16;
const _: () = assert!(STRETCH + 1 >= 3 * BLOCK - 1);

/// A quick pass that rules out long runs in ordinary text: `false` when no
/// aligned block of [`BLOCK`] bytes could lie inside a stretch.
///
/// A stretch, as [`scan_long_run`] counts it, has no digit and holds one
/// kind of ASCII byte besides the bytes of any kind (bytes of 0x80 and
/// above, line breaks, slashes). So does every block inside it; and in
/// JSON and prose nearly every 16 bytes hold a digit or two kinds (a word
/// and a space, a key and its quotes). The test per block is a few
/// branch-free ORs, several times as fast as the scan's state machine.
fn may_have_long_run(bytes: &[u8]) -> bool {
    bytes.chunks_exact(BLOCK).any(|block| {
        let (mut digit, mut letter, mut space, mut punct) = (false, false, false, false);
        for &b in block {
            let wild = b >= 0x80 || b == b'\n' || b == b'\r' || b == b'/';
            let is_digit = b.is_ascii_digit();
            let is_letter = b.is_ascii_alphabetic();
            let is_space = matches!(b, b' ' | b'\t' | 0x0b | 0x0c);
            digit |= is_digit;
            letter |= is_letter;
            space |= is_space;
            punct |= !(wild | is_digit | is_letter | is_space);
        }
        !digit && u8::from(letter) + u8::from(space) + u8::from(punct) <= 1
    })
}

/// The exact scan behind [`has_long_run`]: stretches of one kind, counted
/// byte by byte.
fn scan_long_run(bytes: &[u8]) -> bool {
    let mut kind = 0u8; // 0: none yet (only bytes of any kind so far)
    let mut len = 0usize;
    let mut wild = 0usize; // bytes of any kind at the end of the stretch
    for &b in bytes {
        let class = match b {
            0x80.. | b'\n' | b'\r' | b'/' => {
                len += 1;
                wild += 1;
                if len > STRETCH {
                    return true;
                }
                continue;
            }
            b'0'..=b'9' => {
                (kind, len, wild) = (0, 0, 0);
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' => 1,
            b' ' | b'\t' | 0x0b | 0x0c => 2,
            _ => 3,
        };
        if kind == 0 || kind == class {
            len += 1;
        } else {
            // The bytes of any kind just before may belong to the new
            // stretch.
            len = wild + 1;
        }
        kind = class;
        wild = 0;
        if len > STRETCH {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Texts of a few kinds of bytes, in runs long and short, so that
        // long runs are common and fall at every offset of the blocks.
        #[test]
        fn the_quick_pass_agrees_with_the_scan(
            runs in proptest::collection::vec(("[a! 1é\n/]", 1..90usize), 0..12)
        ) {
            let text: String = runs.iter().map(|(c, n)| c.repeat(*n)).collect();
            prop_assert_eq!(has_long_run(text.as_bytes()), scan_long_run(text.as_bytes()));
        }
    }

    #[test]
    fn ordinary_json_has_no_long_run() {
        let body = r#"[{"id":"5f0c7a8e-2b1d-4c3e-9f6a-1b2c3d4e5f60","title":"Weekly sync","at":"2025-06-02T09:30:00Z","note":"会议改到星期五下午"}]"#;
        assert!(!has_long_run(body.as_bytes()));
        let pretty = "{\n    \"a\": {\n        \"b\": [\n            1\n        ]\n    }\n}";
        assert!(!has_long_run(pretty.as_bytes()));
    }

    #[test]
    fn long_runs_of_each_kind_are_found() {
        for run in ["a", " ", "!", "\n", "/\n", "用", "\u{3000}"] {
            let text = format!("1{}1", run.repeat(LONG_RUN));
            assert!(has_long_run(text.as_bytes()), "{run:?}");
        }
        // Non-ASCII bytes between two kinds join the second stretch.
        let mixed = format!("{}{}", "é".repeat(LONG_RUN / 4), "!".repeat(LONG_RUN / 2));
        assert!(has_long_run(mixed.as_bytes()));
    }

    #[test]
    fn the_quick_pass_never_hides_a_long_run() {
        // Every stretch just long enough, at every offset against the
        // blocks, with bytes of any kind at either end and inside.
        let stretches = [
            "a".repeat(STRETCH + 1),
            " ".repeat(STRETCH + 1),
            "!".repeat(STRETCH + 1),
            "é".repeat(STRETCH),
            format!("\n\n{}", "ab/".repeat(STRETCH / 3 + 1)),
            format!("{}{}", "é".repeat(20), "!".repeat(STRETCH - 30)),
        ];
        for stretch in &stretches {
            for offset in 0..BLOCK {
                let text = format!("{}{stretch}1{}", "1".repeat(offset), "a1".repeat(20));
                assert_eq!(
                    has_long_run(text.as_bytes()),
                    scan_long_run(text.as_bytes()),
                    "{offset}: {stretch:?}"
                );
                assert!(scan_long_run(text.as_bytes()), "{offset}: {stretch:?}");
            }
        }
        // Ordinary JSON and prose are ruled out by the quick pass alone.
        let json = r#"{"id":"ord_00012","status":"shipped","customer":{"name":"Maple Delta"}},"#;
        assert!(!may_have_long_run(json.repeat(50).as_bytes()));
        let prose = "The meeting moved to Friday afternoon, after the review. ";
        assert!(!may_have_long_run(prose.repeat(50).as_bytes()));
    }

    #[test]
    fn digits_break_runs() {
        let text = "aaaaaaaaaa1".repeat(100);
        assert!(!has_long_run(text.as_bytes()));
    }

    #[test]
    fn one_non_ascii_character_anywhere_around_the_blocks() {
        // ASCII text is counted 64 bytes at a time; the same text with one
        // character beyond ASCII at any offset around the first blocks'
        // edges takes the other way, and both agree with `tiktoken`.
        let json = r#"{"id":"ord_00012","status":"shipped","n":12345,"it's":"x y"},"#.repeat(4);
        for c in ["é", "用", "\u{a0}", "😀"] {
            for at in (0..=json.len().min(140)).filter(|&at| json.is_char_boundary(at)) {
                let text = format!("{}{c}{}", &json[..at], &json[at..]);
                assert_eq!(exact(&text), tiktoken().count(&text), "{text:?}");
            }
        }
        assert_eq!(exact(&json), tiktoken().count(&json));
    }

    #[test]
    fn limits_fall_in_ascii_parts_and_in_the_others() {
        // ASCII rows and rows with names beyond ASCII, and a long run beyond
        // ASCII: a limit anywhere stops the count, in whichever part it
        // falls, and the count at the limit is the whole count.
        let ascii = r#"{"id":"ord_00012","name":"Maple Delta","n":12},"#;
        let mixed = r#"{"id":"ord_00013","name":"José Núñez","city":"東京"},"#;
        let text = format!(
            "{}{mixed}{}{}{ascii}",
            ascii.repeat(3),
            ascii.repeat(2),
            "é".repeat(100)
        );
        let count = tiktoken().count(&text);
        assert_eq!(exact(&text), count);
        assert_eq!(exact_till(&text, count), Some(count));
        for limit in 0..count {
            assert_eq!(exact_till(&text, limit), None, "{limit}");
        }
    }

    #[test]
    fn both_counters_agree_on_long_and_short_pieces() {
        for text in [
            "a".repeat(5000),
            " ".repeat(3000) + "x",
            "!".repeat(2000) + "\n\n/",
            "用户".repeat(700),
            format!("{{\"key\": \"{}\"}}", "ab".repeat(400)),
            "hello world".to_owned(),
        ] {
            assert_eq!(
                linear().count(text.as_str()),
                tiktoken().count(&text),
                "{text:.40}"
            );
            assert_eq!(exact(&text), tiktoken().count(&text));
            let count = exact(&text);
            assert_eq!(exact_till(&text, count), Some(count));
            assert_eq!(exact_till(&text, count + 1), Some(count));
            assert_eq!(exact_till(&text, count - 1), None);
        }
    }
}
