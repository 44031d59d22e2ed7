//! The request body the server reads (copied aside, bounded) and the
//! response body the client gets (rewritten message by message).

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use super::Config;
use super::offload;
use super::session::Session;
use super::sse::{Splitter, rewrite_event};
use crate::bounded::Bounded;
use crate::format::Format;

/// What one exchange (a POST and its answer) shares between the request
/// body, as the server reads it, and the response body.
#[derive(Debug)]
pub(crate) struct Exchange {
    pub(crate) config: Arc<Config>,
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
    pub(crate) fn new(config: Arc<Config>, format: Format, asked: bool) -> Self {
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

    fn copy(&self, data: &[u8]) {
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
    fn give_up(&self) {
        let mut capture = self.lock();
        capture.over_limit = true;
        capture.bytes = Vec::new();
    }

    fn session(&self, text: &[u8]) -> Session {
        let mut session = Session::with_format(self.config.clone(), self.format, self.asked);
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
    fn read_whole(&self, body: &[u8]) -> Option<String> {
        let mut session = Session::with_format(self.config.clone(), self.format, self.asked);
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

    /// A JSON-RPC message (or batch) rewritten by the session.
    fn rewrite(&self, text: &str) -> Option<String> {
        self.with_session(|session| session.server_message(text))
            .flatten()
    }
}

pin_project! {
    /// The request body the inner service reads: the client's body,
    /// unchanged, with its first bytes copied aside when the layer may
    /// rewrite the answer (see [`McpLayer::max_request_bytes`](super::McpLayer::max_request_bytes));
    /// with [`format_argument`](super::McpLayer::format_argument), held
    /// whole up to that limit and sent without the `format` argument.
    pub struct McpRequestBody<B> {
        #[pin]
        inner: B,
        exchange: Option<Arc<Exchange>>,
        // The request held so far, while holding.
        held: Option<Vec<u8>>,
        // A frame that waits behind the held bytes.
        next: Option<Frame<Bytes>>,
        ended: bool,
    }
}

impl<B> McpRequestBody<B> {
    pub(crate) fn new(inner: B, exchange: Option<Arc<Exchange>>) -> Self {
        let held = exchange
            .as_ref()
            .filter(|exchange| exchange.holds_request())
            .map(|_| Vec::new());
        McpRequestBody {
            inner,
            exchange,
            held,
            next: None,
            ended: false,
        }
    }
}

impl<B: Body> Body for McpRequestBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let mut this = self.project();
        loop {
            if let Some(frame) = this.next.take() {
                return Poll::Ready(Some(Ok(frame)));
            }
            if *this.ended {
                return Poll::Ready(None);
            }
            let frame = ready!(this.inner.as_mut().poll_frame(cx));
            let Some(held) = this.held.as_mut() else {
                return Poll::Ready(frame.map(|frame| {
                    frame.map(|frame| {
                        frame.map_data(|data| {
                            let data = into_bytes(data);
                            if let Some(exchange) = this.exchange {
                                exchange.copy(&data);
                            }
                            data
                        })
                    })
                }));
            };
            let exchange = this.exchange.as_deref();
            match frame {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => {
                        let data = into_bytes(data);
                        let limit = exchange.map_or(0, |e| e.config.max_request_bytes);
                        if held.len().saturating_add(data.len()) <= limit {
                            held.extend_from_slice(&data);
                            continue;
                        }
                        // Past the limit: sent on as it comes, never rewritten.
                        if let Some(exchange) = exchange {
                            exchange.give_up();
                        }
                        let mut out = std::mem::take(held);
                        out.extend_from_slice(&data);
                        *this.held = None;
                        return Poll::Ready(Some(Ok(Frame::data(out.into()))));
                    }
                    Err(trailers) => {
                        *this.next = Some(trailers.map_data(|_: B::Data| Bytes::new()));
                        *this.ended = true;
                    }
                },
                Some(Err(err)) => {
                    *this.held = None;
                    return Poll::Ready(Some(Err(err)));
                }
                None => *this.ended = true,
            }
            // The request is whole: read it, and send it rewritten.
            let held = this.held.take().unwrap_or_default();
            let body = exchange
                .and_then(|exchange| exchange.read_whole(&held))
                .map_or(held, String::into_bytes);
            if !body.is_empty() {
                // The data first; trailers, if any, wait in `next`.
                return Poll::Ready(Some(Ok(Frame::data(body.into()))));
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        if self.held.is_some() || self.next.is_some() {
            return false;
        }
        self.ended || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        if self.exchange.as_ref().is_some_and(|e| e.holds_request()) {
            return SizeHint::default();
        }
        self.inner.size_hint()
    }
}

impl<B> fmt::Debug for McpRequestBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequestBody")
            .field("copied", &self.exchange.is_some())
            .field("holding", &self.held.is_some())
            .finish()
    }
}

fn into_bytes<D: Buf>(mut data: D) -> Bytes {
    // `Bytes` hands itself over without copying.
    data.copy_to_bytes(data.remaining())
}

/// How the response body is read.
pub(crate) enum Mode {
    /// Streamed through as it comes.
    Plain,
    /// One JSON-RPC message or batch, held up to the limit.
    Json { held: Bounded, passing: bool },
    /// An event stream, rewritten event by event.
    Events(Splitter),
    /// On the blocking pool with a large rewrite (see [`offload`]).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    Away,
}

impl Mode {
    /// The bytes held for a rewrite.
    #[cfg(feature = "tokio")]
    pub(crate) fn held(&self) -> usize {
        match self {
            Mode::Json { held, .. } => held.len(),
            Mode::Events(splitter) => splitter.held(),
            Mode::Plain | Mode::Away => 0,
        }
    }
}

pin_project! {
    /// The response body of [`Mcp`](super::Mcp): the server's body streamed
    /// as it comes, with the text blocks of `tools/call` results rewritten
    /// when a format was asked for.
    pub struct McpBody<B>
    where
        B: Body,
    {
        #[pin]
        inner: B,
        mode: Mode,
        exchange: Option<Arc<Exchange>>,
        ready: VecDeque<Result<Frame<Bytes>, B::Error>>,
        ended: bool,
        offloaded: Option<offload::Task>,
    }
}

impl<B: Body> McpBody<B> {
    pub(crate) fn plain(inner: B) -> Self {
        McpBody {
            inner,
            mode: Mode::Plain,
            exchange: None,
            ready: VecDeque::new(),
            ended: false,
            offloaded: None,
        }
    }

