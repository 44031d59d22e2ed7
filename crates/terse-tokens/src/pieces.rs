//! Exact counts with `tiktoken`, with the whitespace pieces taken out: the
//! way for text with bytes beyond ASCII (ASCII text has its own counter,
//! `ascii`).
//!
//! `tiktoken` splits text into pre-tokenizer pieces with hand-written ASCII
//! scanners, except where a piece is whitespace: a line break, the
//! indentation before a key. Those it hands to its regex, which costs
//! several times a scanned piece; TOON and pretty JSON have two such
//! pieces per line, and then the regex is most of the count. So this
//! module finds the whitespace pieces itself, where the rules of the
//! o200k_base pattern decide them from the ASCII bytes around them, counts
//! each through a small table (a document repeats a few: `"\n"`, its
//! indentation levels), and gives `tiktoken` only the text between them.
//!
//! Why the sum is the exact count: BPE runs on each piece alone, so a
//! text's tokens are the sum of its pieces' tokens; and the pattern (`…|
//! \s*[\r\n]+|\s+(?!\S)|\s+`) looks at most one character past a piece, so
//! the text from one piece boundary to another, counted alone, splits into
//! the same pieces as it does inside the whole. A whitespace run is cut out
//! only where it holds a line break and every byte that decides its pieces
//! is ASCII: the byte before
//! (a piece that ends in punctuation takes the line breaks right after it)
//! and the byte after (a letter takes one space or tab before it, a
//! punctuation mark one space). Anywhere else the run stays in the text
//! `tiktoken` counts. The differential test holds the result to
//! `bpe-openai`, and the unit tests to `tiktoken` counting the text whole.

use std::ops::Range;

/// Whitespace pieces this long or shorter are kept in [`Spaces`]; longer
/// ones (rare: deep indentation) are counted each time.
const KEY_MAX: usize = 31;
/// Slots of [`Spaces`]: a document has a handful of distinct whitespace
/// pieces (line breaks, a few indentation levels, CRLF variants).
const SLOTS: usize = 32;

/// A fixed table of whitespace pieces and their token counts, filled as
/// they are met: its size never depends on the input. A new piece takes
/// the slot of its hash, whatever was there.
pub(super) struct Spaces {
    slots: [Slot; SLOTS],
}

#[derive(Clone, Copy)]
struct Slot {
    /// The piece's length, 0 for an empty slot (no piece is empty).
    len: u8,
    key: [u8; KEY_MAX],
    tokens: u32,
}

impl Spaces {
    pub(super) fn new() -> Self {
        Self {
            slots: [Slot {
                len: 0,
                key: [0; KEY_MAX],
                tokens: 0,
            }; SLOTS],
        }
    }

    /// The tokens of the whitespace `piece`, counted by `encoding` the
    /// first time.
    fn count(&mut self, piece: &[u8], encoding: &tiktoken::CoreBpe) -> usize {
        let count = |piece: &[u8]| {
            // Whitespace is ASCII, so the piece is UTF-8.
            std::str::from_utf8(piece).map_or(0, |text| encoding.count(text))
        };
        if piece.len() > KEY_MAX {
            return count(piece);
        }
        let hash = piece.iter().fold(piece.len(), |h, &b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        let slot = &mut self.slots[hash % SLOTS];
        if usize::from(slot.len) == piece.len() && slot.key[..piece.len()] == *piece {
            return slot.tokens as usize;
        }
        let tokens = count(piece);
        slot.len = piece.len() as u8;
        slot.key[..piece.len()].copy_from_slice(piece);
        slot.tokens = u32::try_from(tokens).unwrap_or(u32::MAX);
        tokens
    }
}

/// ASCII whitespace, as the pattern's `\s` takes it below 0x80.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn is_break(b: u8) -> bool {
    matches!(b, b'\r' | b'\n')
}

/// ASCII punctuation as the pattern sees it: not whitespace, a letter or a
/// digit (control bytes included).
fn is_punct(b: u8) -> bool {
    b < 0x80 && !is_space(b) && !b.is_ascii_alphanumeric()
}

