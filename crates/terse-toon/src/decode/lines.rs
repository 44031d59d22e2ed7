//! The line cursor: splits the input into lines, drops comment and blank
//! lines (§5.1, §12) and measures indentation, one line at a time and without
//! allocating.

use super::fail::{Fail, PResult};

/// One significant (non-blank, non-comment) line, as byte offsets into the input.
#[derive(Debug, Clone, Copy)]
pub(super) struct Line {
    /// First byte after the indentation.
    pub content: usize,
    /// End of the content: the line terminator, a final CR and trailing
    /// spaces excluded. Always greater than `content`.
    pub end: usize,
    /// Indentation depth in levels.
    pub depth: usize,
    /// Start of the first blank line between the previous significant line
    /// and this one, if any (strict mode rejects those inside array spans).
    pub blank_before: Option<usize>,
}

/// Reads significant lines one by one, with one line of look-ahead.
pub(super) struct Lines<'a> {
    bytes: &'a [u8],
    /// Start of the next raw line not yet scanned.
    pos: usize,
    peeked: Option<Line>,
    indent_size: usize,
    strict: bool,
}

impl<'a> Lines<'a> {
    /// A cursor over `bytes`, starting at `start` (after any byte-order mark).
    pub fn new(bytes: &'a [u8], start: usize, indent_size: usize, strict: bool) -> Self {
        Lines {
            bytes,
            pos: start,
            peeked: None,
            indent_size,
            strict,
        }
    }

    /// The next significant line, without consuming it.
    #[inline]
    pub fn peek(&mut self) -> PResult<Option<Line>> {
        if self.peeked.is_none() {
            self.peeked = self.scan()?;
        }
        Ok(self.peeked)
    }

    /// Consumes the line last returned by [`peek`](Self::peek).
    #[inline]
    pub fn advance(&mut self) {
        self.peeked = None;
    }

    /// Scans raw lines until a significant one, checking its indentation.
    fn scan(&mut self) -> PResult<Option<Line>> {
        let bytes = self.bytes;
        let mut blank_before = None;
        while self.pos < bytes.len() {
            let start = self.pos;
            let newline = find_newline(bytes, start);
            self.pos = newline.map_or(bytes.len(), |n| n + 1);
            let mut end = newline.unwrap_or(bytes.len());
            if end > start && bytes[end - 1] == b'\r' {
                end -= 1;
            }

            let mut spaces = 0;
            while start + spaces < end && bytes[start + spaces] == b' ' {
                spaces += 1;
            }
            let mut content = start + spaces;
            if content < end && bytes[content] == b'#' {
                continue; // a comment line: gone before any other rule applies
            }
            // Tabs among the leading whitespace: an error in strict mode, one
            // indentation level each otherwise.
            let mut columns = spaces;
            let mut first_tab = None;
            while content < end && matches!(bytes[content], b' ' | b'\t') {
                if bytes[content] == b'\t' {
                    first_tab.get_or_insert(content);
                    columns += self.indent_size;
                } else {
                    columns += 1;
                }
                content += 1;
            }
            while end > content && bytes[end - 1] == b' ' {
                end -= 1;
            }
            if content == end {
                // A line of only spaces and tabs is blank, but strict mode
                // rejects a tab on it as it does in indentation (spec 4.2).
                if let (true, Some(tab)) = (self.strict, first_tab) {
                    return Err(Fail::new(
                        tab,
                        "tab on a blank line; indent with spaces only",
                    ));
                }
                blank_before.get_or_insert(start);
                continue;
            }
            if self.strict {
                if let Some(tab) = first_tab {
                    return Err(Fail::new(
                        tab,
                        "tab in indentation; indent with spaces only",
                    ));
                }
                if spaces % self.indent_size != 0 {
                    return Err(Fail::new(
                        content,
                        format!(
                            "indentation of {spaces} spaces is not a multiple of {}",
                            self.indent_size
                        ),
                    ));
                }
            }
            return Ok(Some(Line {
                content,
                end,
                depth: columns / self.indent_size,
                blank_before,
            }));
        }
        Ok(None)
    }
}

/// Offset of the next `\n` at or after `from`, eight bytes at a time.
#[inline]
fn find_newline(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut i = from;
    while i + 8 <= bytes.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i..i + 8]);
        let x = u64::from_le_bytes(word) ^ NEWLINES;
        // A zero byte in `x` marks a newline (classic SWAR zero-byte test).
        let found = x.wrapping_sub(ONES) & !x & HIGH;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    bytes[i..].iter().position(|&b| b == b'\n').map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::find_newline;

    #[test]
    fn finds_newlines_at_every_offset() {
        for len in 0..40 {
            for at in 0..len {
                let mut bytes = vec![b'x'; len];
                bytes[at] = b'\n';
                for from in 0..=len {
                    let expected = (from <= at).then_some(at);
                    assert_eq!(
                        find_newline(&bytes, from),
                        expected,
                        "len {len} at {at} from {from}"
                    );
                }
            }
        }
    }
}
