//! The `lines` of a compact envelope, written as JSON while they render, and
//! JSON string writing for them.

use crate::scan;

/// The JSON array of an envelope's lines, written onto the end of the
/// envelope's text as each line renders.
///
/// A line the layer's own code writes (a template's) is written straight
/// into the envelope's text, between its quotes, and escaped there in the
/// rare case it has to be: one copy of each value, not a second of the
/// whole line. A line written by other code (a [`CompactLine`] type's own
/// `write_line`, which is handed a `String` to append to) goes into a
/// buffer of its own, reused from line to line, so that code never sees
/// the envelope; it is copied into the text when it is done.
///
/// [`CompactLine`]: super::CompactLine
#[derive(Debug)]
pub(crate) struct LineArray {
    /// The envelope so far, ending with the lines written up to now (and,
    /// while a line is written in place, the start of that line).
    json: String,
    /// The line being written by other code.
    line: String,
    /// Where the line being written starts in `json`: before its comma
    /// (the text to go back to when it does not fit), and just past its
    /// opening quote (its own text, for a line written in place).
    at: (usize, usize),
    /// Whether the line being written is written in place.
    in_place: bool,
    count: usize,
    /// The most bytes `json` may reach.
    limit: usize,
}

/// The lines would make the envelope larger than its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverLimit;

impl LineArray {
    /// An empty envelope text with room for `head` bytes before the lines
    /// and `count` lines of a typical length after them (the first line
    /// adjusts it; see [`finish`](Self::finish)), so writing the head does
    /// not make it grow.
    pub(crate) fn buffer(head: usize, count: usize) -> String {
        String::with_capacity(head + count.saturating_mul(128).min(1 << 20))
    }

    /// Starts the array (`[`) at the end of `json`; the text may grow to
    /// `limit` bytes.
    pub(crate) fn open(mut json: String, limit: usize) -> Self {
        json.push('[');
        LineArray {
            json,
            line: String::new(),
            at: (0, 0),
            in_place: false,
            count: 0,
            limit,
        }
    }

    /// The buffer to write the next line onto: the envelope's text itself,
    /// the line's opening quote written, when `in_place` (for a writer that
    /// only appends), else an empty buffer of its own. Call
    /// [`finish`](Self::finish) when the line is written.
    #[inline]
    pub(crate) fn start(&mut self, in_place: bool) -> &mut String {
        self.in_place = in_place;
        if !in_place {
            self.line.clear();
            if self.line.capacity() == 0 {
                self.line.reserve(256);
            }
            return &mut self.line;
        }
        let before = self.json.len();
        if self.count > 0 {
            self.json.push(',');
        }
        self.json.push('"');
        self.at = (before, self.json.len());
        &mut self.json
    }

    /// Adds the line written since [`start`](Self::start) to the array,
    /// escaped for JSON where it needs it; `verbatim` when the writer knows
    /// it needs none (no `"`, `\` or control byte), so it is not looked
    /// at. After the first line, room is made for `more` lines like it,
    /// each with `beside` bytes of what the envelope writes after the lines
    /// (its id), so the envelope grows once rather than doubling its way up
    /// (copying all lines each time).
    ///
    /// The room made never goes past the bound, so one long first line
    /// followed by many short ones does not reserve its length times their
    /// number; and a line that would take the text past the bound is not
    /// added (the text is as it was before the line).
    #[inline(always)]
    pub(crate) fn finish(
        &mut self,
        verbatim: bool,
        more: usize,
        beside: usize,
    ) -> Result<(), OverLimit> {
        let line_len = if self.in_place {
            self.close_in_place(verbatim)?
        } else {
            self.copy_line(verbatim)?;
            self.line.len()
        };
        self.count += 1;
        if self.count == 1 {
            self.make_room(line_len, more, beside);
        }
        Ok(())
    }

