//! The text the emitter writes into, with an exact byte bound.
//!
//! Every write is checked before it lands: a write that would take the text
//! past the bound is dropped and marks the output as over the limit, so the
//! text never holds a byte past the bound, whatever one line or one string
//! holds. The buffer grows by doubling, capped at the bound (its
//! allocation too), so a short write that lands inside it needs no check
//! of the bound of its own.

/// Something the number and string writers append text to: a plain `String`
/// (the document's side buffer) or the emitter's bounded [`Out`].
pub(crate) trait Sink {
    fn push_str(&mut self, text: &str);

    /// Appends `text` in double quotes (text that needs no escape).
    #[inline]
    fn push_quoted(&mut self, text: &str) {
        self.push('"');
        self.push_str(text);
        self.push('"');
    }

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

/// Writes of at most this many bytes are stored as one fixed-width word,
/// inline, when the buffer has this much room past the text.
pub(crate) const SHORT: usize = 16;

/// Zeros to extend the buffer with as the text grows.
static ZEROS: [u8; 1024] = [0; 1024];

/// How many copies of [`ZEROS`] one [`Out::grow`] makes at most within the
/// room reserved.
const ZERO_STEPS: usize = 8;

/// The emitter's output: text that never grows past `limit` bytes.
///
/// The text is kept as bytes at the start of a buffer whose every byte is
/// initialised (zeros, or what a store past the text or a rewind left
/// there), with its own length beside it. A short write (a key, a cell, a
/// number, an indentation, most strings of API data) is then one store of
/// a fixed-width word at the text's end, checked once against the
/// buffer's length, and an addition to the length: no call to `memcpy`,
/// no second check of the room, no cut back of a vector's length. The
/// buffer is never longer than the limit, so a store that lands inside it
/// keeps the text within the limit without a check of its own. The text is
/// checked as UTF-8 once, at the end, which its ASCII fast path does many
/// bytes a step; every write is whole text (of a `&str`, or of the
/// document) or ASCII bytes, so the check always passes.
pub(crate) struct Out {
    /// The text (its first `len` bytes), then room; never longer than
    /// `limit`.
    buf: Vec<u8>,
    len: usize,
    limit: usize,
    over: bool,
}

impl Out {
    /// An empty output that takes at most `limit` bytes, with room for
    /// `capacity` bytes (never more than `limit`) reserved up front (and
    /// zeroed as the text reaches it).
    pub(crate) fn new(capacity: usize, limit: usize) -> Self {
        Out {
            buf: Vec::with_capacity(capacity.min(limit)),
            len: 0,
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
        self.len == 0
    }

    /// The text, or `None` when a write passed the limit.
    pub(crate) fn finish(mut self) -> Option<String> {
        if self.over {
            return None;
        }
        self.buf.truncate(self.len);
        // Every write was a whole `&str` or ASCII bytes, so the text is
        // UTF-8; the lossy arm is never taken, and stands in for a panic.
        Some(
            String::from_utf8(self.buf)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()),
        )
    }

