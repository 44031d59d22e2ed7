//! The text the emitter writes into, with an exact byte bound.
//!
//! Every write is checked before it lands: a write that would take the text
//! past the bound is dropped and marks the output as over the limit, so the
//! text never holds a byte past the bound, whatever one line or one string
//! holds. The check is one comparison per write, beside the room check.
//! The buffer grows by doubling, capped at the bound, so its capacity never
//! passes the bound either.

/// Something the number and string writers append text to: a plain `String`
/// (the document's side buffer) or the emitter's bounded [`Out`].
pub(crate) trait Sink {
    fn push_str(&mut self, text: &str);

    #[inline]
    fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }
}

impl Sink for String {
    #[inline]
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }

    #[inline]
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
}

/// A point of an [`Out`] to go back to.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    len: usize,
    over: bool,
}

/// Writes of at most this many bytes are copied a word or two at a time,
/// inline, when the buffer has this much room past the text.
const SHORT: usize = 16;

/// The emitter's output: text that never grows past `limit` bytes.
///
/// The text is kept as bytes, so that a short write (a key, a cell, a
/// number, most strings of API data) is a store of one fixed-width word
/// (the text's bytes and whatever follows, then cut back to the text)
/// rather than a call to `memcpy` through `String::push_str`: the emitter
/// makes one or two writes per value, and the call cost more than the copy.
/// The text is checked as UTF-8 once, at the end, which its ASCII fast path
/// does many bytes a step; every write is a whole `&str` or an ASCII byte,
/// so the check always passes.
pub(crate) struct Out {
    text: Vec<u8>,
    limit: usize,
    over: bool,
}

impl Out {
    /// An empty output that takes at most `limit` bytes, with room for
    /// `capacity` bytes (never more than `limit`) reserved up front.
    pub(crate) fn new(capacity: usize, limit: usize) -> Self {
        Out {
            text: Vec::with_capacity(capacity.min(limit)),
            limit,
            over: false,
        }
    }

    /// Whether a write was refused because it would have passed the limit.
    /// Once set, the text is incomplete and the caller should stop.
    #[inline]
    pub(crate) fn is_over(&self) -> bool {
        self.over
    }

    /// Whether nothing is written yet.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The text, or `None` when a write passed the limit.
    pub(crate) fn finish(self) -> Option<String> {
        if self.over {
            return None;
        }
        // Every write was a whole `&str` or an ASCII byte, so the text is
        // UTF-8; the lossy arm is never taken, and stands in for a panic.
        Some(
            String::from_utf8(self.text)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()),
        )
    }

    /// Where the output stands: a mark to [`rewind`](Self::rewind) to.
    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            len: self.text.len(),
            over: self.over,
        }
    }

    /// Takes back what was written since `mark` (one of this output's), a
    /// refused write included: the output is as it was at the mark.
    pub(crate) fn rewind(&mut self, mark: Mark) {
        self.text.truncate(mark.len);
        self.over = mark.over;
    }

    /// Appends one ASCII byte.
    #[inline]
    pub(crate) fn push_byte(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii());
        if self.text.len() == self.limit {
            self.over = true;
            return;
        }
        if self.text.len() == self.text.capacity() {
            self.grow(1);
        }
        // Masked to seven bits (a no-op for ASCII), so that the text stays
        // UTF-8 whatever a caller passes.
        self.text.push(byte & 0x7f);
    }

    /// Makes room for `additional` more bytes (the caller has checked the
    /// limit): doubling, but never past the limit.
    #[cold]
    fn grow(&mut self, additional: usize) {
        let len = self.text.len();
        let wanted = self
            .text
            .capacity()
            .saturating_mul(2)
            .max(len + additional)
            .max(64)
            .min(self.limit);
        self.text.reserve_exact(wanted - len);
    }

    /// [`push_str`](Sink::push_str) of a long text, or of one near the end
    /// of the room (the limit checked already).
    #[inline(never)]
    fn push_long(&mut self, text: &str) {
        if text.len() > self.text.capacity() - self.text.len() {
            self.grow(text.len());
        }
        self.text.extend_from_slice(text.as_bytes());
    }
}