    /// Room for `more` lines like the first (`line` bytes long), each with
    /// `beside` bytes after the lines: a quarter more than the first line,
    /// for lines that run longer; nothing happens when the first guess was
    /// room enough.
    #[inline(never)]
    fn make_room(&mut self, line: usize, more: usize, beside: usize) {
        let line = line + 3;
        let per_record = line + line / 4 + beside;
        let wanted = per_record.saturating_mul(more).saturating_add(beside);
        let room = self.limit.saturating_sub(self.json.len());
        self.json.reserve(wanted.min(room));
    }

    /// Ends the line written in place: escapes it where it needs it and
    /// writes its closing quote; returns its length as written. A line
    /// that ends past the bound is taken back out.
    #[inline]
    fn close_in_place(&mut self, verbatim: bool) -> Result<usize, OverLimit> {
        let (before, mark) = self.at;
        // A writer of our own only appends; were the text shorter than where
        // the line started, the line is empty rather than a panic.
        let start = mark.min(self.json.len());
        if verbatim {
            debug_assert!(find_json_special(&self.json.as_bytes()[start..]).is_none());
        } else {
            self.escape_in_place(start)?;
        }
        self.json.push('"');
        // As a copied line is bounded: its text, then one byte (the next
        // comma, or the closing `]`) past the first line's.
        if self.json.len() + usize::from(self.count == 0) > self.limit {
            self.json.truncate(before);
            return Err(OverLimit);
        }
        Ok(self.json.len() - start - 1)
    }

    /// Escapes for JSON what the line written in place from `start` holds.
    #[inline(never)]
    fn escape_in_place(&mut self, start: usize) -> Result<(), OverLimit> {
        let Some(at) = find_json_special(&self.json.as_bytes()[start..]) else {
            return Ok(());
        };
        // `at` is an ASCII byte, so a character boundary. Escaping may
        // sextuple a byte: checked before it is done, so the text never
        // grows far past the bound.
        let raw = &self.json[start + at..];
        if start + at + json_string_len(raw) - 1 + usize::from(self.count == 0) > self.limit {
            self.json.truncate(self.at.0);
            return Err(OverLimit);
        }
        let raw = self.json.split_off(start + at);
        write_json_string_inner(&mut self.json, &raw);
        Ok(())
    }

    /// Copies the line written in its own buffer into the array.
    #[inline(never)]
    fn copy_line(&mut self, verbatim: bool) -> Result<(), OverLimit> {
        // Escaping at most sextuples a byte (`\u001f`); checked before
        // copying so the text never grows past the bound.
        let worst = match verbatim {
            true => self.line.len().saturating_add(3),
            false => self.line.len().saturating_mul(6).saturating_add(3),
        };
        if self.json.len().saturating_add(worst) > self.limit
            && self.json.len() + json_string_len(&self.line) + 1 > self.limit
        {
            return Err(OverLimit);
        }
        if self.count > 0 {
            self.json.push(',');
        }
        if verbatim {
            debug_assert!(find_json_special(self.line.as_bytes()).is_none());
            self.json.push('"');
            self.json.push_str(&self.line);
            self.json.push('"');
        } else {
            write_json_string(&mut self.json, &self.line);
        }
        Ok(())
    }

    /// Closes the array (`]`) and gives back the envelope's text.
    pub(crate) fn close(mut self) -> String {
        self.json.push(']');
        self.json
    }
}

/// Appends `text` to `out`, as `push_str` does. Most of what a line is made
/// of (a template's text between placeholders, a value, an id) is 16 bytes
/// or fewer: such a text is copied in at most two overlapping moves of a
/// word (or half word, or byte), with no call to `memcpy`, whose call, with
/// what the caller keeps around it, cost more than the copy. Longer text
/// goes to `push_str`.
#[inline(always)]
pub(crate) fn push_short(out: &mut String, text: &str) {
    let n = text.len();
    if n > 16 {
        out.push_str(text);
        return;
    }
    out.reserve(16);
    // SAFETY: `reserve(16)` leaves room for 16 bytes past the text, where
    // `copy_short` writes all `n` bytes of `text`, whole, so the new
    // length covers initialised bytes and the text stays UTF-8.
    #[allow(unsafe_code)]
    unsafe {
        let vec = out.as_mut_vec();
        let start = vec.len();
        copy_short(text, vec.as_mut_ptr().add(start));
        vec.set_len(start + n);
    }
}

