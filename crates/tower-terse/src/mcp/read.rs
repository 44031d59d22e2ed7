//! A server message read once: the answers in it and where they sit, and
//! the text blocks of the answers to calls, unescaped. Measuring a message
//! ([`Session::measure`](super::Session::measure)) reads it, and the
//! rewrite takes that reading ([`Measured`]) rather than reading the
//! message again.

use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::message::{Block, id_key, messages, span};

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Cancelled<'a> {
    #[serde(rename = "requestId", borrow)]
    request_id: Option<&'a RawValue>,
}

/// An answer of a message (or batch), as offsets into its text, so that
/// the reading moves to the blocking pool with the text.
#[derive(Debug)]
pub(crate) struct Answer {
    /// Where the answer sits in the text.
    pub(crate) message: Range<usize>,
    /// Its id, as the session's table keys it.
    pub(crate) id: String,
    /// Where its raw id sits in the text.
    pub(crate) raw_id: Range<usize>,
    /// Where its `result` sits in the text, when it has one.
    pub(crate) result: Option<Range<usize>>,
    /// Whether it also carries an `error` (then it is no tool result).
    pub(crate) error: bool,
    /// Its JSON text blocks, once the measurement read them.
    pub(crate) blocks: Option<Vec<Block>>,
    /// The call it answers, as the measurement found it waiting: what its
    /// blocks render with ahead of the rewrite
    /// ([`Session::prepare`](super::Session::prepare)).
    pub(crate) call: Option<Call>,
}

/// The tool, format and `asked` of a call waiting for its answer.
pub(crate) type Call = (String, crate::format::Format, bool);

impl Answer {
    /// The JSON text blocks of its result, in `text`: read now unless the
    /// measurement read them already.
    pub(crate) fn take_blocks(&mut self, text: &str) -> Vec<Block> {
        match self.blocks.take() {
            Some(blocks) => blocks,
            None => self.read_blocks(text),
        }
    }

    /// The JSON text blocks of its result, read from `text`; none without
    /// a result.
    pub(crate) fn read_blocks(&self, text: &str) -> Vec<Block> {
        let (Some(message), Some(result)) = (
            text.get(self.message.clone()),
            self.result.clone().and_then(|result| text.get(result)),
        ) else {
            return Vec::new();
        };
        super::message::blocks(message, result)
    }
}

/// The answers of a message (or batch), and the requests the server's
/// cancellations in it name.
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) answers: Vec<Answer>,
    pub(crate) cancelled: Vec<String>,
    /// The length of the text read. Callers hand each reading to the text
    /// it was made of (an answer's, or each event's in the order the same
    /// splitter finds them); a reading whose length differs from the text
    /// it is handed with is a mismatch and is not taken, the text is read
    /// again. Text of the same length is not told apart.
    pub(crate) len: usize,
}

/// What measuring a server message found: the work its rewrite will do,
/// and the reading the rewrite goes on from (`None` when the message was
/// not read: too large to measure, or not JSON).
#[derive(Debug)]
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
pub(crate) struct Measured {
    pub(crate) work: usize,
    pub(crate) read: Option<Read>,
}

/// Reads a message (or batch) from the server: its answers and the
/// cancellations in it; `None` when it is not JSON.
pub(crate) fn read(text: &str) -> Option<Read> {
    let batch = messages(text)?;
    let mut answers = Vec::new();
    let mut cancelled = Vec::new();
    for message in batch {
        let Ok(head) = serde_json::from_str::<Head<'_>>(message.get()) else {
            continue;
        };
        match (head.id, head.method) {
            (Some(raw), None) => {
                let (Some(id), Some(at), Some(raw_id)) =
                    (id_key(raw), span(text, message), span(text, raw))
                else {
                    continue;
                };
                answers.push(Answer {
                    message: at,
                    id,
                    raw_id,
                    result: head.result.and_then(|result| span(text, result)),
                    error: head.error.is_some(),
                    blocks: None,
                    call: None,
                });
            }
            (None, Some(method)) if method.get() == "\"notifications/cancelled\"" => {
                let request = head
                    .params
                    .and_then(|p| serde_json::from_str::<Cancelled<'_>>(p.get()).ok())
                    .and_then(|c| c.request_id)
                    .and_then(id_key);
                cancelled.extend(request);
            }
            _ => {}
        }
    }
    Some(Read {
        answers,
        cancelled,
        len: text.len(),
    })
}
