//! Newline-delimited JSON-RPC (MCP's stdio transport), split as it streams
//! with a bound on what is held.
//!
//! At most `limit` bytes of one line are held: a line that grows past them
//! is handed on as it comes, unchanged, up to and with its newline, so a
//! 20 MB message costs the proxy no more memory than a 1 MB one.

/// One piece of the stream, in order; see [`Lines`].
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A whole line within the limit, without its `\n`: a message to read
    /// (and maybe rewrite); write it back followed by `\n`.
    Line(&'a [u8]),
    /// Bytes to send on exactly as they are: part of a line past the limit
    /// (the last part ends with its `\n`), or an unterminated tail at the
    /// end of the stream.
    Pass(&'a [u8]),
}

/// Splits a byte stream into lines of at most `limit` bytes.
///
/// ```
/// use tower_terse::mcp::{Lines, Piece};
///
/// let mut lines = Lines::new(8);
/// let mut seen = Vec::new();
/// lines.feed(b"{\"a\":1}\n{\"long\":\"message\"}\n{\"b\"", &mut |piece| {
///     seen.push(match piece {
///         Piece::Line(line) => format!("line {}", String::from_utf8_lossy(line)),
///         Piece::Pass(bytes) => format!("pass {}", String::from_utf8_lossy(bytes)),
///     })
/// });
/// lines.finish(&mut |piece| assert_eq!(piece, Piece::Pass(b"{\"b\"")));
/// assert_eq!(seen, ["line {\"a\":1}", "pass {\"long\":\"message\"}\n"]);
/// ```
#[derive(Debug)]
pub struct Lines {
    held: Vec<u8>,
    limit: usize,
    /// Sending an over-limit line through up to its end.
    passing: bool,
}

impl Lines {
    /// A splitter that holds at most `limit` bytes of a line.
    pub fn new(limit: usize) -> Self {
        Lines {
            held: Vec::new(),
            limit,
            passing: false,
        }
    }

    /// Whether part of a line past the limit is being passed on.
    pub fn passing(&self) -> bool {
        self.passing
    }

    /// Feeds `data`; `out` gets each piece it completes, in order.
    pub fn feed(&mut self, data: &[u8], out: &mut dyn FnMut(Piece<'_>)) {
        let mut rest = data;
        while !rest.is_empty() {
            let newline = rest.iter().position(|&b| b == b'\n');
            if self.passing {
                let end = newline.map_or(rest.len(), |i| i + 1);
                out(Piece::Pass(&rest[..end]));
                self.passing = newline.is_none();
                rest = &rest[end..];
                continue;
            }
            let Some(i) = newline else {
                if self.held.len().saturating_add(rest.len()) > self.limit {
                    self.pass_held(out);
                    out(Piece::Pass(rest));
                    self.passing = true;
                } else {
                    self.held.extend_from_slice(rest);
                }
                return;
            };
            let line = &rest[..i];
            if self.held.len().saturating_add(line.len()) > self.limit {
                self.pass_held(out);
                out(Piece::Pass(&rest[..=i]));
            } else if self.held.is_empty() {
                out(Piece::Line(line));
            } else {
                self.held.extend_from_slice(line);
                let held = std::mem::take(&mut self.held);
                out(Piece::Line(&held));
                // Keep the allocation for the next line.
                self.held = held;
                self.held.clear();
            }
            rest = &rest[i + 1..];
        }
    }

    /// The stream ended: an unterminated tail goes on as it is.
    pub fn finish(&mut self, out: &mut dyn FnMut(Piece<'_>)) {
        self.pass_held(out);
        self.passing = false;
    }

    fn pass_held(&mut self, out: &mut dyn FnMut(Piece<'_>)) {
        if !self.held.is_empty() {
            out(Piece::Pass(&self.held));
            self.held.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(limit: usize, chunks: &[&[u8]]) -> Vec<(bool, Vec<u8>)> {
        let mut lines = Lines::new(limit);
        let mut out = Vec::new();
        let mut push = |piece: Piece<'_>| match piece {
            Piece::Line(line) => out.push((true, line.to_vec())),
            Piece::Pass(bytes) => out.push((false, bytes.to_vec())),
        };
        for chunk in chunks {
            lines.feed(chunk, &mut push);
        }
        lines.finish(&mut push);
        out
    }

    #[test]
    fn lines_split_across_chunks_come_whole() {
        assert_eq!(
            split(16, &[b"ab", b"c\nde", b"f\n\n"]),
            [
                (true, b"abc".to_vec()),
                (true, b"def".to_vec()),
                (true, Vec::new())
            ]
        );
    }

    #[test]
    fn a_line_past_the_limit_passes_unchanged_and_the_next_is_read() {
        let out = split(4, &[b"abc", b"defg", b"hi\nok\n"]);
        let passed: Vec<u8> = out
            .iter()
            .filter(|(line, _)| !line)
            .flat_map(|(_, bytes)| bytes.clone())
            .collect();
        assert_eq!(passed, b"abcdefghi\n");
        assert_eq!(out.last(), Some(&(true, b"ok".to_vec())));
        // A whole line in one chunk, past the limit.
        assert_eq!(split(2, &[b"abc\n"]), [(false, b"abc\n".to_vec())]);
    }

    #[test]
    fn every_byte_comes_out_once_in_order() {
        let input: Vec<u8> = (0..200u8)
            .map(|i| if i % 7 == 0 { b'\n' } else { i })
            .collect();
        for limit in [0, 1, 3, 6, 50] {
            for size in [1, 2, 5, 64] {
                let chunks: Vec<&[u8]> = input.chunks(size).collect();
                let mut joined = Vec::new();
                for (line, bytes) in split(limit, &chunks) {
                    joined.extend_from_slice(&bytes);
                    if line {
                        joined.push(b'\n');
                    }
                }
                assert_eq!(joined, input, "limit {limit}, chunks of {size}");
            }
        }
    }
}
