//! Reading a body up to a limit: the one buffer both layers hold a body in
//! while they read it (the HTTP layer a response, the MCP layer a JSON-RPC
//! answer).

use bytes::{Bytes, BytesMut};

/// The bytes of a body read so far, and the most it may hold.
#[derive(Debug)]
pub(crate) struct Bounded {
    buffer: Buffer,
    limit: usize,
}

/// The body passed the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverLimit;

impl Bounded {
    /// An empty buffer for at most `limit` bytes, expecting about
    /// `expected` (a size hint, never trusted past the limit).
    pub(crate) fn new(limit: usize, expected: usize) -> Self {
        Bounded {
            buffer: Buffer::new(expected.min(limit)),
            limit,
        }
    }

    /// Adds a chunk. Past the limit it is kept all the same (the bytes
    /// read go out as they came) and [`OverLimit`] says to stop reading.
    pub(crate) fn push(&mut self, chunk: Bytes) -> Result<(), OverLimit> {
        self.buffer.push(chunk);
        if self.buffer.len() > self.limit {
            return Err(OverLimit);
        }
        Ok(())
    }

    /// How many bytes are held.
    #[cfg_attr(not(all(feature = "mcp", feature = "tokio")), allow(dead_code))]
    pub(crate) fn len(&self) -> usize {
        self.buffer.len()
    }

    /// The bytes held, in place: what a rewrite will read, for the bound
    /// of its work taken before it starts.
    #[cfg_attr(not(all(feature = "mcp", feature = "tokio")), allow(dead_code))]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match &self.buffer {
            Buffer::Empty { .. } => &[],
            Buffer::One { first, .. } => first,
            Buffer::Many(joined) => joined,
        }
    }

    /// Everything read.
    pub(crate) fn into_bytes(self) -> Bytes {
        self.buffer.into_bytes()
    }

    /// Everything read, leaving the buffer empty.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn take(&mut self) -> Bytes {
        std::mem::replace(&mut self.buffer, Buffer::new(0)).into_bytes()
    }
}

/// The bytes read so far: the first chunk as it came (most JSON bodies are
/// one chunk), later chunks joined into one buffer.
#[derive(Debug)]
enum Buffer {
    Empty { expected: usize },
    One { first: Bytes, expected: usize },
    Many(BytesMut),
}

impl Buffer {
    fn new(expected: usize) -> Self {
        Buffer::Empty { expected }
    }

    fn len(&self) -> usize {
        match self {
            Buffer::Empty { .. } => 0,
            Buffer::One { first, .. } => first.len(),
            Buffer::Many(joined) => joined.len(),
        }
    }

    fn push(&mut self, chunk: Bytes) {
        if chunk.is_empty() {
            return;
        }
        *self = match std::mem::replace(self, Buffer::Empty { expected: 0 }) {
            Buffer::Empty { expected } => Buffer::One {
                first: chunk,
                expected,
            },
            Buffer::One { first, expected } => {
                let mut joined = BytesMut::with_capacity(expected.max(first.len() + chunk.len()));
                joined.extend_from_slice(&first);
                joined.extend_from_slice(&chunk);
                Buffer::Many(joined)
            }
            Buffer::Many(mut joined) => {
                joined.extend_from_slice(&chunk);
                Buffer::Many(joined)
            }
        };
    }

    fn into_bytes(self) -> Bytes {
        match self {
            Buffer::Empty { .. } => Bytes::new(),
            Buffer::One { first, .. } => first,
            Buffer::Many(joined) => joined.freeze(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_up_to_the_limit_and_keeps_what_passed_it() {
        let mut bounded = Bounded::new(5, 1 << 30);
        assert_eq!(bounded.push(Bytes::from_static(b"abc")), Ok(()));
        assert_eq!(bounded.push(Bytes::from_static(b"de")), Ok(()));
        assert_eq!(bounded.push(Bytes::from_static(b"f")), Err(OverLimit));
        assert_eq!(bounded.take(), Bytes::from_static(b"abcdef"));
        assert_eq!(bounded.into_bytes(), Bytes::new());
    }

    #[test]
    fn one_chunk_is_handed_over_without_a_copy() {
        let chunk = Bytes::from(vec![1u8; 64]);
        let mut bounded = Bounded::new(64, 0);
        bounded.push(chunk.clone()).unwrap();
        assert_eq!(bounded.into_bytes().as_ptr(), chunk.as_ptr());
    }
}
