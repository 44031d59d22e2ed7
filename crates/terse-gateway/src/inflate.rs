//! [`Inflate`]: an upstream's compressed answers decompressed for the
//! layer, without letting the decompression take the async workers.
//!
//! An upstream may compress though the gateway asks it not to, and a
//! small compressed body may inflate a thousandfold (a gzip bomb: 0.9 MB
//! that inflate to 256 MiB). The layer reads at most `max_body_bytes` of
//! what inflates; the rest used to be inflated on the async workers as the
//! client read it, so that a few clients asking for bombs held up every
//! other request. Now:
//!
//! - to a client that accepts the upstream's coding, a body the layer finds
//!   too large goes out compressed as it came, from its first byte (the
//!   compressed bytes read so far are kept, up to [`REWIND_BYTES`], and
//!   given back through [`tower_terse::proxy::Rewind`]): the rest is never
//!   inflated. What is kept is held against the memory budget (when a
//!   compressed byte does not fit, the answer can no longer be rewound and
//!   keeps nothing), and given back as soon as the layer has read the
//!   whole body (it will not rewind it then) or drops it;
//! - otherwise inflating is CPU work done under the layer's
//!   [`BlockingLimit`]: past [`READY_BYTES`] inflated without waiting for
//!   the upstream, each [`BATCH_BYTES`] more are inflated off the workers
//!   holding a slot, and with every slot taken the body lets its task
//!   yield until one is free.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, Entry, VARY};
use http::{HeaderValue, Request, Response};
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::Service;
use tower_http::decompression::{Decompression, DecompressionBody};
use tower_terse::proxy::{OffWorkers, Reservation, Rewind};
use tower_terse::settings::{BlockingLimit, MemoryBudget};

use crate::upstream::BoxError;

/// The most compressed bytes of one answer kept to send it on as it came:
/// the default `max_body_bytes`. A body whose compressed form is larger is
/// sent on inflated.
pub const REWIND_BYTES: usize = tower_terse::defaults::MAX_BODY_BYTES;

/// How many bytes a body inflates on an async worker between two waits
/// for its upstream, before the rest is CPU work under the limit.
pub const READY_BYTES: usize = 64 << 10;

/// How many bytes one turn under a slot inflates.
pub const BATCH_BYTES: usize = 256 << 10;

/// The codings tower-http's decompression undoes.
const CODINGS: [&str; 4] = ["gzip", "deflate", "br", "zstd"];

/// The `Accept-Encoding` tower-http's decompression sends for a request
/// without one, with its four codings on (a test holds it to tower-http's).
const DECOMPRESSED_CODINGS: HeaderValue = HeaderValue::from_static("zstd,gzip,deflate,br");

/// tower-http's [`Decompression`] around `S`, with the compressed bytes it
/// read kept for the layer to send on as they came, and the inflating of
/// large bodies bounded by a [`BlockingLimit`] (see the module docs).
///
/// ```
/// use terse_gateway::{Inflate, Upstream};
///
/// let upstream = Upstream::new("http://127.0.0.1:8000")?;
/// let inflate = Inflate::new(upstream, tower_terse::settings::BlockingLimit::per_core());
/// # drop(inflate);
/// # Ok::<(), terse_gateway::UpstreamError>(())
/// ```
///
/// An answer with no coding the decompression undoes (nearly every one)
/// passes through as it came, without tower-http's machinery (its future,
/// its body); only a coded answer goes through [`Decompression`], which
/// it would take the same way.
#[derive(Clone, Debug)]
pub struct Inflate<S> {
    inner: S,
    budget: Option<MemoryBudget>,
    limit: BlockingLimit,
    /// The inner service asks its upstream for identity itself (the
    /// gateway's [`Upstream`](crate::Upstream) does): the decompression's
    /// codings are not put in a request only to be replaced.
    asks_identity: bool,
}

impl<S> Inflate<S> {
    /// Decompresses the answers of `inner`, inflating under `limit`.
    pub fn new(inner: S, limit: BlockingLimit) -> Self {
        Inflate {
            inner,
            budget: None,
            limit,
            asks_identity: false,
        }
    }

