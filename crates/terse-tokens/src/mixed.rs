//! Where text with bytes beyond ASCII may be cut, so that its ASCII
//! stretches keep the ASCII counter (`ascii`) and only the parts around the
//! other bytes go to the general one.
//!
//! API JSON is mostly ASCII with a few names, places or emoji beyond it:
//! one `"José"` in a 14 KB document would otherwise send all of it the slow
//! way. So the text is cut into parts: around each byte beyond ASCII, from
//! the last cut before it to the first cut after it, a part for the general
//! counter (parts that close ranks merge), and between them ASCII parts.
//! Each part is counted alone and the counts summed.
//!
//! # The cut rule
//!
//! A position `p` is a cut ([`is_cut`]) when the bytes on both sides of it,
//! `a = text[p - 1]` and `b = text[p]`, are ASCII and either
//!
//! 1. `a` is a letter and `b` neither a letter, a digit nor an apostrophe;
//! 2. or one of `a`, `b` is a digit and the other is not, and `a` is a
//!    visible character (`!` to `~`: neither whitespace nor a control
//!    byte).
//!
//! Why counting the text before a cut and the text after it alone gives
//! the whole text's count: BPE runs on each pre-tokenizer piece alone, so
//! it is enough that the pieces of the two parts are the pieces of the
//! whole. That takes two facts.
//!
//! *A cut is a piece boundary of the whole text*, whatever the characters
//! around it beyond the two bytes. Only the letter alternatives
//! (`[^\r\n\p{L}\p{N}]?[…\p{M}]*[…\p{M}]+(?i:'s|…)?` and its twin) take a
//! letter, and their letter run goes on only over letters and marks (no
//! ASCII byte is a mark), then perhaps a contraction, which starts with an
//! apostrophe: so under rule 1 the piece that holds `a` ends at `p`. Only
//! `\p{N}{1,3}` takes a digit (the other alternatives exclude `\p{N}`), so
//! under rule 2 a piece of digits neither runs from `a` into `b` nor from
//! before `a` into `b`.
//!
//! *Each part, alone, splits as it does in the whole.* The pattern has no
//! look-behind, so the pieces from a boundary on depend only on the text
//! from there: the part after a cut starts its pieces as the whole does.
//! Before the cut, every piece of the whole ends at or before `p`, and the
//! matcher takes the first alternative (in the pattern's order) that
//! matches; cutting the text after `p` removes no match that ends by `p`,
//! and adds one only where a look-ahead past `p` changes its answer: the
//! only one is `\s+(?!\S)`, which at the end of the text matches a
//! whitespace run that ends at `p`. Both rules ask that `a` is not
//! whitespace, so no such run exists.
//!
//! Neither fact needs any distance from the bytes beyond ASCII: the rule
//! looks at the two bytes around the cut alone, and the unit tests hold it
//! to the pre-tokenizer on random text (every cut a boundary, each part
//! splitting as in the whole) besides the counts.
//!
//! Work is linear: each byte is read once looking for bytes beyond ASCII
//! and at most once more looking for the cuts around them.

use std::ops::Range;

/// An ASCII stretch shorter than this between two parts with bytes beyond
/// ASCII (or between such a part and an end of the text) is counted with
/// them: a part of its own would cost more than the few pieces it holds.
/// Small, since even a part of a few words costs less the ASCII way: on the
/// estimator's corpus in eleven languages, 8 took about a fifth fewer
/// instructions than 96, and a little fewer than 32.
const GAP: usize = 8;

/// Whether the text may be cut before `bytes[at]` (see the module's docs);
/// never at either end, where there is nothing to cut.
#[inline]
pub(super) fn is_cut(bytes: &[u8], at: usize) -> bool {
    let (Some(&a), Some(&b)) = (at.checked_sub(1).and_then(|i| bytes.get(i)), bytes.get(at)) else {
        return false;
    };
    if !a.is_ascii() || !b.is_ascii() {
        return false;
    }
    (a.is_ascii_alphabetic() && !(b.is_ascii_alphanumeric() || b == b'\''))
        || (a.is_ascii_digit() != b.is_ascii_digit() && a.is_ascii_graphic())
}

