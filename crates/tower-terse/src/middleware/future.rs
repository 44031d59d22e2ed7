//! [`ResponseFuture`]: waits for the inner response, then reads and rewrites
//! its body when the plan and the headers allow it.

use std::future::Future;
use std::pin::Pin;

use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use http::{HeaderMap, Response, StatusCode, response::Parts};
use http_body::{Body, SizeHint};
use pin_project_lite::pin_project;

use super::complete::Complete;
use super::headers::{Heads, Rewritable, add_vary, mark_format, rewritable, rewritable_heads};
use super::not_modified::relabel_not_modified;
use super::offload::Offload;
use super::plan::{Handling, Plan};
use super::toon_request::{Called, Decoding, RequestTokens};
use super::{LayerConfig, TerseBody};
use crate::blocking::OffWorkers;
use crate::bounded::Bounded;
use crate::budget::Reservation;
use crate::error_envelope::ErrorEnvelope;
use crate::format::Format;
use crate::passthrough::Passthrough;
use crate::render::{Fallback, Rendering, ResponseFormat};
use crate::rewind::Rewind;

pin_project! {
    /// Response future of [`Terse`](super::Terse): `F` is the service's
    /// future, `B` its response body.
    pub struct ResponseFuture<F, B>
    where
        B: Body,
    {
        #[pin]
        state: State<F, B>,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F, B>
    where
        B: Body,
    {
        // Reading and decoding a TOON request body; then the service is
        // called, and the plan goes on to `Call`.
        Decode {
            // The service's type is erased here, so that the future's
            // type does not name it.
            pending: Box<dyn Decoding<F>>,
            then: Option<Handling>,
        },
        // Waiting for the handler. Taken when the response arrives.
        Call {
            #[pin]
            future: F,
            handling: Option<Handling>,
            // The tokens of a decoded request body, for the response.
            request: Option<RequestTokens>,
        },
        Read {
            reading: Option<Reading<B>>,
        },
        // A large body being rewritten on the blocking pool.
        Rewrite {
            offload: Offload<B>,
        },
        Refused {
            response: Option<Response<Bytes>>,
        },
    }
}

impl<F, B: Body> ResponseFuture<F, B> {
    /// The service's answer to come, handled as `handling` says.
    pub(crate) fn call(future: F, handling: Handling) -> Self {
        ResponseFuture {
            state: State::Call {
                future,
                handling: Some(handling),
                request: None,
            },
        }
    }

    /// A request to decode first, then handled as `handling` says.
    pub(crate) fn decode(pending: Box<dyn Decoding<F>>, handling: Handling) -> Self {
        ResponseFuture {
            state: State::Decode {
                pending,
                then: Some(handling),
            },
        }
    }

    pub(crate) fn refuse(refusal: ErrorEnvelope, config: &LayerConfig) -> Self {
        ResponseFuture {
            state: refused(refusal, config),
        }
    }
}

/// The state that answers `refusal` in the error envelope.
fn refused<F, B: Body>(refusal: ErrorEnvelope, config: &LayerConfig) -> State<F, B> {
    let mut response = refusal.into_http_response();
    add_vary(response.headers_mut(), &config.vary);
    State::Refused {
        response: Some(response),
    }
}

impl<F, B, E> Future for ResponseFuture<F, B>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: Body,
{
    type Output = Result<Response<TerseBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.project().state;
        loop {
            let next = match state.as_mut().project() {
                StateProj::Decode { pending, then } => {
                    let called = ready!(pending.poll_call(cx));
                    let Some(handling) = then.take() else {
                        return Poll::Pending;
                    };
                    match called {
                        Called::Service(future, tokens) => State::Call {
                            future,
                            handling: Some(handling),
                            request: Some(tokens),
                        },
                        Called::Refused(refusal) => refused(refusal, handling.config()),
                    }
                }
                StateProj::Call {
                    future,
                    handling,
                    request,
                } => {
                    let mut response = ready!(future.poll(cx))?;
                    let Some(handling) = handling.take() else {
                        return Poll::Pending;
                    };
                    if let Some(tokens) = request.take() {
                        response.extensions_mut().insert(tokens);
                    }
                    if response.extensions().get::<Passthrough>().is_some() {
                        return Poll::Ready(Ok(response.map(TerseBody::stream)));
                    }
                    let plan = match handling {
                        Handling::StepAside(config) => {
                            return Poll::Ready(Ok(step_aside(response, &config)));
                        }
                        Handling::Serve(plan) => plan,
                    };
                    match start(response, plan) {
                        Started::Sent(response) => return Poll::Ready(Ok(response)),
                        Started::Read(reading) => State::Read {
                            reading: Some(reading),
                        },
                    }
                }
                StateProj::Read { reading } => {
                    let Some(reading_now) = reading.as_mut() else {
                        return Poll::Pending;
                    };
                    let end = ready!(reading_now.poll_read(cx));
                    let Some(reading) = reading.take() else {
                        return Poll::Pending;
                    };
                    match reading.finish(end) {
                        ReadDone::Sent(response) => return Poll::Ready(Ok(response)),
                        ReadDone::Complete(mut read) => {
                            // A rewrite done before for these bytes and this
                            // plan is not costed, scheduled or done again.
                            if let Some(kept) = read.recall() {
                                return Poll::Ready(Ok(read.deliver(kept)));
                            }
                            let cost = read.cost();
                            if !read.affords(cost.memory) {
                                return Poll::Ready(Ok(read.refused()));
                            }
                            let threshold = read.plan.config.offload_threshold;
                            let (read, tie) = if cost.work < threshold {
                                // Here, with what is left below the threshold
                                // for a near tie's exact counts, if one comes.
                                match read.render_here_within(threshold - cost.work) {
                                    Rendering::Done(rendered) => {
                                        return Poll::Ready(Ok(read.send(rendered)));
                                    }
                                    Rendering::Tie(tie) => (read, Some(tie)),
                                }
                            } else {
                                (read, None)
                            };
                            match Offload::start(Box::new(read), tie) {
                                Ok(offload) => State::Rewrite { offload },
                                Err((read, tie)) => {
                                    return Poll::Ready(Ok(read.finish_here(tie)));
                                }
                            }
                        }
                    }
                }
                StateProj::Rewrite { offload } => {
                    return offload.poll_rewritten(cx).map(Ok);
                }
                StateProj::Refused { response } => {
                    // `None` only when polled again after completing, which
                    // the `Future` contract leaves open: never ready again.
                    let Some(response) = response.take() else {
                        return Poll::Pending;
                    };
                    return Poll::Ready(Ok(response.map(|body| TerseBody::full(body, None))));
                }
            };
            state.set(next);
        }
    }
}