/// Copies `text` (at most 16 bytes) to `dst` in at most two overlapping
/// moves of a word (or half word), or up to three bytes one by one, and
/// says whether it holds no byte of 0x7F or above, tested on the moved
/// words (a caller that does not ask has the test compiled away).
///
/// # Safety
///
/// `text` is at most 16 bytes, and `dst` is valid for writes of its
/// length.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn copy_short(text: &str, dst: *mut u8) -> bool {
    // Bit 7 of a byte is set when it is 0x80 or above, or when its low
    // seven bits plus one carry into it (0x7F); no carry crosses bytes.
    let flag = |word: u64| {
        ((word & scan::splat(0x7f)).wrapping_add(scan::splat(1)) | word) & scan::splat(0x80)
    };
    let (n, src) = (text.len(), text.as_ptr());
    // SAFETY: every move reads within `text` (`n` bytes) and writes within
    // `n` bytes from `dst`, which the caller has made valid.
    unsafe {
        match n {
            8..=16 => {
                let first = std::ptr::read_unaligned(src.cast::<u64>());
                let last = std::ptr::read_unaligned(src.add(n - 8).cast::<u64>());
                std::ptr::write_unaligned(dst.cast::<u64>(), first);
                std::ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), last);
                flag(first) | flag(last) == 0
            }
            4..=7 => {
                let first = std::ptr::read_unaligned(src.cast::<u32>());
                let last = std::ptr::read_unaligned(src.add(n - 4).cast::<u32>());
                std::ptr::write_unaligned(dst.cast::<u32>(), first);
                std::ptr::write_unaligned(dst.add(n - 4).cast::<u32>(), last);
                flag(u64::from(first) | u64::from(last) << 32) == 0
            }
            _ => {
                let mut plain = true;
                for i in 0..n {
                    let byte = *src.add(i);
                    plain &= byte < 0x7f;
                    *dst.add(i) = byte;
                }
                plain
            }
        }
    }
}

/// A text of at most 16 bytes held at the start of 16 bytes (zeros past
/// it), so that it is written with one move of 16 bytes and no branch on
/// its length: a template's own text between its placeholders is short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShortText {
    /// The text's bytes, then zeros. Only [`new`](Self::new) writes them,
    /// so the first `len` bytes are always whole UTF-8.
    bytes: [u8; 16],
    len: usize,
}

impl ShortText {
    /// `text`, when it is at most 16 bytes.
    pub(crate) fn new(text: &str) -> Option<Self> {
        let mut bytes = [0; 16];
        bytes
            .get_mut(..text.len())?
            .copy_from_slice(text.as_bytes());
        Some(ShortText {
            bytes,
            len: text.len(),
        })
    }

    /// Appends the text to `out`.
    #[inline(always)]
    pub(crate) fn push_onto(&self, out: &mut String) {
        out.reserve(16);
        // SAFETY: `reserve(16)` leaves room for the 16 bytes moved past
        // the text; the new length takes in only the first `len` of them
        // (`len` is at most 16), which are whole UTF-8 (see `bytes`), so
        // the text stays UTF-8.
        #[allow(unsafe_code)]
        unsafe {
            let vec = out.as_mut_vec();
            let start = vec.len();
            std::ptr::write_unaligned(vec.as_mut_ptr().add(start).cast::<[u8; 16]>(), self.bytes);
            vec.set_len(start + self.len.min(16));
        }
    }
}

