//! The text the emitter writes into, with an exact byte bound.
//!
//! Every write is checked before it lands: a write that would take the text
//! past the bound is dropped and marks the output as over the limit, so the
//! text never holds a byte past the bound, whatever one line or one string
//! holds. The check is one comparison per write, beside the capacity check
//! `String` makes anyway. The buffer grows by doubling, capped at the bound,
//! so its capacity never passes the bound either.

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

/// The emitter's output: a `String` that never grows past `limit` bytes.
pub(crate) struct Out {
    text: String,
    limit: usize,
    over: bool,
}

impl Out {
    /// An empty output that takes at most `limit` bytes, with room for
    /// `capacity` bytes (never more than `limit`) reserved up front.
    pub(crate) fn new(capacity: usize, limit: usize) -> Self {
        Out {
            text: String::with_capacity(capacity.min(limit)),
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
        (!self.over).then_some(self.text)
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
        // One byte, whatever `char::len_utf8` would work out.
        if self.text.len() == self.limit {
            self.over = true;
            return;
        }
        if self.text.len() == self.text.capacity() {
            self.grow(1);
        }
        // Masked to seven bits (a no-op for ASCII): the compiler then knows
        // the character takes one byte and skips the UTF-8 encoding.
        self.text.push(char::from(byte & 0x7f));
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
}

impl Sink for Out {
    #[inline]
    fn push_str(&mut self, text: &str) {
        // `len <= limit` always holds, so the subtraction cannot wrap.
        if text.len() > self.limit - self.text.len() {
            self.over = true;
            return;
        }
        if text.len() > self.text.capacity() - self.text.len() {
            self.grow(text.len());
        }
        self.text.push_str(text);
    }

    #[inline]
    fn push(&mut self, c: char) {
        let width = c.len_utf8();
        if width > self.limit - self.text.len() {
            self.over = true;
            return;
        }
        if width > self.text.capacity() - self.text.len() {
            self.grow(width);
        }
        self.text.push(c);
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
        assert_eq!(out.text, "abcde");
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
}