    /// Where the output stands: a mark to [`rewind`](Self::rewind) to.
    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            len: self.len,
            over: self.over,
        }
    }

    /// Takes back what was written since `mark` (one of this output's), a
    /// refused write included: the output is as it was at the mark.
    pub(crate) fn rewind(&mut self, mark: Mark) {
        self.len = mark.len.min(self.len);
        self.over = mark.over;
    }

    /// Appends one ASCII byte.
    #[inline]
    pub(crate) fn push_byte(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii());
        // Masked to seven bits (a no-op for ASCII), so that the text stays
        // UTF-8 whatever a caller passes.
        match self.buf.get_mut(self.len) {
            Some(slot) => {
                *slot = byte & 0x7f;
                self.len += 1;
            }
            None => self.push_slow(&[byte & 0x7f]),
        }
    }

    /// Appends `bytes`: whole text (of a `&str`, or of the document a
    /// table's cell is read from), so that the text stays UTF-8.
    #[inline(always)]
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        if (8..=SHORT).contains(&bytes.len()) {
            self.push_halves(bytes);
        } else if bytes.len() < 8 {
            self.push_small(short_word(bytes) as u64, bytes.len());
        } else {
            self.push_two_words(bytes);
        }
    }

    /// Appends `lead` (an ASCII byte, when there is one) and then `bytes`
    /// (whole text): one store of a word when both fit one, a table's
    /// delimiter and the cell after it.
    #[inline(always)]
    pub(crate) fn push_bytes_led(&mut self, lead: Option<u8>, bytes: &[u8]) {
        match lead {
            Some(lead) if (8..=SHORT).contains(&bytes.len()) => {
                self.push_led_halves(lead, bytes);
            }
            Some(lead) if bytes.len() < 8 => {
                // Masked to seven bits, as `push_byte` does. At most seven
                // bytes, so the word shifted loses none of them.
                let word = ((short_word(bytes) as u64) << 8) | u64::from(lead & 0x7f);
                self.push_small(word, bytes.len() + 1);
            }
            Some(lead) => {
                self.push_byte(lead);
                self.push_two_words_inline(bytes);
            }
            None => self.push_bytes(bytes),
        }
    }

    /// Appends `lead` (an ASCII byte, when there is one) and then the `n`
    /// bytes (at most seven, whole text) in the low bytes of `word` (any
    /// bytes above, which land past the text), which the caller has put
    /// together or read in place: one store of a word.
    #[inline(always)]
    pub(crate) fn push_short_led(&mut self, lead: Option<u8>, word: u64, n: usize) {
        match lead {
            // Masked to seven bits, as `push_byte` does. At most seven
            // bytes, so the word shifted loses none of them.
            Some(lead) => {
                self.push_small((word << 8) | u64::from(lead & 0x7f), n + 1);
            }
            None => self.push_small(word, n),
        }
    }

    /// Appends `lead` (an ASCII byte, when there is one) and then `bytes`
    /// (whole text of 8 to [`SHORT`] bytes), whose length the caller has
    /// checked: the first and last eight bytes, without a look at the
    /// length again.
    #[inline(always)]
    pub(crate) fn push_mid_led(&mut self, lead: Option<u8>, bytes: &[u8]) {
        match lead {
            Some(lead) => self.push_led_halves(lead, bytes),
            None => self.push_halves(bytes),
        }
    }

    /// Appends `text` (whole text that needs no escape) in double quotes:
    /// one store of a word when the text and its quotes fit one.
    #[inline]
    pub(crate) fn push_quoted_bytes(&mut self, text: &[u8]) {
        let n = text.len();
        if n + 2 <= SHORT {
            // The opening quote and the text as one word (a shift by a
            // constant), or the text's first and last eight bytes past the
            // quote, then the closing quote as a byte of its own: the
            // closing quote put into the word took a shift of a `u128` by
            // a variable.
            let room = self.room::<SHORT>();
            let Some(room) = room else {
                self.push_quoted_slow(text);
                return;
            };
            match text.first_chunk::<8>().zip(text.last_chunk::<8>()) {
                Some((first, last)) => {
                    room[0] = b'"';
                    let (_, rest) = room.split_at_mut(1);
                    if let Some(head) = rest.first_chunk_mut::<8>() {
                        *head = *first;
                    }
                    if let Some(tail) = rest.get_mut(n - 8..n) {
                        tail.copy_from_slice(last);
                    }
                }
                None => {
                    // As its halves, as `push_word` stores a word.
                    let word = (short_word(text) << 8) | u128::from(b'"');
                    let (low, high) = room.split_at_mut(8);
                    low.copy_from_slice(&(word as u64).to_le_bytes());
                    high.copy_from_slice(&((word >> 64) as u64).to_le_bytes());
                }
            }
            if let Some(close) = room.get_mut(n + 1) {
                *close = b'"';
            }
            self.len += n + 2;
        } else {
            self.push_byte(b'"');
            self.push_bytes(text);
            self.push_byte(b'"');
        }
    }

    /// [`push_quoted_bytes`](Self::push_quoted_bytes) of a short text
    /// without a word's room past the text: the quotes and the text as one
    /// word, all of it or none. Out of the writer's way.
    #[cold]
    #[inline(never)]
    fn push_quoted_slow(&mut self, text: &[u8]) {
        let n = text.len().min(SHORT - 2);
        let quote = u128::from(b'"');
        let word = quote | (short_word(text) << 8) | (quote << (8 * (n + 1)));
        self.push_word(word, n + 2);
    }

    /// Appends `text` (whole text) and then `suffix` (a separator such as
    /// `": "`): one store of a word when both fit one, a key and its colon.
    #[inline(always)]
    pub(crate) fn push_bytes_then(&mut self, text: &[u8], suffix: &str) {
        let (n, m) = (text.len(), suffix.len());
        if n + m <= SHORT {
            // A text of a whole word has no room for a suffix (which is
            // then empty), and no shift of a whole word is asked for.
            let tail = short_word(suffix.as_bytes())
                .checked_shl(8 * n as u32)
                .unwrap_or(0);
            let word = short_word(text) | tail;
            self.push_word(word, n + m);
        } else {
            self.push_bytes(text);
            self.push_str(suffix);
        }
    }

    /// Appends `lead` (an ASCII byte) and then `bytes` (whole text of 8 to
    /// [`SHORT`] bytes) as the lead and two overlapping stores of eight
    /// bytes, the value's first and last eight: a text that long put
    /// together as one word took a shift of a `u128` by a variable, several
    /// instructions, and then a shift for the lead.
    #[inline(always)]
    fn push_led_halves(&mut self, lead: u8, bytes: &[u8]) {
        let n = bytes.len();
        let halves = bytes.first_chunk::<8>().zip(bytes.last_chunk::<8>());
        let room = self.room::<{ SHORT + 1 }>();
        match (halves, room) {
            (Some((first, last)), Some(room)) if n <= SHORT => {
                // Within the buffer, so within the limit. Masked to seven
                // bits, as `push_byte` does.
                room[0] = lead & 0x7f;
                let (_, text) = room.split_at_mut(1);
                if let Some(head) = text.first_chunk_mut::<8>() {
                    *head = *first;
                }
                if let Some(tail) = text.get_mut(n - 8..n) {
                    tail.copy_from_slice(last);
                }
                self.len += n + 1;
            }
            _ => self.push_led_slow(lead, bytes),
        }
    }

    /// [`push_led_halves`](Self::push_led_halves) without the room for
    /// both stores: as one word when both fit one (all of it lands or
    /// none, as [`push_bytes_led`](Self::push_bytes_led) does), else the
    /// lead and then the text. A call of its own, out of the writers'
    /// way: inlined, it made them slower.
    #[cold]
    #[inline(never)]
    fn push_led_slow(&mut self, lead: u8, bytes: &[u8]) {
        if bytes.len() < SHORT {
            let word = (short_word(bytes) << 8) | u128::from(lead & 0x7f);
            self.push_word(word, bytes.len() + 1);
        } else {
            self.push_byte(lead);
            self.push_bytes(bytes);
        }
    }

    /// Appends `bytes` (whole text of 8 to [`SHORT`] bytes) as two
    /// overlapping stores of eight bytes, as
    /// [`push_led_halves`](Self::push_led_halves) does without a lead.
    #[inline(always)]
    fn push_halves(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let halves = bytes.first_chunk::<8>().zip(bytes.last_chunk::<8>());
        let room = self.room::<SHORT>();
        match (halves, room) {
            (Some((first, last)), Some(room)) if n <= SHORT => {
                // Within the buffer, so within the limit.
                if let Some(head) = room.first_chunk_mut::<8>() {
                    *head = *first;
                }
                if let Some(tail) = room.get_mut(n - 8..n) {
                    tail.copy_from_slice(last);
                }
                self.len += n;
            }
            _ => self.push_slow(bytes),
        }
    }

    /// Appends `bytes` (whole text) of up to two words as two overlapping
    /// stores of a word (an e-mail address, a sentence of a few words)
    /// rather than a call to `memcpy`; longer ones through that call.
    #[inline(never)]
    fn push_two_words(&mut self, bytes: &[u8]) {
        self.push_two_words_inline(bytes);
    }

    /// [`push_two_words`](Self::push_two_words) where it is written:
    /// for a table's cells, whose loop takes the call's cost per cell.
    #[inline(always)]
    fn push_two_words_inline(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let words = bytes
            .first_chunk::<SHORT>()
            .zip(bytes.last_chunk::<SHORT>());
        let room = self
            .buf
            .get_mut(self.len..)
            .and_then(|room| room.first_chunk_mut::<{ 2 * SHORT }>());
        match (words, room) {
            (Some((first, last)), Some(room)) if n <= 2 * SHORT => {
                // Within the buffer, so within the limit.
                room[..SHORT].copy_from_slice(first);
                if let Some(end) = room.get_mut(n - SHORT..n) {
                    end.copy_from_slice(last);
                }
                self.len += n;
            }
            _ => self.push_slow(bytes),
        }
    }

    /// Appends the first `n` bytes of `first` (at most [`SHORT`]) and then
    /// the first `m` of `second` (at most eight; ASCII, or whole
    /// characters) with one check of the room for both: a line's
    /// indentation and its key with its colon.
    #[inline(always)]
    pub(crate) fn push_word_pair(&mut self, first: u128, n: usize, second: u64, m: usize) {
        let (n, m) = (n.min(SHORT), m.min(8));
        match self.room::<{ SHORT + 8 }>() {
            Some(room) => {
                let (low, rest) = room.split_at_mut(8);
                low.copy_from_slice(&(first as u64).to_le_bytes());
                if let Some(high) = rest.first_chunk_mut::<8>() {
                    *high = ((first >> 64) as u64).to_le_bytes();
                }
                if let Some(next) = room.get_mut(n..n + 8) {
                    next.copy_from_slice(&second.to_le_bytes());
                    self.len += n + m;
                }
            }
            None => {
                self.push_word(first, n);
                self.push_small(second, m);
            }
        }
    }

    /// Appends the `n` bytes (at most 8) of text in the low bytes of
    /// `word`, then `suffix` (at most 8 bytes), in one store of a word.
    #[inline(always)]
    pub(crate) fn push_word_then(&mut self, word: u64, n: usize, suffix: &str) {
        let n = n.min(8);
        let m = suffix.len();
        if n + m <= 8 {
            // All in a `u64`, whose shift by a variable is one instruction.
            let tail = u64::try_from(short_word(suffix.as_bytes())).unwrap_or(0);
            let word = word | tail.checked_shl(8 * n as u32).unwrap_or(0);
            self.push_small(word, n + m);
        } else if m <= 8 {
            let word = u128::from(word) | (short_word(suffix.as_bytes()) << (8 * n));
            self.push_word(word, n + m);
        } else {
            self.push_word(u128::from(word), n);
            self.push_str(suffix);
        }
    }

    /// The `N` bytes past the text, when the buffer has them (`None` goes
    /// the slow way): one range whose length the compiler knows, two
    /// comparisons, where the room's length and then its first word's took
    /// more. An end that wraps (never: the buffer is never that long)
    /// makes an empty range.
    #[inline(always)]
    fn room<const N: usize>(&mut self) -> Option<&mut [u8; N]> {
        let end = self.len.wrapping_add(N);
        self.buf
            .get_mut(self.len..end)
            .and_then(|room| <&mut [u8; N]>::try_from(room).ok())
    }

    /// Appends the first `n` bytes of `word` (at most [`SHORT`]; ASCII, or
    /// whole characters), storing the whole word when there is room for it:
    /// what follows the `n` bytes lands past the text, to be overwritten.
    #[inline(always)]
    pub(crate) fn push_word(&mut self, word: u128, n: usize) {
        let (low, high) = (word as u64, (word >> 64) as u64);
        let n = n.min(SHORT);
        match self.room::<SHORT>() {
            Some(room) => {
                // Two stores of eight bytes from the word's halves, which
                // the writers put together in registers: stored whole, the
                // word went to the stack and back first.
                let (head, tail) = room.split_at_mut(8);
                head.copy_from_slice(&low.to_le_bytes());
                tail.copy_from_slice(&high.to_le_bytes());
                self.len += n;
            }
            None => self.push_slow(word.to_le_bytes().get(..n).unwrap_or_default()),
        }
    }

    /// [`push_word`](Self::push_word) of a word of at most eight bytes,
    /// its first `n` text (the others land past the text): one store of
    /// eight bytes, where a whole word's zeros above took a second.
    #[inline(always)]
    pub(crate) fn push_small(&mut self, word: u64, n: usize) {
        let n = n.min(8);
        match self.room::<SHORT>() {
            Some(room) => {
                let (head, _) = room.split_at_mut(8);
                head.copy_from_slice(&word.to_le_bytes());
                self.len += n;
            }
            None => self.push_slow(word.to_le_bytes().get(..n).unwrap_or_default()),
        }
    }

    /// Makes room for `additional` more bytes past the text (the caller has
    /// checked the limit), with a word's room to spare, but never past the
    /// limit. The room is zeroed as the text reaches it, so a buffer costs
    /// the zeroing of about what the text uses: [`ZEROS`] at a time, as a
    /// copy of that size runs a vector loop where one `memset` of the
    /// whole room is a byte-per-step `rep stosb`; up to [`ZERO_STEPS`] of
    /// them a call, within the room reserved, so that a text of some
    /// kilobytes takes this call a few times rather than once a kilobyte.
    #[cold]
    fn grow(&mut self, additional: usize) {
        let ahead = self
            .buf
            .len()
            .saturating_add(ZERO_STEPS * ZEROS.len())
            .min(self.buf.capacity());
        let wanted = self
            .len
            .saturating_add(additional)
            .saturating_add(SHORT)
            .max(self.buf.len().saturating_add(ZEROS.len()))
            .max(ahead)
            .min(self.limit);
        if wanted > self.buf.capacity() {
            // Doubling, but never past the limit: the allocation is bounded
            // as the text is.
            let capacity = self
                .buf
                .capacity()
                .saturating_mul(2)
                .max(wanted)
                .min(self.limit);
            self.buf
                .reserve_exact(capacity.saturating_sub(self.buf.len()));
        }
        while self.buf.len() < wanted {
            let step = (wanted - self.buf.len()).min(ZEROS.len());
            self.buf
                .extend_from_slice(ZEROS.get(..step).unwrap_or_default());
        }
    }

    /// Appends `bytes` (whole characters) when the fast path of a short
    /// store has no room: a long text, or one near the end of the buffer
    /// or of the limit.
    #[inline(never)]
    fn push_slow(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        // `len <= limit` always holds, so the subtraction cannot wrap.
        if n > self.limit - self.len {
            self.over = true;
            return;
        }
        if n > self.buf.len() - self.len {
            self.grow(n);
        }
        match self.buf.get_mut(self.len..self.len + n) {
            Some(room) => {
                room.copy_from_slice(bytes);
                self.len += n;
            }
            // `grow` made the room (the limit allows it); never taken.
            None => self.over = true,
        }
    }
}