    pub(crate) fn json(inner: B, exchange: Arc<Exchange>) -> Self {
        McpBody {
            mode: Mode::Json {
                held: Bounded::new(exchange.config.max_message_bytes, 0),
                passing: false,
            },
            exchange: Some(exchange),
            ..Self::plain(inner)
        }
    }

    pub(crate) fn events(inner: B, exchange: Arc<Exchange>) -> Self {
        McpBody {
            mode: Mode::Events(Splitter::new(exchange.config.max_message_bytes)),
            exchange: Some(exchange),
            ..Self::plain(inner)
        }
    }
}

/// Feeds `data` to the mode; what may go out now.
pub(crate) fn push(mode: &mut Mode, exchange: Option<&Exchange>, data: Bytes) -> Vec<u8> {
    match (mode, exchange) {
        (Mode::Json { held, passing }, Some(_)) => {
            if *passing {
                return data.into();
            }
            if held.push(data).is_err() {
                *passing = true;
                return held.take().into();
            }
            Vec::new()
        }
        (Mode::Events(splitter), Some(exchange)) => {
            let mut out = Vec::new();
            splitter.feed(&data, &mut out, &mut |event| rewrite_one(exchange, event));
            out
        }
        _ => data.into(),
    }
}

/// The stream ended (or failed): whatever is held, rewritten when whole.
pub(crate) fn finish(mode: &mut Mode, exchange: Option<&Exchange>, complete: bool) -> Vec<u8> {
    match (mode, exchange) {
        (Mode::Json { held, passing }, Some(exchange)) => {
            let held = held.take();
            if *passing || !complete {
                return held.into();
            }
            std::str::from_utf8(&held)
                .ok()
                .and_then(|text| exchange.rewrite(text))
                .map_or_else(|| held.into(), String::into_bytes)
        }
        (Mode::Events(splitter), Some(exchange)) => {
            let mut out = Vec::new();
            splitter.finish(&mut out, &mut |event| rewrite_one(exchange, event));
            out
        }
        _ => Vec::new(),
    }
}

fn rewrite_one(exchange: &Exchange, event: &[u8]) -> Option<Vec<u8>> {
    rewrite_event(event, |data| exchange.rewrite(data))
}

impl<B: Body> Body for McpBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let mut this = self.project();
        if let Mode::Plain = this.mode {
            let frame = ready!(this.inner.poll_frame(cx));
            return Poll::Ready(frame.map(|frame| frame.map(|frame| frame.map_data(into_bytes))));
        }
        loop {
            if let Some(next) = this.ready.pop_front() {
                return Poll::Ready(Some(next));
            }
            let data = |bytes: Vec<u8>| (!bytes.is_empty()).then(|| Ok(Frame::data(bytes.into())));
            if let Some(task) = this.offloaded.as_mut() {
                let done = ready!(offload::poll(task, cx));
                *this.offloaded = None;
                let Some((mode, out)) = done else {
                    // The rewrite panicked: what it held is gone.
                    *this.ended = true;
                    return Poll::Ready(None);
                };
                *this.mode = mode;
                this.ready.extend(data(out));
                continue;
            }
            if *this.ended {
                return Poll::Ready(None);
            }
            let exchange = this.exchange.as_ref();
            let work = match ready!(this.inner.as_mut().poll_frame(cx)) {
                None => {
                    *this.ended = true;
                    offload::Work::Finish
                }
                Some(Err(err)) => {
                    *this.ended = true;
                    let held = finish(this.mode, exchange.map(|e| &**e), false);
                    this.ready.extend(data(held));
                    this.ready.push_back(Err(err));
                    continue;
                }
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(bytes) => offload::Work::Push(into_bytes(bytes)),
                    Err(frame) => {
                        // Trailers end the body: what is held goes first.
                        *this.ended = true;
                        let held = finish(this.mode, exchange.map(|e| &**e), true);
                        this.ready.extend(data(held));
                        this.ready
                            .push_back(Ok(frame.map_data(|_: B::Data| Bytes::new())));
                        continue;
                    }
                },
            };
            match offload::spawn(this.mode, exchange, work) {
                Ok(task) => *this.offloaded = Some(task),
                Err(work) => {
                    let out = offload::run(this.mode, exchange.map(|e| &**e), work);
                    this.ready.extend(data(out));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self.mode {
            Mode::Plain => self.inner.is_end_stream(),
            _ => self.ended && self.ready.is_empty() && self.offloaded.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self.mode {
            Mode::Plain => self.inner.size_hint(),
            _ => SizeHint::default(),
        }
    }
}

impl<B: Body> fmt::Debug for McpBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.mode {
            Mode::Plain => "Plain",
            Mode::Json { .. } => "Json",
            Mode::Events(_) => "Events",
            Mode::Away => "Away",
        };
        f.debug_struct("McpBody").field("mode", &mode).finish()
    }
}