/// What [`start`] decided.
enum Started<B: Body> {
    /// The response goes out now, its body streamed.
    Sent(Response<TerseBody<B>>),
    /// The body has to be read first.
    Read(Reading<B>),
}

/// The response to a request whose format the handler owns, streamed: it
/// varies on the format headers as any response the layer could rewrite.
fn step_aside<B: Body>(response: Response<B>, config: &LayerConfig) -> Response<TerseBody<B>> {
    let (mut parts, body) = response.into_parts();
    // A route the layer is turned off for gets nothing, not even `Vary`.
    let could_rewrite = rewritable(&parts, config.max_body_bytes) == Rewritable::Yes;
    if config.enabled && (could_rewrite || parts.status == StatusCode::NOT_MODIFIED) {
        add_vary(&mut parts.headers, &config.vary);
    }
    Response::from_parts(parts, TerseBody::stream(body))
}

/// Marks a response sent as the handler made it: JSON, and why, when the
/// request asked for something else.
fn as_it_came(parts: &mut Parts, plan: &Plan, reason: Fallback) {
    let fallback = plan.rewrites().then_some(reason);
    mark_format(
        parts,
        ResponseFormat::new(Format::Json, fallback),
        &plan.config.vary,
    );
}

/// Decides from the headers: the response as it goes out, or the body to read.
fn start<B: Body>(response: Response<B>, plan: Plan) -> Started<B> {
    let config = plan.config.clone();
    let (mut parts, body) = response.into_parts();
    if parts.status == StatusCode::NOT_MODIFIED {
        // What was not modified is the representation the request chose,
        // and its tag is that representation's (the request carried only
        // such tags, see `untag_if_none_match`).
        relabel_not_modified(&mut parts.headers, &plan);
        add_vary(&mut parts.headers, &config.vary);
        return Started::Sent(Response::from_parts(parts, TerseBody::stream(body)));
    }
    let heads = match rewritable_heads(&parts, config.max_body_bytes) {
        (Rewritable::Yes, heads) => heads.unwrap_or_default(),
        (Rewritable::No, _) => {
            return Started::Sent(Response::from_parts(parts, TerseBody::stream(body)));
        }
        (Rewritable::Blocked(reason), _) => {
            if reason == Fallback::Compressed {
                warn_compressed_once();
            }
            as_it_came(&mut parts, &plan, reason);
            return Started::Sent(Response::from_parts(parts, TerseBody::stream(body)));
        }
    };
    let hint = body.size_hint();
    if !plan.reads_body(&hint) {
        // Sent as the handler made it, uncounted (it may be a stream): JSON
        // was asked for, so JSON it is.
        mark_format(
            &mut parts,
            ResponseFormat::new(Format::Json, None),
            &config.vary,
        );
        return Started::Sent(Response::from_parts(parts, TerseBody::stream(body)));
    }
    // Never trust a declared length: reserve at most the limit, and grow
    // as bytes arrive.
    let expected = hint.lower().min(config.max_body_bytes as u64) as usize;
    let held = match &config.budget {
        Some(budget) => match budget.try_reserve(expected) {
            Some(held) => Some(held),
            // No room for this rewrite: it is not started.
            None => {
                as_it_came(&mut parts, &plan, Fallback::Budget);
                return Started::Sent(Response::from_parts(parts, TerseBody::stream(body)));
            }
        },
        None => None,
    };
    Started::Read(Reading {
        held,
        parts,
        hint,
        body: Box::pin(body),
        buffer: Bounded::new(config.max_body_bytes, expected),
        trailers: None,
        plan,
        heads,
    })
}