    /// For an inner service that sends every request on with
    /// `Accept-Encoding: identity` whatever it came with (the gateway's
    /// `Upstream`).
    pub(crate) fn asking_identity(mut self) -> Self {
        self.asks_identity = true;
        self
    }

    /// Holds the compressed bytes kept for a rewind against `budget` (the
    /// layer's): an answer whose next bytes do not fit keeps none and is
    /// no longer rewound. Default: no budget.
    ///
    /// ```
    /// use terse_gateway::{Inflate, Upstream};
    /// use tower_terse::settings::{BlockingLimit, MemoryBudget};
    ///
    /// let upstream = Upstream::new("http://127.0.0.1:8000")?;
    /// let inflate = Inflate::new(upstream, BlockingLimit::per_core())
    ///     .memory_budget(MemoryBudget::new(64 << 20));
    /// # drop(inflate);
    /// # Ok::<(), terse_gateway::UpstreamError>(())
    /// ```
    pub fn memory_budget(mut self, budget: MemoryBudget) -> Self {
        self.budget = Some(budget);
        self
    }
}

impl<S, ReqB, ResB> Service<Request<ReqB>> for Inflate<S>
where
    S: Service<Request<ReqB>, Response = Response<ResB>>,
    S::Future: Send + 'static,
    ResB: Body<Data = Bytes> + Send + 'static,
    ResB::Error: Into<BoxError>,
{
    type Response = Response<Inflated<ResB>>;
    type Error = S::Error;
    type Future = InflateFuture<S::Future, ResB>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<ReqB>) -> Self::Future {
        // What the client takes, before the upstream is asked for identity:
        // its `Accept-Encoding` values only (none, most often: no allocation).
        // A request with none gets the codings tower-http's decompression
        // asks for when there are none (as a constant), unless the inner
        // service replaces them with identity anyway.
        let accepted = if self.asks_identity {
            // A look along the few headers a request has costs less than
            // hashing the name; the values come in the same order.
            request
                .headers()
                .iter()
                .filter(|(name, _)| *name == ACCEPT_ENCODING)
                .map(|(_, value)| value.clone())
                .collect()
        } else {
            match request.headers_mut().entry(ACCEPT_ENCODING) {
                Entry::Occupied(values) => values.iter().cloned().collect(),
                Entry::Vacant(none) => {
                    none.insert(DECOMPRESSED_CODINGS);
                    Vec::new()
                }
            }
        };
        InflateFuture {
            state: FutureState::Answer {
                future: self.inner.call(request),
            },
            accepted: Some(accepted),
            budget: self.budget.clone(),
            limit: self.limit.clone(),
        }
    }
}

pin_project! {
    /// The future of [`Inflate`]: the inner service's, then, for an answer
    /// in a coding the decompression undoes, tower-http's decompression of
    /// it (ready at once).
    pub struct InflateFuture<F, B>
    where
        B: Body<Data = Bytes>,
    {
        #[pin]
        state: FutureState<F, B>,
        // The client's `Accept-Encoding` values.
        accepted: Option<Vec<HeaderValue>>,
        budget: Option<MemoryBudget>,
        limit: BlockingLimit,
    }
}

/// An answer handed to tower-http's decompression: the request carries it
/// to [`Answered`], which gives it back.
type Decompressing<B> = tower_http::decompression::ResponseFuture<
    std::future::Ready<Result<Response<Tee<B>>, Infallible>>,
>;

pin_project! {
    #[project = FutureStateProj]
    enum FutureState<F, B>
    where
        B: Body<Data = Bytes>,
    {
        // Waiting for the inner service's answer.
        Answer {
            #[pin]
            future: F,
        },
        // A coded answer being wrapped in the decompression body.
        Decompress {
            #[pin]
            future: Decompressing<B>,
            tape: Option<Arc<Tape>>,
        },
    }
}

impl<F, B: Body<Data = Bytes>> std::fmt::Debug for InflateFuture<F, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InflateFuture").finish_non_exhaustive()
    }
}

