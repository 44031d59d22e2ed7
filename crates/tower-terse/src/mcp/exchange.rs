//! What one exchange (a POST and its answer) shares between the request
//! body, as the server reads it, and the response body: the session that
//! read the request, for the rewrite of the answer.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use super::McpConfig;
use super::read::Measured;
use super::session::Session;
use crate::format::Format;

/// The measurements of the messages a step completes (the held answer,
/// or each event's data), in order: each rewrite goes on from the next
/// one's reading rather than reading its message again. Empty when the
/// step was not measured; a message without one is read as it is
/// rewritten.
pub(crate) type Readings = VecDeque<Measured>;

/// What one exchange (a POST and its answer) shares between the request
/// body, as the server reads it, and the response body.
#[derive(Debug)]
pub(crate) struct Exchange {
    pub(crate) config: Arc<McpConfig>,
    pub(crate) format: Format,
    /// Whether the client named the format (not only the layer's default).
    pub(crate) asked: bool,
    capture: Mutex<Capture>,
}

/// The request's bytes read whole, in place of any copy.
const WHOLE: usize = usize::MAX;

#[derive(Debug, Default)]
struct Capture {
    /// The request's first bytes; emptied once it passes the limit.
    bytes: Vec<u8>,
    over_limit: bool,
    /// The session that read the request, and how many bytes it read
    /// ([`WHOLE`] once the held request was read).
    session: Option<(usize, Session)>,
}

impl Exchange {
    pub(crate) fn new(config: Arc<McpConfig>, format: Format, asked: bool) -> Self {
        Exchange {
            config,
            format,
            asked,
            capture: Mutex::new(Capture::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Capture> {
        // A panic elsewhere while holding it leaves plain data behind.
        self.capture
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the request body is held whole to be rewritten (the
    /// `format` argument removed) rather than copied aside.
    pub(crate) fn holds_request(&self) -> bool {
        self.config.format_argument
    }

    pub(crate) fn copy(&self, data: &[u8]) {
        let mut capture = self.lock();
        if capture.over_limit {
            return;
        }
        if capture.bytes.len().saturating_add(data.len()) > self.config.max_request_bytes {
            capture.over_limit = true;
            capture.bytes = Vec::new();
        } else {
            capture.bytes.extend_from_slice(data);
        }
    }

    /// The request is past the limit: its answer is not rewritten.
    pub(crate) fn give_up(&self) {
        let mut capture = self.lock();
        capture.over_limit = true;
        capture.bytes = Vec::new();
    }

    fn session(&self, text: &[u8]) -> Session {
        let session = Session::with_format(self.config.clone(), self.format, self.asked);
        if let Ok(text) = std::str::from_utf8(text) {
            session.client_message(text);
        }
        session
    }

    /// Runs `f` with the session that read the request: once the request
    /// is complete JSON (read again only when more of it arrived); `None`
    /// past the limit.
    fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        let mut capture = self.lock();
        if capture.over_limit {
            return None;
        }
        let read = capture.bytes.len();
        if capture
            .session
            .as_ref()
            .is_none_or(|(at, _)| *at != read && *at != WHOLE)
        {
            let session = self.session(&capture.bytes);
            capture.session = Some((read, session));
        }
        capture.session.as_mut().map(|(_, session)| f(session))
    }

    /// The whole held request: read by the session, and rewritten when it
    /// changed.
    pub(crate) fn read_whole(&self, body: &[u8]) -> Option<String> {
        let session = Session::with_format(self.config.clone(), self.format, self.asked);
        let rewritten = std::str::from_utf8(body)
            .ok()
            .and_then(|text| session.client_message(text));
        self.lock().session = Some((WHOLE, session));
        rewritten
    }

    /// Whether the request holds a request whose answer may be rewritten.
    pub(crate) fn has_calls(&self) -> bool {
        self.with_session(|session| session.pending() > 0) == Some(true)
    }

    /// `text` read and measured by the session ([`Session::measure`]): the
    /// work rewriting it will do, or at least `enough` once it is known to
    /// reach it, and the reading its rewrite goes on from.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn measure(&self, text: &str, enough: usize) -> Measured {
        self.with_session(|session| session.measure(text, enough))
            .unwrap_or(Measured {
                work: 0,
                read: None,
            })
    }

    /// The messages of `readings` rendered ahead of their rewrite by the
    /// session ([`Session::prepare`]), with at most `count_here` work for
    /// near ties between them all: `true` when a tie was kept whose exact
    /// counts need more, and the rewrite belongs on the blocking pool.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn prepare(&self, readings: &mut Readings, count_here: usize) -> bool {
        let mut left = count_here;
        self.with_session(|session| {
            readings.iter_mut().fold(false, |kept, measured| {
                session.prepare(measured, &mut left) | kept
            })
        }) == Some(true)
    }

    /// A JSON-RPC message (or batch) rewritten by the session, from its
    /// measurement's reading when there was one.
    pub(crate) fn rewrite(&self, text: &str, measured: Option<Measured>) -> Option<String> {
        self.with_session(|session| match measured {
            Some(measured) => session.server_message_measured(text, measured),
            None => session.server_message(text),
        })
        .flatten()
    }
}