/// The first byte beyond ASCII at or after `at`.
#[inline]
fn non_ascii(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = bytes.get(at..)?;
    // Sixteen bytes at a time: `is_ascii` tests a word at a time, where a
    // search byte by byte would not be vectorized.
    let mut chunks = rest.chunks(16);
    let mut offset = at;
    chunks.find_map(|chunk| {
        let found = if chunk.is_ascii() {
            None
        } else {
            chunk
                .iter()
                .position(|&b| !b.is_ascii())
                .map(|i| offset + i)
        };
        offset += chunk.len();
        found
    })
}

/// The last cut in `floor + 1..at`, or `floor` when there is none.
fn cut_before(bytes: &[u8], floor: usize, at: usize) -> usize {
    (floor + 1..at)
        .rev()
        .find(|&p| is_cut(bytes, p))
        .unwrap_or(floor)
}

/// The first cut after `at`, or the end of the text when there is none.
fn cut_after(bytes: &[u8], at: usize) -> usize {
    (at + 1..bytes.len())
        .find(|&p| is_cut(bytes, p))
        .unwrap_or(bytes.len())
}

/// Calls `part(range, ascii)` for consecutive parts of `bytes` that cover
/// it, in order, each from a cut (or the start) to a cut (or the end);
/// `ascii` tells a part of ASCII bytes only. Returns `None` as soon as
/// `part` does.
pub(super) fn each_part(
    bytes: &[u8],
    mut part: impl FnMut(Range<usize>, bool) -> Option<()>,
) -> Option<()> {
    // Where the next ASCII part starts: a cut, or the start.
    let mut from = 0;
    // The part with bytes beyond ASCII being grown.
    let mut mixed: Option<Range<usize>> = None;
    let mut at = 0;
    while let Some(found) = non_ascii(bytes, at) {
        let floor = mixed.as_ref().map_or(from, |m| m.end);
        let mut start = cut_before(bytes, floor, found);
        if start - floor < GAP {
            start = floor;
        }
        let end = cut_after(bytes, found);
        mixed = Some(match mixed {
            Some(m) if start == m.end => m.start..end,
            Some(m) => {
                if from < m.start {
                    part(from..m.start, true)?;
                }
                from = m.end;
                part(m, false)?;
                start..end
            }
            None => start..end,
        });
        at = end;
    }
    let Some(mut m) = mixed else {
        return if bytes.is_empty() {
            Some(())
        } else {
            part(0..bytes.len(), true)
        };
    };
    if bytes.len() - m.end < GAP {
        m.end = bytes.len();
    }
    if from < m.start {
        part(from..m.start, true)?;
    }
    let end = m.end;
    part(m, false)?;
    if end < bytes.len() {
        part(end..bytes.len(), true)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoding() -> &'static tiktoken::CoreBpe {
        tiktoken::get_encoding("o200k_base").unwrap_or_else(|| unreachable!())
    }

    /// The o200k_base pre-tokenizer of `bpe-openai`, independent of the
    /// rule and of `tiktoken`.
    fn split(text: &str) -> Vec<&str> {
        bpe_openai::o200k_base().split(text).collect()
    }

    fn parts(text: &str) -> Vec<(Range<usize>, bool)> {
        let mut parts = Vec::new();
        let done = each_part(text.as_bytes(), |range, ascii| {
            parts.push((range, ascii));
            Some(())
        });
        assert_eq!(done, Some(()));
        parts
    }

    /// Every cut of `text` is a piece boundary of the whole text, the two
    /// sides split alone as the whole does, and their counts add up; the
    /// parts cover the text, end at cuts and are ASCII when they say so.
    fn check(text: &str) {
        let bytes = text.as_bytes();
        let whole = split(text);
        let mut boundaries = vec![0];
        for piece in &whole {
            boundaries.push(boundaries.last().copied().unwrap_or(0) + piece.len());
        }
        for p in (1..bytes.len()).filter(|&p| is_cut(bytes, p)) {
            assert!(boundaries.contains(&p), "{p} in {text:?}: {whole:?}");
            let (before, after) = text.split_at(p);
            let mut apart = split(before);
            apart.extend(split(after));
            assert_eq!(apart, whole, "cut at {p} of {text:?}");
            assert_eq!(
                encoding().count(before) + encoding().count(after),
                encoding().count(text),
                "cut at {p} of {text:?}"
            );
        }
        let mut next = 0;
        for (range, ascii) in parts(text) {
            assert_eq!(range.start, next, "{text:?}");
            assert!(range.start < range.end, "{text:?}");
            assert!(
                range.end == bytes.len() || is_cut(bytes, range.end),
                "{text:?}"
            );
            assert!(!ascii || bytes[range.clone()].is_ascii(), "{text:?}");
            next = range.end;
        }
        assert_eq!(next, bytes.len(), "{text:?}");
    }

    /// Units random texts are made of: ASCII JSON and the characters
    /// beyond ASCII that the pattern's classes tell apart.
    const UNITS: &str = "(\\{\"|\":\"|\",\"|\": |\"\\}|, |\n  |id|Name|It's|'s|'LL|'|ord_|12|7|2025-06-02|3\\.5| |  |\t|\n|/|-|!|a|Z|x|é|É|José|ß|\u{301}|e\u{301}|\u{a0}|\u{2003}|\u{3000}|\u{85}|用户|会议|カ|한|ह\u{94d}|ع|🎉|👩\u{200d}💻|🇪🇸|٣|²|½|Ⅻ|ſ|\u{212a}|’|—|€|\u{200b}|\u{feff})";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn cuts_are_boundaries_that_split_alone(
            units in proptest::collection::vec(UNITS, 0..40)
        ) {
            check(&units.concat());
        }
    }

    #[test]
    fn around_every_kind_of_character() {
        let chars = [
            "é",
            "\u{301}",
            "用",
            "🎉",
            "👩\u{200d}💻",
            "\u{a0}",
            "\u{3000}",
            "٣",
            "²",
            "ſ",
            "\u{212a}",
            "’",
        ];
        let contexts = [
            "a", "A", "1", "12", "1234", " ", "  ", "\n", "'", "'s", "\"", ",", "!!", "/", "x1",
        ];
        for c in chars {
            for before in contexts {
                for after in contexts {
                    for text in [
                        format!("{before}{c}{after}"),
                        format!("ab{before}{c}{after}9z"),
                        format!("9{before}{c}{c}{after}ab,"),
                    ] {
                        check(&text);
                    }
                }
            }
        }
    }

    #[test]
    fn one_name_leaves_the_rest_ascii() {
        let row = r#"{"id":"ord_00012","status":"shipped","name":"Maple Delta","n":12},"#;
        let text = format!("[{}{}]", row.repeat(20), row.replace("Delta", "Délta"));
        let parts = parts(&text);
        let mixed: usize = parts
            .iter()
            .filter(|(_, ascii)| !ascii)
            .map(|(range, _)| range.len())
            .sum();
        assert!(mixed < 2 * GAP + row.len(), "{parts:?}");
        assert_eq!(parts.iter().filter(|(_, ascii)| !ascii).count(), 1);
    }

    #[test]
    fn text_without_cuts_is_one_part() {
        for text in ["", "é", "Привет мир", "  é  ", "用户会议"] {
            let parts = parts(text);
            let expected: Vec<_> = (!text.is_empty())
                .then(|| (0..text.len(), text.is_ascii()))
                .into_iter()
                .collect();
            assert_eq!(parts, expected, "{text:?}");
        }
    }
}
