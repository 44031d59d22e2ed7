//! The request body the server reads (copied aside, bounded) and the
//! response body the client gets (rewritten message by message).

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use super::exchange::Exchange;
use super::mode::{Mode, Readings, finish};
use super::offload;
use super::sse::Splitter;
use crate::bounded::Bounded;
use crate::budget::Reservation;
use crate::middleware::body::into_bytes;

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
        // The bytes held against the layer's memory budget, if it has one.
        held: Option<Reservation>,
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
            held: None,
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

/// Whether the bytes held, and `more`, fit the layer's memory budget
/// (growing the reservation when they do); always with no budget.
fn within_budget(
    mode: &Mode,
    reserved: &mut Option<Reservation>,
    exchange: Option<&Arc<Exchange>>,
    more: usize,
) -> bool {
    let Some(budget) = exchange.and_then(|e| e.config.budget.as_ref()) else {
        return true;
    };
    if matches!(mode, Mode::Plain | Mode::Away) {
        return true;
    }
    let needed = mode.held().saturating_add(more);
    match reserved {
        Some(held) if needed <= held.bytes() => true,
        Some(held) => held.try_grow(needed - held.bytes()),
        None => match budget.try_reserve(needed) {
            Some(held) => {
                *reserved = Some(held);
                true
            }
            None => false,
        },
    }
}

impl<B: Body> Body for McpBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let mut this = self.project();
        if matches!(this.mode, Mode::Plain) && this.ready.is_empty() {
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
                    let held = finish(
                        this.mode,
                        exchange.map(|e| &**e),
                        false,
                        &mut Readings::new(),
                    );
                    this.ready.extend(data(held));
                    this.ready.push_back(Err(err));
                    continue;
                }
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(bytes) => {
                        let bytes = into_bytes(bytes);
                        if !within_budget(this.mode, this.held, exchange, bytes.len()) {
                            // No room to hold it: what was held goes first,
                            // then everything streams as it comes.
                            *this.held = None;
                            let held = this.mode.let_go();
                            this.ready.extend(data(held));
                            this.ready.extend(data(bytes.into()));
                            continue;
                        }
                        offload::Work::Push(bytes)
                    }
                    Err(frame) => {
                        // Trailers end the body: what is held goes first.
                        *this.ended = true;
                        let held = finish(
                            this.mode,
                            exchange.map(|e| &**e),
                            true,
                            &mut Readings::new(),
                        );
                        this.ready.extend(data(held));
                        this.ready
                            .push_back(Ok(frame.map_data(|_: B::Data| Bytes::new())));
                        continue;
                    }
                },
            };
            match offload::spawn(this.mode, exchange, work) {
                Ok(task) => *this.offloaded = Some(task),
                Err((work, mut readings)) => {
                    let out = offload::run(this.mode, exchange.map(|e| &**e), work, &mut readings);
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
