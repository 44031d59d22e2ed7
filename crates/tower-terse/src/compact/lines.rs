//! The `lines` of a compact envelope, written as JSON while they render, and
//! JSON string writing for them.

use crate::scan;

/// The JSON array of an envelope's lines, written onto the end of the
/// envelope's text as each line renders. A line renders into a buffer of its
/// own, reused from line to line (so code that writes a line never sees the
/// envelope), and is copied into the JSON at once, while it is still in the
/// cache, escaped only when it has to be.
#[derive(Debug)]
pub(crate) struct LineArray {
    /// The envelope so far, ending with the lines written up to now.
    json: String,
    /// The line being written.
    line: String,
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
            line: String::with_capacity(256),
            count: 0,
            limit,
        }
    }

    /// The buffer to write the next line onto, empty; call
    /// [`finish`](Self::finish) when the line is written.
    pub(crate) fn start(&mut self) -> &mut String {
        self.line.clear();
        &mut self.line
    }

    /// Adds the line written since [`start`](Self::start) to the array,
    /// escaped for JSON where it needs it; `verbatim` when the writer knows
    /// it needs none (no `"`, `\` or control byte), so it is copied whole
    /// without being looked at. After the first line, room is
    /// made for `more` lines like it, each with `beside` bytes of what the
    /// envelope writes after the lines (its id), so the envelope grows once
    /// rather than doubling its way up (copying all lines each time).
    ///
    /// The room made never goes past the bound, so one long first line
    /// followed by many short ones does not reserve its length times their
    /// number; and a line that would take the text past the bound is not
    /// added.
    pub(crate) fn finish(
        &mut self,
        verbatim: bool,
        more: usize,
        beside: usize,
    ) -> Result<(), OverLimit> {
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
        self.count += 1;
        if self.count == 1 {
            // A quarter more than the first line, for lines that run longer;
            // nothing happens when the first guess was room enough.
            let line = self.line.len() + 3;
            let per_record = line + line / 4 + beside;
            let wanted = per_record.saturating_mul(more).saturating_add(beside);
            let room = self.limit.saturating_sub(self.json.len());
            self.json.reserve(wanted.min(room));
        }
        Ok(())
    }

    /// Closes the array (`]`) and gives back the envelope's text.
    pub(crate) fn close(mut self) -> String {
        self.json.push(']');
        self.json
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
    out.push('"');
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
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn lines_keep_their_order_and_bounds() {
        let mut json = LineArray::buffer(9, 2);
        json.push_str("{\"lines\":");
        let mut lines = LineArray::open(json, usize::MAX);
        lines.start().push_str("+ a");
        lines.finish(false, 2, 0).unwrap();
        assert!(lines.json.capacity() >= 3 * 6);
        lines.start();
        lines.finish(false, 1, 0).unwrap();
        lines.start().push_str("c\"d\n");
        lines.finish(false, 0, 0).unwrap();
        assert_eq!(lines.count, 3);
        assert_eq!(lines.close(), r#"{"lines":["+ a","","c\"d\n"]"#);
    }

    #[test]
    fn the_text_never_grows_past_its_bound() {
        // `["a","b"` is 8 bytes: a bound of 8 takes two lines, not a third.
        let mut lines = LineArray::open(String::new(), 8);
        lines.start().push('a');
        lines.finish(false, 1_000_000, 0).unwrap();
        assert!(
            lines.json.capacity() < 64,
            "room is made only up to the bound"
        );
        lines.start().push('b');
        lines.finish(false, 1, 0).unwrap();
        lines.start().push('c');
        assert_eq!(lines.finish(false, 0, 0), Err(OverLimit));
        assert_eq!(lines.close(), r#"["a","b"]"#);
    }

    #[test]
    fn one_long_first_line_does_not_reserve_for_every_record() {
        let mut lines = LineArray::open(String::new(), 1 << 20);
        lines.start().push_str(&"x".repeat(100_000));
        lines.finish(false, usize::MAX / 2, usize::MAX / 2).unwrap();
        assert!(lines.json.capacity() <= 1 << 21);
    }

    proptest! {
        #[test]
        fn strings_are_escaped_like_serde_json(text in "(\\PC|[\\x00-\\x1f\"\\\\\\x7f]){0,40}") {
            let mut out = String::new();
            write_json_string(&mut out, &text);
            prop_assert_eq!(&out, &serde_json::to_string(&text).unwrap());
            let mut lines = LineArray::open(LineArray::buffer(0, 1), usize::MAX);
            lines.start().push_str(&text);
            lines.finish(false, 0, 0).unwrap();
            prop_assert_eq!(lines.close(), format!("[{out}]"));
        }
    }
}