/// `src` (at most [`SHORT`] bytes) as the low bytes of a word (zeros
/// above), from two overlapping reads of a fixed width: no call, no loop.
/// A `u128` rather than a byte array, so that it stays in registers and
/// what is added to it is a shift and an or.
#[inline(always)]
fn short_word(src: &[u8]) -> u128 {
    let n = src.len();
    let at = |i: usize| u64::from(src.get(i).copied().unwrap_or(0));
    let u64_at = |i: usize| {
        src.get(i..i + 8)
            .and_then(|w| w.try_into().ok())
            .map_or(0, |w| u128::from(u64::from_le_bytes(w)))
    };
    let u32_at = |i: usize| {
        src.get(i..i + 4)
            .and_then(|w| w.try_into().ok())
            .map_or(0, |w| u64::from(u32::from_le_bytes(w)))
    };
    // The overlapping reads hold the same bytes where they overlap, so an
    // or of the two is the text.
    // Texts of less than eight bytes are put together in a `u64`, whose
    // shifts by a variable are one instruction, not a `u128`'s several.
    match n {
        8..=SHORT => u64_at(0) | (u64_at(n - 8) << (8 * (n - 8))),
        4..=7 => u128::from(u32_at(0) | (u32_at(n - 4) << (8 * (n - 4)))),
        1..=3 => u128::from(at(0) | (at(n / 2) << (8 * (n / 2))) | (at(n - 1) << (8 * (n - 1)))),
        _ => 0,
    }
}