/// `src` (at most [`SHORT`] bytes) at the start of a word, with two
/// overlapping copies of a fixed width: no call, no loop.
#[inline(always)]
fn short_word(src: &[u8]) -> [u8; SHORT] {
    let mut word = [0; SHORT];
    let n = src.len();
    match n {
        8..=SHORT => {
            word[..8].copy_from_slice(&src[..8]);
            word[n - 8..n].copy_from_slice(&src[n - 8..]);
        }
        4..=7 => {
            word[..4].copy_from_slice(&src[..4]);
            word[n - 4..n].copy_from_slice(&src[n - 4..]);
        }
        1..=3 => {
            word[0] = src[0];
            word[n / 2] = src[n / 2];
            word[n - 1] = src[n - 1];
        }
        _ => {}
    }
    word
}

impl Sink for Out {
    #[inline]
    fn push_str(&mut self, text: &str) {
        let (n, len) = (text.len(), self.text.len());
        // `len <= limit` always holds, so the subtraction cannot wrap.
        if n > self.limit - len {
            self.over = true;
            return;
        }
        if n <= SHORT && self.text.capacity() - len >= SHORT {
            // The whole word fits the room; the bytes past the text are
            // cut at once.
            self.text.extend_from_slice(&short_word(text.as_bytes()));
            self.text.truncate(len + n);
            return;
        }
        self.push_long(text);
    }

    #[inline]
    fn push(&mut self, c: char) {
        if c.is_ascii() {
            // `c` is below 0x80.
            self.push_byte(c as u8);
        } else {
            self.push_str(c.encode_utf8(&mut [0; 4]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_stop_at_the_limit_exactly() {
        let mut out = Out::new(1000, 5);
        out.push_str("abc");
        out.push_str("de");
        assert!(!out.is_over());
        out.push('f');
        assert!(out.is_over());
        assert!(out.text.capacity() <= 5);
        assert_eq!(out.text.as_slice(), b"abcde");
        assert_eq!(out.finish(), None);
    }

    #[test]
    fn capacity_never_passes_the_limit() {
        let mut out = Out::new(0, 100);
        for _ in 0..100 {
            out.push('x');
            assert!(out.text.capacity() <= 100);
        }
        assert_eq!(out.finish().map(|text| text.len()), Some(100));
    }

    #[test]
    fn short_and_long_writes_land_whole_at_every_offset() {
        // Every length around the inline copies' widths, after every
        // length of text before it, near the end of the room and past it.
        let source = "abcdefghijklmnopqrstuvwxyz0123456789é€ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        for capacity in [0, 20, 64] {
            for before in 0..40 {
                let Some(head) = source.get(..before) else {
                    continue;
                };
                for len in 0..=source.len() {
                    let Some(text) = source.get(..len) else {
                        continue;
                    };
                    let mut out = Out::new(capacity, 1000);
                    let mut expected = String::new();
                    for piece in [head, text, "-", text] {
                        out.push_str(piece);
                        expected.push_str(piece);
                    }
                    out.push('é');
                    out.push_byte(b'!');
                    expected.push_str("é!");
                    assert_eq!(out.finish().as_deref(), Some(expected.as_str()));
                }
            }
        }
    }

    #[test]
    fn a_rewind_takes_back_what_followed_the_mark() {
        let mut out = Out::new(4, 10);
        out.push_str("abc");
        let mark = out.mark();
        out.push_str("defghijk");
        assert!(out.is_over());
        out.rewind(mark);
        assert!(!out.is_over());
        out.push_str("xy");
        assert_eq!(out.finish().as_deref(), Some("abcxy"));
    }
}