impl<F, B, E> Future for InflateFuture<F, B>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Output = Result<Response<Inflated<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        loop {
            let next = match this.state.as_mut().project() {
                FutureStateProj::Answer { future } => {
                    let (parts, body) = ready!(future.poll(cx))?.into_parts();
                    // The coding first: most answers have none, and their
                    // type is then not read. tower-http undoes the first
                    // `Content-Encoding` when it names one of its codings
                    // exactly; every other answer it passes on as it came.
                    // The first value, as `get` gives it, found along the
                    // answer's few headers rather than by hashing the name.
                    let coding = parts
                        .headers
                        .iter()
                        .find(|(name, _)| *name == CONTENT_ENCODING)
                        .map(|(_, value)| value)
                        .filter(|c| CODINGS.iter().any(|known| c.as_bytes() == known.as_bytes()))
                        .cloned();
                    let Some(coding) = coding else {
                        let body = Inflated::new(Source::Plain { body }, None, this.limit);
                        return Poll::Ready(Ok(Response::from_parts(parts, body)));
                    };
                    // Compressed JSON (the only answer the layer reads) is
                    // put on a tape as it comes.
                    let json = parts.status.is_success()
                        && parts
                            .headers
                            .get(CONTENT_TYPE)
                            .is_some_and(tower_terse::proxy::is_json_media_type);
                    let tape = json.then(|| {
                        Arc::new(Tape {
                            coding,
                            state: Mutex::default(),
                            budget: this.budget.take(),
                        })
                    });
                    let tee = Tee {
                        body,
                        tape: tape.clone(),
                    };
                    let mut decompression = Decompression::new(Answered);
                    let answer = Request::new(Response::from_parts(parts, tee));
                    FutureState::Decompress {
                        future: decompression.call(answer),
                        tape,
                    }
                }
                FutureStateProj::Decompress { future, tape } => {
                    let Ok(response) = ready!(future.poll(cx));
                    let (mut parts, body) = response.into_parts();
                    let accepted = this.accepted.take().unwrap_or_default();
                    let tape = tape.take().filter(|tape| accepts(&accepted, &tape.coding));
                    if let Some(tape) = &tape {
                        let tape = tape.clone();
                        parts.extensions.insert(Rewind::new(move |headers| {
                            if !tape.rewind() {
                                return false;
                            }
                            headers.insert(CONTENT_ENCODING, tape.coding.clone());
                            headers.append(VARY, HeaderValue::from_static("accept-encoding"));
                            true
                        }));
                    }
                    let body = Source::Coded {
                        body: Box::pin(body),
                    };
                    let body = Inflated::new(body, tape, this.limit);
                    return Poll::Ready(Ok(Response::from_parts(parts, body)));
                }
            };
            this.state.set(next);
        }
    }
}

/// The service under the decompression of a coded answer: it gives back
/// the answer its request carries, at once.
#[derive(Clone, Copy)]
struct Answered;

impl<B> Service<Request<Response<B>>> for Answered {
    type Response = Response<B>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response<B>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Response<B>>) -> Self::Future {
        std::future::ready(Ok(request.into_body()))
    }
}

/// Whether a client whose request had the `Accept-Encoding` values
/// `accepted` takes a body in `coding` (RFC 9110 §12.5.3). A request
/// without `Accept-Encoding` gets identity: what a plain `curl` can read.
fn accepts(accepted: &[HeaderValue], coding: &HeaderValue) -> bool {
    let Ok(coding) = coding.to_str() else {
        return false;
    };
    let mut star = false;
    for item in accepted
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
    {
        let mut pieces = item.split(';');
        let name = pieces.next().unwrap_or("").trim();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .filter_map(|q| q.trim().parse::<f32>().ok())
            .next()
            .unwrap_or(1.0);
        if name.eq_ignore_ascii_case(coding) {
            return q > 0.0;
        }
        if name == "*" {
            star = q > 0.0;
        }
    }
    star
}

/// The compressed bytes of one answer, kept while they may be sent on.
#[derive(Debug)]
struct Tape {
    coding: HeaderValue,
    state: Mutex<TapeState>,
    budget: Option<MemoryBudget>,
}

