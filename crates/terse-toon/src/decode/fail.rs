//! The decoder's error before it is placed at a line and column.

/// A decode error at a byte offset of the input.
#[derive(Debug)]
pub(super) struct Fail {
    pub(super) pos: usize,
    pub(super) msg: String,
}

impl Fail {
    pub(super) fn new(pos: usize, msg: impl Into<String>) -> Self {
        Fail {
            pos,
            msg: msg.into(),
        }
    }
}

pub(super) type PResult<T> = Result<T, Fail>;