/// How the whitespace run `bytes[run]` splits into pieces, when the bytes
/// that decide it are ASCII: where the text before it ends (a piece
/// boundary), the whitespace pieces, and where the text after it starts.
/// `None` where a byte around it is not ASCII, or where there is no
/// whitespace piece to take out.
fn split(bytes: &[u8], run: Range<usize>) -> Option<(usize, [Range<usize>; 3], usize)> {
    let before = run.start.checked_sub(1).map(|i| bytes[i]);
    let after = bytes.get(run.end).copied();
    if before.is_some_and(|b| b >= 0x80) || after.is_some_and(|b| b >= 0x80) {
        return None;
    }
    // Punctuation takes the line breaks right after it (`[\r\n/]*`).
    let mut start = run.start;
    if before.is_some_and(is_punct) {
        while start < run.end && is_break(bytes[start]) {
            start += 1;
        }
    }
    // Up to the run's last line break, one piece (`\s*[\r\n]+`); the
    // spaces and tabs after it are the rest.
    let breaks = match bytes[start..run.end].iter().rposition(|&b| is_break(b)) {
        Some(last) => start..start + last + 1,
        None => start..start,
    };
    let rest = breaks.end..run.end;
    let empty = run.end..run.end;
    let (pieces, next) = match after {
        // At the end, the rest is one piece (`\s+(?!\S)`).
        None => ([breaks, rest, empty], run.end),
        Some(_) if rest.is_empty() => ([breaks, empty.clone(), empty], run.end),
        Some(next) => {
            let last = run.end - 1;
            // All but the last byte of the rest (`\s+(?!\S)`); the last
            // starts the word or punctuation after it, if it can.
            let head = rest.start..last;
            let joins = next.is_ascii_alphabetic() || (is_punct(next) && bytes[last] == b' ');
            if joins {
                ([breaks, head, empty], last)
            } else {
                ([breaks, head, last..run.end], run.end)
            }
        }
    };
    if pieces.iter().all(Range::is_empty) {
        return None;
    }
    Some((start, pieces, next))
}

/// The exact o200k_base count of `text` by `encoding`, or `None` once it
/// passes `limit`.
pub(super) fn count_till(
    text: &str,
    limit: usize,
    encoding: &tiktoken::CoreBpe,
    spaces: &mut Spaces,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut total = 0usize;
    // Start of the text not yet counted: always a piece boundary.
    let mut from = 0;
    let mut i = 0;
    // Only runs with a line break are taken out: those are the pieces
    // `tiktoken` sends to its regex on every line. A lone space before a
    // number (spaced JSON) costs it less than a cut, and single-line text
    // then costs one vectorized search for a line break, no more.
    while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
        let mut start = i + found;
        // The run is whitespace on both sides of the break; the text since
        // the last run ends in a byte that is not.
        while start > i && is_space(bytes[start - 1]) {
            start -= 1;
        }
        i += found;
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        let Some((end, pieces, next)) = split(bytes, start..i) else {
            continue;
        };
        // Both ends are piece boundaries at ASCII bytes, so char
        // boundaries too.
        total += text.get(from..end).map_or(0, |part| encoding.count(part));
        for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
            total += spaces.count(&bytes[piece], encoding);
        }
        if total > limit {
            return None;
        }
        from = next;
    }
    total += text.get(from..).map_or(0, |part| encoding.count(part));
    Some(total).filter(|&count| count <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoding() -> &'static tiktoken::CoreBpe {
        tiktoken::get_encoding("o200k_base").unwrap_or_else(|| unreachable!())
    }

    fn check(text: &str) {
        let mut spaces = Spaces::new();
        assert_eq!(
            count_till(text, usize::MAX, encoding(), &mut spaces),
            Some(encoding().count(text)),
            "{text:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        // Whitespace of every kind between every kind of ASCII byte, and a
        // few that are not ASCII (a letter, a no-break space, a dash).
        #[test]
        fn agrees_with_tiktoken_counting_the_text_whole(
            parts in proptest::collection::vec(
                "( |  |   |\t|\n|\r\n|\n\n| \n|\n  |\x0b|\x0c|a|Ab|'s|1|22|,|:|/|-|\"|é|\u{a0}|—|用)",
                0..30,
            )
        ) {
            let text: String = parts.concat();
            let mut spaces = Spaces::new();
            prop_assert_eq!(
                count_till(&text, usize::MAX, encoding(), &mut spaces),
                Some(encoding().count(&text))
            );
        }
    }

    #[test]
    fn documents_in_every_layout() {
        let toon = "data[2]:\n  - id: ord_1\n    status: paid\n    items[1]{sku,qty}:\n      A-1,2\n  - id: 7\n";
        let pretty = "{\n    \"a\": [\n        1,\n        \"x\"\n    ],\n\t\"b\": null\r\n}\n\n";
        for text in [
            toon, pretty, "", " ", "\n", "a\n", ",\n/x", "  1", "\t!", "x  \n  ",
        ] {
            check(text);
        }
    }

    #[test]
    fn stops_once_past_the_limit() {
        let text = "key: value\n  other: 12\n".repeat(50);
        let count = encoding().count(&text);
        let mut spaces = Spaces::new();
        assert_eq!(
            count_till(&text, count, encoding(), &mut spaces),
            Some(count)
        );
        assert_eq!(count_till(&text, count - 1, encoding(), &mut spaces), None);
        assert_eq!(count_till(&text, 3, encoding(), &mut spaces), None);
    }

    #[test]
    fn the_table_answers_repeated_pieces_and_long_ones() {
        let mut spaces = Spaces::new();
        let indent = b"        ";
        let first = spaces.count(indent, encoding());
        assert_eq!(spaces.count(indent, encoding()), first);
        let long = " ".repeat(KEY_MAX + 9);
        assert_eq!(
            spaces.count(long.as_bytes(), encoding()),
            encoding().count(&long)
        );
    }
}