/// [`push_short`] of a value's text that is written as it stands only when
/// it is at most 16 bytes and holds no byte of 0x7F or above (a string
/// that needed no escape in the body then breaks no line): the
/// bytes are tested as they are moved, with no pass of their own. Returns
/// whether it wrote them; when not, `out` is as it was.
#[inline(always)]
pub(crate) fn push_short_plain(out: &mut String, text: &str) -> bool {
    let n = text.len();
    if n > 16 {
        return false;
    }
    out.reserve(16);
    // SAFETY: `reserve(16)` leaves room for 16 bytes past the text, where
    // `copy_short` writes all `n` bytes of `text`; the length takes them
    // in only when they passed the test, and a text that did not leaves
    // the length as it was.
    #[allow(unsafe_code)]
    unsafe {
        let vec = out.as_mut_vec();
        let start = vec.len();
        let plain = copy_short(text, vec.as_mut_ptr().add(start));
        if plain {
            vec.set_len(start + n);
        }
        plain
    }
}

/// The length of `text` written as a JSON string by [`write_json_string`].
fn json_string_len(text: &str) -> usize {
    let escapes: usize = text
        .bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..0x20 => 5,
            _ => 0,
        })
        .sum();
    text.len() + escapes + 2
}

/// Writes `text` as a JSON string, escaped exactly as `serde_json` escapes.
///
/// Written here rather than through `serde_json` because the envelope's
/// lines are most of its bytes and almost never need an escape: this skips
/// eight bytes at a time to the next `"`, `\` or control byte and copies
/// whole runs, where `serde_json` looks up every byte in a table.
pub(crate) fn write_json_string(out: &mut String, text: &str) {
    out.push('"');
    write_json_string_inner(out, text);
    out.push('"');
}

