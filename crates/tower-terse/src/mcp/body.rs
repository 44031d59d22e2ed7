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
use super::message::{Calls, Rewrite};
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

#[derive(Debug, Default)]
struct Capture {
    /// The request's first bytes; emptied once it passes the limit.
    bytes: Vec<u8>,
    over_limit: bool,
    /// The calls read from `bytes`, and how many bytes they were read from.
    calls: Option<(usize, Option<Calls>)>,
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

    /// Runs `f` with the request's `tools/call`s, read once the request is
    /// complete JSON (and again only when more of it arrived); `None` when
    /// there are none or the request is past the limit.
    pub(crate) fn with_calls<T>(&self, f: impl FnOnce(&Calls) -> Option<T>) -> Option<T> {
        let mut capture = self.lock();
        if capture.over_limit {
            return None;
        }
        let read = capture.bytes.len();
        if capture.calls.as_ref().is_none_or(|(at, _)| *at != read) {
            let calls = Calls::read(&capture.bytes);
            capture.calls = Some((read, calls));
        }
        match &capture.calls {
            Some((_, Some(calls))) if !calls.is_empty() => f(calls),
            _ => None,
        }
    }

    /// Whether the request holds a `tools/call` whose answer may be rewritten.
    pub(crate) fn has_calls(&self) -> bool {
        self.with_calls(|_| Some(())).is_some()
    }

    /// A JSON-RPC message (or batch) with its tool results rewritten.
    fn rewrite(&self, text: &str) -> Option<String> {
        self.with_calls(|calls| {
            Rewrite {
                config: &self.config,
                format: self.format,
                asked: self.asked,
                calls,
            }
            .message(text)
        })
    }
}

pin_project! {
    /// The request body the inner service reads: the client's body,
    /// unchanged, with its first bytes copied aside when the layer may
    /// rewrite the answer (see [`McpLayer::max_request_bytes`](super::McpLayer::max_request_bytes)).
    pub struct McpRequestBody<B> {
        #[pin]
        inner: B,
        exchange: Option<Arc<Exchange>>,
    }
}

impl<B> McpRequestBody<B> {
    pub(crate) fn new(inner: B, exchange: Option<Arc<Exchange>>) -> Self {
        McpRequestBody { inner, exchange }
    }
}

impl<B: Body> Body for McpRequestBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.project();
        let frame = ready!(this.inner.poll_frame(cx));
        Poll::Ready(frame.map(|frame| {
            frame.map(|frame| {
                frame.map_data(|data| {
                    let data = into_bytes(data);
                    if let Some(exchange) = this.exchange {
                        exchange.copy(&data);
                    }
                    data
                })
            })
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B> fmt::Debug for McpRequestBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpRequestBody")
            .field("copied", &self.exchange.is_some())
            .finish()
    }
}

fn into_bytes<D: Buf>(mut data: D) -> Bytes {
    // `Bytes` hands itself over without copying.
    data.copy_to_bytes(data.remaining())
}

/// How the response body is read.
enum Mode {
    /// Streamed through as it comes.
    Plain,
    /// One JSON-RPC message or batch, held up to the limit.
    Json { held: Bounded, passing: bool },
    /// An event stream, rewritten event by event.
    Events(Splitter),
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
fn push(mode: &mut Mode, exchange: Option<&Exchange>, data: Bytes) -> Vec<u8> {
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
fn finish(mode: &mut Mode, exchange: Option<&Exchange>, complete: bool) -> Vec<u8> {
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
            if *this.ended {
                return Poll::Ready(None);
            }
            let exchange = this.exchange.as_deref();
            let data = |bytes: Vec<u8>| (!bytes.is_empty()).then(|| Ok(Frame::data(bytes.into())));
            match ready!(this.inner.as_mut().poll_frame(cx)) {
                None => {
                    *this.ended = true;
                    this.ready.extend(data(finish(this.mode, exchange, true)));
                }
                Some(Err(err)) => {
                    *this.ended = true;
                    this.ready.extend(data(finish(this.mode, exchange, false)));
                    this.ready.push_back(Err(err));
                }
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(bytes) => {
                        this.ready
                            .extend(data(push(this.mode, exchange, into_bytes(bytes))));
                    }
                    Err(frame) => {
                        // Trailers end the body: what is held goes first.
                        *this.ended = true;
                        this.ready.extend(data(finish(this.mode, exchange, true)));
                        this.ready
                            .push_back(Ok(frame.map_data(|_: B::Data| Bytes::new())));
                    }
                },
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self.mode {
            Mode::Plain => self.inner.is_end_stream(),
            _ => self.ended && self.ready.is_empty(),
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
        };
        f.debug_struct("McpBody").field("mode", &mode).finish()
    }
}
