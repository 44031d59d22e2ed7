//! Keeping a rendered record on one line: finding and escaping the
//! characters that would break it.

use std::fmt::Write as _;

use crate::scan;

/// A control character, U+2028 or U+2029: what would break the line.
fn breaks_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// The byte offset of the first character of `text` that would break a
/// line (a control character, U+2028 or U+2029), if any.
///
/// This runs on every value and line, and almost always finds nothing, so
/// it skips eight bytes at a time past bytes that cannot start such a
/// character: only an ASCII control byte, 0x7F, 0xC2 (which starts the C1
/// controls U+0080 to U+009F) and 0xE2 (which starts U+2028 and U+2029) can.
/// Each of them starts a character (none is a continuation byte), so the
/// character there is the one to check.
fn find_break(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = scan::find(
        &bytes[at..],
        |word| {
            scan::controls(word)
                | scan::bytes_equal(word, 0x7f)
                | scan::bytes_equal(word, 0xc2)
                | scan::bytes_equal(word, 0xe2)
        },
        |b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2,
    ) {
        let i = at + found;
        if text[i..].chars().next().is_some_and(breaks_line) {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// Whether `text` holds no byte of 0x7F or above. A string that also holds
/// no control byte (one that needed no escape in JSON) then holds nothing
/// that breaks a line, and [`push_escaped`] would copy it as it is. Eight
/// bytes at a
/// time, one test per word: bit 7 of a byte is set when it is 0x80 or
/// above, or when its low seven bits plus one carry into it (0x7F); no
/// carry crosses into the next byte, so the test has no false alarm and
/// the words' flags are only gathered, not looked at one by one. The last
/// word overlaps the one before it (the bytes are read again, never past
/// the text); text shorter than a word is read as two overlapping halves,
/// or byte by byte below four bytes.
#[inline]
pub(super) fn is_ascii_below_del(text: &str) -> bool {
    let flag = |word: u64| {
        ((word & scan::splat(0x7f)).wrapping_add(scan::splat(1)) | word) & scan::splat(0x80)
    };
    let bytes = text.as_bytes();
    let n = bytes.len();
    let word = |at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|w| w.first_chunk::<8>())
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let half = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|w| w.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    };
    let flagged = match n {
        0..=3 => return bytes.iter().all(|&b| b < 0x7f),
        4..=7 => flag(half(0) | half(n - 4) << 32),
        _ => {
            let mut flagged = flag(word(n - 8));
            let mut at = 0;
            while at + 8 < n {
                flagged |= flag(word(at));
                at += 8;
            }
            flagged
        }
    };
    flagged == 0
}

/// Escapes what `out` holds from `mark` on, in place, when it would break
/// the line.
pub(crate) fn escape_from(mark: usize, out: &mut String) {
    if find_break(&out[mark..]).is_some() {
        let raw = out.split_off(mark);
        push_escaped(&raw, out);
    }
}

/// Writes `text` to `out`, escaping what would break the line (`\\n`,
/// `\\r`, `\\t`, `\\u{..}`).
pub(super) fn push_escaped(text: &str, out: &mut String) {
    let Some(first) = find_break(text) else {
        out.push_str(text);
        return;
    };
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if breaks_line(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{breaks_line, find_break, is_ascii_below_del};

    #[test]
    fn plain_text_is_ascii_without_del() {
        assert!(is_ascii_below_del(""));
        assert!(is_ascii_below_del("orbit beta <user0@example.com>"));
        assert!(!is_ascii_below_del("tab\x7f"));
        assert!(!is_ascii_below_del("0123456789abcdef\x7f"));
        assert!(!is_ascii_below_del("caf\u{e9}"));
        assert!(!is_ascii_below_del("\u{2028}........"));
        // Controls are plain here: they are JSON's to escape, and only
        // strings that needed no escape in the body take this path.
        assert!(is_ascii_below_del("\u{1}"));
    }

    #[test]
    fn plain_text_is_checked_at_every_length_and_position() {
        // The word, the overlapping last word, the two halves and the
        // bytes of short text each see every position of a byte at or
        // above DEL, and of one just below it.
        for len in 0..=33 {
            let mut text = vec![b'a'; len];
            assert!(is_ascii_below_del(std::str::from_utf8(&text).unwrap()));
            for at in 0..len {
                for (byte, plain) in [(0x7e, true), (0x7f, false)] {
                    text[at] = byte;
                    let text_str = std::str::from_utf8(&text).unwrap();
                    assert_eq!(is_ascii_below_del(text_str), plain, "{text_str:?}");
                }
                text[at] = b'a';
            }
            for at in 0..len.saturating_sub(1) {
                let mut wide = String::from_utf8(vec![b'a'; len]).unwrap();
                wide.replace_range(at..at + 2, "\u{e9}");
                assert!(!is_ascii_below_del(&wide), "{wide:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn plain_is_a_bytewise_test(text in "(\\PC|[\\x00-\\x7f]){0,40}") {
            prop_assert_eq!(is_ascii_below_del(&text), text.bytes().all(|b| b < 0x7f));
        }

        #[test]
        fn word_scan_finds_what_a_plain_scan_finds(text in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{2028}\\u{2029}]){0,40}") {
            let plain = text.char_indices().find(|&(_, c)| breaks_line(c)).map(|(i, _)| i);
            prop_assert_eq!(find_break(&text), plain);
        }
    }
}