/// [`write_json_string`] without the quotes.
fn write_json_string_inner(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = find_json_special(rest.as_bytes()) {
        // `at` is an ASCII byte, so both sides are whole characters.
        out.push_str(&rest[..at]);
        let b = rest.as_bytes()[at];
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// The offset of the first byte JSON escapes inside a string (`"`, `\` or a
/// control byte below 0x20), eight bytes at a time.
pub(crate) fn find_json_special(bytes: &[u8]) -> Option<usize> {
    scan::find(
        bytes,
        |word| {
            scan::bytes_equal(word, b'"') | scan::bytes_equal(word, b'\\') | scan::controls(word)
        },
        |b| b == b'"' || b == b'\\' || b < 0x20,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_plain_pushes_take_only_plain_text() {
        for len in 0..=20 {
            for at in 0..len.max(1) {
                for (byte, plain) in [(b'~', true), (0x7f, false), (0x1f, true)] {
                    let mut text = vec![b'a'; len];
                    if len > 0 {
                        text[at] = byte;
                    }
                    let text = String::from_utf8(text).unwrap();
                    let mut out = String::from("x");
                    let wrote = super::push_short_plain(&mut out, &text);
                    assert_eq!(wrote, len <= 16 && (plain || len == 0), "{text:?}");
                    let expected = if wrote {
                        format!("x{text}")
                    } else {
                        "x".to_owned()
                    };
                    assert_eq!(out, expected);
                }
            }
            let wide = "\u{e9}".repeat(len / 2);
            let mut out = String::new();
            assert_eq!(super::push_short_plain(&mut out, &wide), wide.is_empty());
        }
    }

    #[test]
    fn short_texts_copy_the_text_only() {
        for len in 0..=20 {
            let text: String = (0..len).map(|i| char::from(b'a' + i as u8)).collect();
            let short = super::ShortText::new(&text);
            assert_eq!(short.is_some(), len <= 16);
            let mut out = String::from("x");
            if let Some(short) = short {
                short.push_onto(&mut out);
                super::ShortText::new("\u{e9}").unwrap().push_onto(&mut out);
                assert_eq!(out, format!("x{text}\u{e9}"));
            }
        }
    }

    #[test]
    fn short_pushes_copy_every_length() {
        for len in 0..=40 {
            let text: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            let mut out = String::from("x");
            super::push_short(&mut out, &text);
            super::push_short(&mut out, "\u{e9}");
            assert_eq!(out, format!("x{text}\u{e9}"));
        }
    }

    use proptest::prelude::*;

    use super::*;

    /// Both ways of writing a line: in the envelope's text, and in a buffer
    /// of its own.
    const WAYS: [bool; 2] = [true, false];

    #[test]
    fn lines_keep_their_order_and_bounds() {
        for in_place in WAYS {
            let mut json = LineArray::buffer(9, 2);
            json.push_str("{\"lines\":");
            let mut lines = LineArray::open(json, usize::MAX);
            lines.start(in_place).push_str("+ a");
            lines.finish(false, 2, 0).unwrap();
            assert!(lines.json.capacity() >= 3 * 6);
            lines.start(in_place);
            lines.finish(false, 1, 0).unwrap();
            lines.start(in_place).push_str("c\"d\n");
            lines.finish(false, 0, 0).unwrap();
            lines.start(in_place).push_str("plain");
            lines.finish(true, 0, 0).unwrap();
            assert_eq!(lines.count, 4);
            assert_eq!(lines.close(), r#"{"lines":["+ a","","c\"d\n","plain"]"#);
        }
    }

    #[test]
    fn the_text_never_grows_past_its_bound() {
        for in_place in WAYS {
            // `["a","b"` is 8 bytes: a bound of 8 takes two lines, not a third.
            let mut lines = LineArray::open(String::new(), 8);
            lines.start(in_place).push('a');
            lines.finish(false, 1_000_000, 0).unwrap();
            assert!(
                lines.json.capacity() < 64,
                "room is made only up to the bound"
            );
            lines.start(in_place).push('b');
            lines.finish(false, 1, 0).unwrap();
            lines.start(in_place).push('c');
            assert_eq!(lines.finish(false, 0, 0), Err(OverLimit));
            assert_eq!(lines.close(), r#"["a","b"]"#);
        }
    }

    #[test]
    fn a_line_that_escapes_past_the_bound_is_taken_back() {
        for in_place in WAYS {
            // `["a"` then `,"\u0001"` is 13 bytes; the line fits unescaped.
            let mut lines = LineArray::open(String::new(), 12);
            lines.start(in_place).push('a');
            lines.finish(true, 1, 0).unwrap();
            lines.start(in_place).push('\u{1}');
            assert_eq!(lines.finish(false, 0, 0), Err(OverLimit));
            assert_eq!(lines.close(), r#"["a"]"#);
        }
    }

    #[test]
    fn one_long_first_line_does_not_reserve_for_every_record() {
        for in_place in WAYS {
            let mut lines = LineArray::open(String::new(), 1 << 20);
            lines.start(in_place).push_str(&"x".repeat(100_000));
            lines.finish(false, usize::MAX / 2, usize::MAX / 2).unwrap();
            assert!(lines.json.capacity() <= 1 << 21);
        }
    }

    proptest! {
        #[test]
        fn strings_are_escaped_like_serde_json(text in "(\\PC|[\\x00-\\x1f\"\\\\\\x7f]){0,40}") {
            let mut out = String::new();
            write_json_string(&mut out, &text);
            prop_assert_eq!(&out, &serde_json::to_string(&text).unwrap());
            for in_place in WAYS {
                let mut lines = LineArray::open(LineArray::buffer(0, 1), usize::MAX);
                lines.start(in_place).push_str(&text);
                lines.finish(false, 0, 0).unwrap();
                prop_assert_eq!(lines.close(), format!("[{out}]"));
            }
        }

        /// Lines written in place and lines copied make the same text, the
        /// same lines refused at the same bound.
        #[test]
        fn in_place_lines_are_the_copied_lines(
            texts in proptest::collection::vec("(\\PC|[\\x00-\\x1f\"\\\\]){0,12}", 0..6),
            limit in 0usize..80,
        ) {
            let run = |in_place: bool| {
                let mut lines = LineArray::open(String::new(), limit);
                let mut refused = Vec::new();
                for (i, text) in texts.iter().enumerate() {
                    lines.start(in_place).push_str(text);
                    let verbatim = find_json_special(text.as_bytes()).is_none();
                    if lines.finish(verbatim, texts.len() - i, 4).is_err() {
                        refused.push(i);
                        break;
                    }
                }
                (refused, lines.close())
            };
            prop_assert_eq!(run(true), run(false));
        }
    }
}
