//! The `lines` of a compact envelope, and JSON string writing for them.

/// All lines in one buffer, each ending at its offset: one allocation for
/// the whole list rather than one per record.
#[derive(Debug, Default)]
pub(crate) struct Lines {
    text: String,
    ends: Vec<usize>,
}

impl Lines {
    /// Room for `count` lines of a typical length (the first line adjusts
    /// it; see [`finish`](Self::finish)).
    pub(crate) fn with_capacity(count: usize) -> Self {
        Lines {
            text: String::with_capacity(count.saturating_mul(128).min(1 << 20)),
            ends: Vec::with_capacity(count),
        }
    }

    /// The buffer to write the next line onto; call [`finish`](Self::finish)
    /// when it is written.
    pub(crate) fn start(&mut self) -> &mut String {
        &mut self.text
    }

    /// Ends the line written since the last one. After the first line,
    /// room is made for `more` lines like it, so the buffer grows once
    /// rather than doubling its way up (copying all lines each time).
    pub(crate) fn finish(&mut self, more: usize) {
        self.ends.push(self.text.len());
        if self.ends.len() == 1 {
            // A quarter more than the first line, for lines that run longer;
            // nothing happens when the first guess was room enough.
            let per_line = self.text.len() + self.text.len() / 4;
            self.text.reserve(per_line.saturating_mul(more));
        }
    }

    /// How many lines there are.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The bytes of all lines together.
    pub(crate) fn text_len(&self) -> usize {
        self.text.len()
    }

    /// The lines, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.text[start..end])
    }

    /// Writes the lines as a JSON array of strings.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        out.reserve(self.text.len() + 3 * self.ends.len() + 2);
        out.push(b'[');
        for (i, line) in self.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_json_string(out, line);
        }
        out.push(b']');
    }
}

/// Writes `text` as a JSON string, escaped exactly as `serde_json` escapes.
///
/// Written here rather than through `serde_json` because the envelope's
/// lines are most of its bytes and almost never need an escape: this skips
/// eight bytes at a time to the next `"`, `\` or control byte and copies
/// whole runs, where `serde_json` looks up every byte in a table.
pub(crate) fn write_json_string(out: &mut Vec<u8>, text: &str) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    out.push(b'"');
    let mut run = 0;
    let mut at = 0;
    while at < bytes.len() {
        if let Some(chunk) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let quote = word ^ (ONES * u64::from(b'"'));
            let backslash = word ^ (ONES * u64::from(b'\\'));
            let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS != 0;
            if !zero(quote) && !zero(backslash) && !zero(word & (ONES * 0xe0)) {
                at += 8;
                continue;
            }
        }
        let b = bytes[at];
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => {
                at += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[run..at]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(escape);
        }
        at += 1;
        run = at;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn lines_keep_their_order_and_bounds() {
        let mut lines = Lines::with_capacity(2);
        lines.start().push_str("+ a");
        lines.finish(2);
        assert!(lines.text.capacity() >= 3 * 3);
        lines.finish(1);
        lines.start().push_str("c\"d");
        lines.finish(0);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines.iter().collect::<Vec<_>>(), ["+ a", "", "c\"d"]);
        let mut out = Vec::new();
        lines.write_json(&mut out);
        assert_eq!(out, br#"["+ a","","c\"d"]"#);
    }

    proptest! {
        #[test]
        fn strings_are_escaped_like_serde_json(text in "(\\PC|[\\x00-\\x1f\"\\\\\\x7f]){0,40}") {
            let mut out = Vec::new();
            write_json_string(&mut out, &text);
            prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&text).unwrap());
        }
    }
}