#[derive(Debug, Default)]
struct TapeState {
    chunks: Vec<Bytes>,
    bytes: usize,
    /// What `chunks` hold of the budget.
    held: Option<Reservation>,
    /// Some bytes were not kept: the answer can no longer be rewound.
    lost: bool,
    rewound: bool,
}

impl Tape {
    fn state(&self) -> std::sync::MutexGuard<'_, TapeState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `data`, while it can be sent on.
    fn keep(&self, data: &Bytes) {
        let mut state = self.state();
        if state.lost || state.rewound {
            return;
        }
        let fits = match (&mut state.held, &self.budget) {
            (Some(held), _) => held.try_grow(data.len()),
            (None, Some(budget)) => match budget.try_reserve(data.len()) {
                Some(held) => {
                    state.held = Some(held);
                    true
                }
                None => false,
            },
            (None, None) => true,
        };
        match state.bytes.checked_add(data.len()) {
            Some(bytes) if fits && bytes <= REWIND_BYTES => {
                state.bytes = bytes;
                state.chunks.push(data.clone());
            }
            _ => state.lose(),
        }
    }

    /// Gives back what is kept unless the answer was rewound: the layer
    /// read the whole body, or dropped it, and will not rewind it now.
    fn release(&self) {
        let mut state = self.state();
        if !state.rewound {
            state.lose();
        }
    }

    /// Marks the answer to be sent as it came, if every byte was kept.
    fn rewind(&self) -> bool {
        let mut state = self.state();
        if !state.lost {
            state.rewound = true;
        }
        !state.lost
    }

    /// The bytes kept, once the answer was rewound, with what they hold of
    /// the budget.
    fn take_rewound(&self) -> Option<(Vec<Bytes>, Option<Reservation>)> {
        let mut state = self.state();
        if !state.rewound || state.lost {
            return None;
        }
        Some((std::mem::take(&mut state.chunks), state.held.take()))
    }
}

impl TapeState {
    /// Keeps nothing from now on: the answer can no longer be rewound.
    fn lose(&mut self) {
        self.lost = true;
        self.chunks = Vec::new();
        self.held = None;
    }
}

pin_project! {
    /// A compressed body as it comes, its bytes kept on a tape (see
    /// [`Inflate`]).
    pub struct Tee<B> {
        #[pin]
        body: B,
        tape: Option<Arc<Tape>>,
    }
}