/// A body being read up to the limit.
struct Reading<B: Body> {
    parts: Parts,
    /// The body's size hint before reading, to send it on unchanged.
    hint: SizeHint,
    body: Pin<Box<B>>,
    buffer: Bounded,
    /// The bytes held against the memory budget, when there is one.
    held: Option<Reservation>,
    // Boxed: most bodies have none, and a map inline would be moved with
    // every body read.
    trailers: Option<Box<HeaderMap>>,
    plan: Plan,
    heads: Heads,
}

/// What one frame did.
enum Step<E> {
    /// Bytes were read (0 for trailers).
    Read(usize),
    End(ReadEnd<E>),
    Pending,
}

/// Why reading stopped.
enum ReadEnd<E> {
    Complete,
    /// Past `max_body_bytes`, or past what the memory budget could hold.
    OverLimit(Fallback),
    Failed(E),
}

impl<B: Body> Reading<B> {
    /// Reads until the body ends, passes a limit or has nothing ready.
    ///
    /// A body whose frames keep coming ready (a decompressed gzip bomb, a
    /// large upstream answer already in the socket buffer) is CPU work, not
    /// waiting: once one call has read `offload_threshold` bytes, the rest
    /// is read on a thread the runtime lets block
    /// ([`BlockingLimit::off_the_workers`](crate::settings::BlockingLimit::off_the_workers)), so the other
    /// connections of this worker move on. When every slot of the limit
    /// is taken, the read goes on here, a threshold's worth per turn, the
    /// worker's other tasks running in between.
    fn poll_read(&mut self, cx: &mut Context<'_>) -> Poll<ReadEnd<B::Error>> {
        let mut read_here = 0usize;
        loop {
            // Something is read each turn, whatever the threshold.
            if read_here > 0 && read_here >= self.plan.config.offload_threshold {
                let limit = self.plan.config.limit.clone();
                match limit.off_the_workers(|| self.read_ready(cx)) {
                    OffWorkers::Done(end) => return end,
                    OffWorkers::NoSlot => {
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                    // No runtime that can move its other tasks: read here.
                    OffWorkers::Here => read_here = 0,
                }
            }
            match self.step(cx) {
                Step::Read(bytes) => read_here = read_here.saturating_add(bytes),
                Step::End(end) => return Poll::Ready(end),
                Step::Pending => return Poll::Pending,
            }
        }
    }

    /// Reads every frame that is ready.
    fn read_ready(&mut self, cx: &mut Context<'_>) -> Poll<ReadEnd<B::Error>> {
        loop {
            match self.step(cx) {
                Step::Read(_) => {}
                Step::End(end) => return Poll::Ready(end),
                Step::Pending => return Poll::Pending,
            }
        }
    }

    /// Reads one frame.
    fn step(&mut self, cx: &mut Context<'_>) -> Step<B::Error> {
        let frame = match self.body.as_mut().poll_frame(cx) {
            Poll::Pending => return Step::Pending,
            Poll::Ready(None) => return Step::End(ReadEnd::Complete),
            Poll::Ready(Some(Err(err))) => return Step::End(ReadEnd::Failed(err)),
            Poll::Ready(Some(Ok(frame))) => frame,
        };
        match frame.into_data() {
            Ok(mut data) => {
                let len = data.remaining();
                let needed = self.buffer.len().saturating_add(len);
                if let Some(held) = &mut self.held {
                    if needed > held.bytes() && !held.try_grow(needed - held.bytes()) {
                        // The budget is full: what was read streams on.
                        let _ = self.buffer.push(data.copy_to_bytes(len));
                        return Step::End(ReadEnd::OverLimit(Fallback::Budget));
                    }
                }
                if self.buffer.push(data.copy_to_bytes(len)).is_err() {
                    return Step::End(ReadEnd::OverLimit(Fallback::BodyLimit));
                }
                // A body that says it has nothing more (a declared length
                // read in full, most often in one frame) is not polled
                // again down every layer under this one only to say so.
                if self.body.is_end_stream() {
                    return Step::End(ReadEnd::Complete);
                }
                Step::Read(len)
            }
            Err(frame) => {
                if let Ok(trailers) = frame.into_trailers() {
                    match &mut self.trailers {
                        Some(all) => all.extend(trailers),
                        None => self.trailers = Some(Box::new(trailers)),
                    }
                }
                Step::Read(0)
            }
        }
    }

    /// The response when reading ended early, or the body read whole.
    fn finish(self, end: ReadEnd<B::Error>) -> ReadDone<B> {
        let Reading {
            mut parts,
            hint,
            body,
            buffer,
            held,
            trailers,
            plan,
            heads,
        } = self;
        let read = buffer.into_bytes();
        match end {
            ReadEnd::Complete => ReadDone::Complete(Complete {
                parts,
                hint,
                read,
                held,
                trailers,
                plan,
                miss: None,
                heads,
            }),
            ReadEnd::OverLimit(reason) => {
                as_it_came(&mut parts, &plan, reason);
                // A body an inner service changed (decompressed) goes back
                // to what it was, from its first byte: the rest of a gzip
                // bomb is not inflated only to be sent on.
                let rewound = parts
                    .extensions
                    .remove::<Rewind>()
                    .is_some_and(|rewind| rewind.rewind(&mut parts.headers));
                let read = if rewound { Bytes::new() } else { read };
                // The bytes read go out first: held against the budget
                // until the server has taken them, as a client that does
                // not read keeps them here.
                let held = held.map(|mut held| {
                    held.resize(read.len());
                    held
                });
                ReadDone::Sent(Response::from_parts(
                    parts,
                    TerseBody::replay(read, None, body).holding(held),
                ))
            }
            // Nothing was sent yet: the client learns that the answer
            // broke from a status rather than from a cut connection.
            ReadEnd::Failed(_) => {
                let failed = ErrorEnvelope::new(
                    StatusCode::BAD_GATEWAY,
                    "body_failed",
                    "the response body failed before it was complete",
                )
                .with_hint("retry later")
                .into_http_response();
                let (mut failed_parts, failed_body) = failed.into_parts();
                add_vary(&mut failed_parts.headers, &plan.config.vary);
                ReadDone::Sent(Response::from_parts(
                    failed_parts,
                    TerseBody::full(failed_body, None),
                ))
            }
        }
    }
}

/// What reading ended with.
enum ReadDone<B: Body> {
    /// The response goes out as it is, what was read first.
    Sent(Response<TerseBody<B>>),
    /// The whole body, ready to be rewritten.
    Complete(Complete),
}

/// Says once per process that a compressed JSON body reached the layer: a
/// compression layer inside this one turns off every rewrite for clients
/// that send `Accept-Encoding`, which is most of them, and nothing else
/// would tell.
fn warn_compressed_once() {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "a compressed JSON response reached TerseLayer, which cannot rewrite it \
             (X-Response-Format: json; fallback=compressed): put CompressionLayer outside \
             TerseLayer (add it after `.layer(TerseLayer::new())`) so that it compresses \
             what the layer wrote (logged once)"
        );
    }
}