impl Sink for Out {
    #[inline]
    fn push_quoted(&mut self, text: &str) {
        self.push_quoted_bytes(text.as_bytes());
    }

    // Always inlined: most writes are of a few bytes, whose length the
    // compiler then often knows, and as a call it cost more than its body.
    #[inline(always)]
    fn push_str(&mut self, text: &str) {
        self.push_bytes(text.as_bytes());
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
        assert!(out.buf.len() <= 5 && out.buf.capacity() <= 5);
        assert_eq!(&out.buf[..out.len], b"abcde");
        assert_eq!(out.finish(), None);
    }

    #[test]
    fn capacity_never_passes_the_limit() {
        let mut out = Out::new(0, 100);
        for _ in 0..100 {
            out.push('x');
            assert!(out.buf.len() <= 100);
            assert!(out.buf.capacity() <= 100);
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

    proptest::proptest! {
        /// Any run of writes, rewinds included, leaves the text a plain
        /// string gets from the writes that fit the limit, and the output
        /// over the limit exactly when one did not fit.
        #[test]
        fn writes_are_those_of_a_plain_string_within_the_limit(
            capacity in 0usize..80,
            limit in 0usize..120,
            writes in proptest::collection::vec((0u8..8, "[a-zé]{0,40}", 0usize..=SHORT), 0..40),
        ) {
            let mut out = Out::new(capacity, limit);
            let (mut model, mut over) = (String::new(), false);
            let mut marks = Vec::new();
            for (what, text, n) in writes {
                let suffix = [": ", ":", ""][n % 3];
                // What lands as one write: all of it or nothing.
                let whole = |pieces: &[&str]| -> Vec<String> {
                    let all = pieces.concat();
                    if all.len() <= SHORT {
                        vec![all]
                    } else {
                        pieces.iter().map(|piece| (*piece).to_owned()).collect()
                    }
                };
                let pieces = match what {
                    0 => vec![text.clone()],
                    3 => whole(&[&text, suffix]),
                    4 => whole(&["\"", &text, "\""]),
                    6 => whole(&[",", &text]),
                    7 => vec![
                        "\n                ".get(..n).unwrap_or_default().to_owned(),
                        text.get(..text.len().min(8)).unwrap_or_default().to_owned(),
                    ],
                    1 => vec!["\n                ".get(..n).unwrap_or_default().to_owned()],
                    2 => vec!["x".to_owned()],
                    _ => Vec::new(),
                };
                match what {
                    0 => out.push_str(&text),
                    1 => {
                        let mut word = [b' '; SHORT];
                        word[0] = b'\n';
                        out.push_word(u128::from_le_bytes(word), n);
                    }
                    2 => out.push_byte(b'x'),
                    3 => out.push_bytes_then(text.as_bytes(), suffix),
                    4 => out.push_quoted(&text),
                    6 => out.push_bytes_led(Some(b','), text.as_bytes()),
                    7 => {
                        let mut line = [b' '; SHORT];
                        line[0] = b'\n';
                        let key = text.get(..text.len().min(8)).unwrap_or_default();
                        out.push_word_pair(
                            u128::from_le_bytes(line),
                            n,
                            short_word(key.as_bytes()) as u64,
                            key.len(),
                        );
                    }
                    _ => {
                        if let Some((mark, len, was_over)) = marks.pop() {
                            out.rewind(mark);
                            model.truncate(len);
                            over = was_over;
                        } else {
                            marks.push((out.mark(), model.len(), over));
                        }
                        continue;
                    }
                }
                for piece in pieces {
                    if model.len() + piece.len() <= limit {
                        model.push_str(&piece);
                    } else {
                        over = true;
                    }
                }
                proptest::prop_assert!(out.buf.len() <= limit);
                proptest::prop_assert!(out.buf.capacity() <= limit);
                proptest::prop_assert_eq!(&out.buf[..out.len], model.as_bytes());
                proptest::prop_assert_eq!(out.is_over(), over);
            }
            proptest::prop_assert_eq!(out.finish(), (!over).then_some(model));
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