impl<B: Body<Data = Bytes>> Body for Tee<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.project();
        let frame = ready!(this.body.poll_frame(cx));
        if let (Some(tape), Some(Ok(frame))) = (this.tape.as_ref(), &frame) {
            if let Some(data) = frame.data_ref() {
                tape.keep(data);
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

pin_project! {
    /// An upstream's body as [`Inflate`] gives it to the layer: inflated,
    /// under the limit past [`READY_BYTES`], or, once rewound, as it came.
    pub struct Inflated<B>
    where
        B: Body<Data = Bytes>,
    {
        #[pin]
        body: Source<B>,
        tape: Option<Released>,
        // The compressed bytes to send first, once rewound, and what they
        // hold of the budget until they are sent.
        rewound: Option<VecDeque<Bytes>>,
        rewound_held: Option<Reservation>,
        // Frames inflated off the workers, not handed on yet.
        queue: VecDeque<Frame<Bytes>>,
        // How the inflating ended, after the queue.
        ended: Option<Option<BoxError>>,
        // Bytes inflated since the upstream last made the body wait.
        ready: usize,
        limit: BlockingLimit,
    }
}

pin_project! {
    /// What an [`Inflated`] body reads: an answer as it came, inline (the
    /// upstream's body is some 140 bytes: moving it costs less than
    /// allocating it), or an inflated one, boxed: tower-http's
    /// decompression body holds its decoders' state inline (some 500
    /// bytes), and every answer the layers pass on (a read body's too,
    /// whose type is still this) is moved from future to future on its way
    /// out, each move a copy of its body.
    #[project = SourceProj]
    enum Source<B>
    where
        B: Body<Data = Bytes>,
    {
        // An answer in no coding the decompression undoes, as it came.
        Plain {
            #[pin]
            body: B,
        },
        // A coded answer, inflated.
        Coded {
            body: Pin<Box<DecompressionBody<Tee<B>>>>,
        },
    }
}

/// The next frame of `body`, its error boxed: the upstream's own body and
/// the one under the decompression are polled alike.
fn poll_boxed<B>(
    body: Pin<&mut B>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Frame<Bytes>, BoxError>>>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    body.poll_frame(cx)
        .map(|frame| frame.map(|frame| frame.map_err(Into::into)))
}

impl<B> Source<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.project() {
            SourceProj::Plain { body } => poll_boxed(body, cx),
            SourceProj::Coded { body } => body.as_mut().poll_frame(cx),
        }
    }

    /// The next frame as the upstream sent it, past the decompression.
    fn poll_as_it_came(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.project() {
            SourceProj::Plain { body } => poll_boxed(body, cx),
            SourceProj::Coded { body } => poll_boxed(body.as_mut().get_pin_mut(), cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Source::Plain { body } => body.is_end_stream(),
            // tower-http's decompression body never says it has ended (it
            // keeps `is_end_stream`'s default).
            Source::Coded { body } => body.is_end_stream(),
        }
    }

    /// Whether the upstream's bytes have all come, past the decompression.
    fn came_whole(&self) -> bool {
        match self {
            Source::Plain { body } => body.is_end_stream(),
            Source::Coded { body } => body.get_ref().is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Source::Plain { body } => body.size_hint(),
            Source::Coded { body } => body.size_hint(),
        }
    }
}

impl<B> Inflated<B>
where
    B: Body<Data = Bytes>,
{
    fn new(body: Source<B>, tape: Option<Arc<Tape>>, limit: &BlockingLimit) -> Self {
        Inflated {
            body,
            tape: tape.map(Released),
            rewound: None,
            rewound_held: None,
            queue: VecDeque::new(),
            ended: None,
            ready: 0,
            limit: limit.clone(),
        }
    }
}

impl<B> Body for Inflated<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let mut this = self.project();
        if this.rewound.is_none() {
            if let Some((chunks, held)) = this.tape.as_ref().and_then(|tape| tape.0.take_rewound())
            {
                *this.rewound = Some(chunks.into());
                *this.rewound_held = held;
            }
        }
        if let Some(chunks) = this.rewound {
            if let Some(chunk) = chunks.pop_front() {
                if let Some(held) = this.rewound_held {
                    held.resize(held.bytes().saturating_sub(chunk.len()));
                }
                return Poll::Ready(Some(Ok(Frame::data(chunk))));
            }
            *this.rewound_held = None;
            // The rest as it comes, past the decompression.
            return this.body.poll_as_it_came(cx);
        }
        if let Some(frame) = this.queue.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        if let Some(ended) = this.ended.take() {
            if ended.is_none() {
                released(this.tape);
            }
            return Poll::Ready(ended.map(Err));
        }
        if *this.ready < READY_BYTES {
            let frame = this.body.poll_frame(cx);
            match &frame {
                Poll::Pending => *this.ready = 0,
                Poll::Ready(Some(Ok(frame))) => {
                    let bytes = frame.data_ref().map_or(0, Buf::remaining);
                    *this.ready = this.ready.saturating_add(bytes);
                }
                Poll::Ready(None) => released(this.tape),
                Poll::Ready(_) => {}
            }
            return frame;
        }
        let limit = this.limit.clone();
        let mut body = this.body.as_mut();
        let (queue, ended, ready) = (&mut *this.queue, &mut *this.ended, &mut *this.ready);
        let inflate = || {
            let mut batch = 0usize;
            while batch < BATCH_BYTES {
                match body.as_mut().poll_frame(cx) {
                    Poll::Pending => {
                        *ready = 0;
                        break;
                    }
                    Poll::Ready(Some(Ok(frame))) => {
                        batch = batch.saturating_add(frame.data_ref().map_or(0, Buf::remaining));
                        queue.push_back(frame);
                    }
                    Poll::Ready(Some(Err(err))) => {
                        *ended = Some(Some(err));
                        break;
                    }
                    Poll::Ready(None) => {
                        *ended = Some(None);
                        break;
                    }
                }
            }
        };
        match limit.off_the_workers(inflate) {
            OffWorkers::Done(()) => {}
            OffWorkers::NoSlot => {
                // Every slot is taken: the others on this worker run first.
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            // No runtime that can move its other tasks: inflate here.
            OffWorkers::Here => {
                *this.ready = 0;
                let frame = ready!(this.body.as_mut().poll_frame(cx));
                if frame.is_none() {
                    released(this.tape);
                }
                return Poll::Ready(frame);
            }
        }
        if let Some(frame) = this.queue.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        match this.ended.take() {
            Some(ended) => {
                if ended.is_none() {
                    released(this.tape);
                }
                Poll::Ready(ended.map(Err))
            }
            // The upstream has nothing more yet; it wakes the task.
            None => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        match (&self.rewound, &self.ended) {
            (Some(chunks), _) => chunks.is_empty() && self.body.came_whole(),
            (None, Some(ended)) => self.queue.is_empty() && ended.is_none(),
            (None, None) => self.queue.is_empty() && self.body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match (&self.rewound, self.queue.is_empty(), &self.ended) {
            (None, true, None) => self.body.size_hint(),
            _ => SizeHint::default(),
        }
    }
}

/// The tape of an [`Inflated`] body, given back when the body is dropped
/// without having been rewound (the layer read it whole, or gave up on it).
#[derive(Debug)]
struct Released(Arc<Tape>);

impl Drop for Released {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// The layer has read the whole body: it will not rewind it.
fn released(tape: &mut Option<Released>) {
    // Dropping it releases what it kept.
    tape.take();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(accept: &[&str]) -> Vec<HeaderValue> {
        accept
            .iter()
            .map(|value| HeaderValue::from_str(value).expect("header"))
            .collect()
    }

    /// Every answer is moved from future to future on its way out, its
    /// body copied each time: the decompression's state stays behind a
    /// pointer (it alone was some 500 bytes), and only the upstream's own
    /// body is inline beside what `Inflated` keeps.
    #[test]
    fn an_inflated_body_is_small_to_move() {
        let size = std::mem::size_of::<Inflated<crate::UpstreamBody>>();
        let upstream = std::mem::size_of::<crate::UpstreamBody>();
        assert!(size <= upstream + 160, "{size} bytes");
        assert!(size <= 320, "{size} bytes");
    }

    #[tokio::test]
    async fn a_request_without_codings_asks_for_those_the_decompression_would() {
        use tower::ServiceExt;
        // What reaches the service under tower-http's decompression alone.
        let seen = Arc::new(Mutex::new(None));
        let into = seen.clone();
        let service = tower::service_fn(move |request: Request<()>| {
            *into.lock().expect("lock") = request.headers().get(ACCEPT_ENCODING).cloned();
            async {
                Ok::<_, std::convert::Infallible>(Response::new(
                    http_body_util::Empty::<Bytes>::new(),
                ))
            }
        });
        Decompression::new(service)
            .oneshot(Request::new(()))
            .await
            .expect("answer");
        let alone = seen.lock().expect("lock").take();
        assert_eq!(alone, Some(DECOMPRESSED_CODINGS));
    }

    /// A coded answer is inflated as tower-http's decompression would; a
    /// plain one passes through as it came, its length kept; a service
    /// that asks for identity itself is not sent the codings.
    #[tokio::test]
    async fn a_coded_answer_is_inflated_and_a_plain_one_passes_as_it_came() {
        use http::header::CONTENT_LENGTH;
        use http_body_util::{BodyExt, Full};
        use tower::ServiceExt;

        let json = Bytes::from_static(br#"{"tasks":["write","write","write","write","write"]}"#);
        let made = json.clone();
        let compression =
            tower_http::compression::Compression::new(tower::service_fn(move |_: Request<()>| {
                let made = made.clone();
                async move {
                    let mut response = Response::new(Full::new(made));
                    let json = HeaderValue::from_static("application/json");
                    response.headers_mut().insert(CONTENT_TYPE, json);
                    Ok::<_, Infallible>(response)
                }
            }));
        let mut asked = Request::new(());
        let gzip = HeaderValue::from_static("gzip");
        asked.headers_mut().insert(ACCEPT_ENCODING, gzip.clone());
        let compressed = compression.oneshot(asked).await.expect("compressed");
        assert_eq!(compressed.headers()[CONTENT_ENCODING], gzip);
        let gzipped = compressed
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();

        for (coding, body) in [(Some(gzip), gzipped), (None, json.clone())] {
            let seen = Arc::new(Mutex::new(None));
            let into = seen.clone();
            let coding_of = coding.clone();
            let service = tower::service_fn(move |request: Request<()>| {
                *into.lock().expect("lock") = Some(request.headers().get(ACCEPT_ENCODING).cloned());
                let mut response = Response::new(Full::new(body.clone()));
                let headers = response.headers_mut();
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
                if let Some(coding) = &coding_of {
                    headers.insert(CONTENT_ENCODING, coding.clone());
                }
                async move { Ok::<_, Infallible>(response) }
            });
            let plain = coding.is_none();
            let inflate = Inflate::new(service, BlockingLimit::per_core()).asking_identity();
            let response = inflate.oneshot(Request::new(())).await.expect("answer");
            assert_eq!(
                *seen.lock().expect("lock"),
                Some(None),
                "no codings asked for"
            );
            assert!(!response.headers().contains_key(CONTENT_ENCODING));
            assert_eq!(
                response.headers().contains_key(CONTENT_LENGTH),
                plain,
                "a plain answer keeps its length, an inflated one loses it"
            );
            let inflated = response
                .into_body()
                .collect()
                .await
                .expect("body")
                .to_bytes();
            assert_eq!(inflated, json);
        }
    }

    #[test]
    fn a_coding_is_accepted_as_the_request_says() {
        let gzip = HeaderValue::from_static("gzip");
        assert!(accepts(&headers(&["gzip"]), &gzip));
        assert!(accepts(&headers(&["br", "GZIP;q=0.5"]), &gzip));
        assert!(accepts(&headers(&["*"]), &gzip));
        assert!(!accepts(&headers(&[]), &gzip), "no header: identity");
        assert!(!accepts(&headers(&["identity"]), &gzip));
        assert!(!accepts(&headers(&["gzip;q=0"]), &gzip));
        assert!(!accepts(&headers(&["*, gzip;q=0"]), &gzip));
        assert!(!accepts(&headers(&["*;q=0"]), &gzip));
    }

    #[test]
    fn a_tape_past_its_bound_cannot_be_rewound() {
        let tape = Tape {
            coding: HeaderValue::from_static("gzip"),
            state: Mutex::default(),
            budget: None,
        };
        tape.keep(&Bytes::from_static(b"abc"));
        assert!(tape.rewind());
        let (chunks, held) = tape.take_rewound().expect("rewound");
        assert_eq!(
            (chunks, held.is_none()),
            (vec![Bytes::from_static(b"abc")], true)
        );
        let tape = Tape {
            coding: HeaderValue::from_static("gzip"),
            state: Mutex::default(),
            budget: None,
        };
        tape.keep(&Bytes::from(vec![0; REWIND_BYTES + 1]));
        assert!(!tape.rewind());
        assert!(tape.take_rewound().is_none());
    }

    #[test]
    fn a_tape_holds_its_bytes_against_the_budget_until_released() {
        let budget = MemoryBudget::new(10);
        let tape = Tape {
            coding: HeaderValue::from_static("gzip"),
            state: Mutex::default(),
            budget: Some(budget.clone()),
        };
        tape.keep(&Bytes::from_static(b"abcdef"));
        assert_eq!(budget.in_use(), 6);
        tape.release();
        assert_eq!(budget.in_use(), 0);
        assert!(!tape.rewind(), "released: nothing to rewind to");

        let tape = Tape {
            coding: HeaderValue::from_static("gzip"),
            state: Mutex::default(),
            budget: Some(budget.clone()),
        };
        tape.keep(&Bytes::from_static(b"abcdef"));
        tape.keep(&Bytes::from_static(b"ghijkl"));
        assert_eq!(budget.in_use(), 0, "past the budget: nothing kept");
        assert!(!tape.rewind());
    }
}
