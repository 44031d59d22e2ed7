//! Request bodies sent as TOON, decoded to JSON before the wrapped service
//! is called: agents pay for every token they write, and TOON takes far
//! fewer than JSON for a list of records.
//!
//! The layer reads such a body whole (up to `max_body_bytes`), decodes it
//! strictly, and calls the service with the JSON: `Content-Type:
//! application/json`, `Content-Length` set, `Transfer-Encoding` gone.
//! Malformed TOON is a 400 with its line and column, and the service is
//! never called. Every other request passes on untouched and streamed.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, TRANSFER_ENCODING};
use http::{HeaderMap, HeaderValue, Request, StatusCode, request::Parts};
use http_body::Body;
use tower_service::Service;

use super::LayerConfig;
use super::request_body::TerseRequestBody;
use super::toon_shape::{ToonShape, shape};
use crate::blocking::OffWorkers;
use crate::bounded::Bounded;
use crate::budget::Reservation;
use crate::error_envelope::ErrorEnvelope;
use crate::render::is_identity_coding;
use crate::toon::DecodeOptions;

/// The hint every refusal of a TOON request ends with.
const HOW: &str = "Send the body as TOON (`Content-Type: text/toon`; `terse encode` writes it from JSON) or as JSON";

/// The tokens of a request body the layer decoded: as the client sent it
/// (TOON) and as the service got it (JSON). Left in the extensions of the
/// response, for the layers outside to log and count, and counted the way
/// `X-Token-Count` is.
///
/// ```
/// use tower_terse::RequestTokens;
///
/// let tokens = RequestTokens { received: 120, forwarded: 310 };
/// assert_eq!(tokens.saved(), 190);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestTokens {
    /// The TOON body's tokens.
    pub received: usize,
    /// The tokens of the JSON it was decoded into.
    pub forwarded: usize,
}

impl RequestTokens {
    /// The tokens the client did not have to write.
    pub fn saved(&self) -> usize {
        self.forwarded.saturating_sub(self.received)
    }
}

/// Whether a `Content-Type` names TOON: `text/toon` or `application/toon`,
/// in any case, with any parameters.
pub(crate) fn is_toon_media_type(value: &HeaderValue) -> bool {
    value.to_str().is_ok_and(|text| {
        let media = text.split(';').next().unwrap_or("").trim();
        media.eq_ignore_ascii_case("text/toon") || media.eq_ignore_ascii_case("application/toon")
    })
}

/// Whether the layer decodes this request's body: decoding is on, the body
/// is labelled TOON, and there is a body (one declared empty passes as it is).
pub(crate) fn decodes<B: Body>(config: &LayerConfig, req: &Request<B>) -> bool {
    // The body first: a request without one (a `GET`, most often) needs no
    // lookup of its type.
    config.decode_toon_requests
        && !req.body().is_end_stream()
        && req.body().size_hint().exact() != Some(0)
        && req
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(is_toon_media_type)
}

/// A request whose TOON body is being read and decoded, with the service
/// (ready) that will be called with the JSON.
pub(crate) struct PendingRequest<S, B> {
    service: Option<S>,
    parts: Option<Parts>,
    body: Pin<Box<B>>,
    buffer: Option<Bounded>,
    held: Option<Reservation>,
    deadline: ReadDeadline,
    config: Arc<LayerConfig>,
}

impl<S, B> std::fmt::Debug for PendingRequest<S, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingRequest")
            .field("called", &self.service.is_none())
            .finish()
    }
}

/// What the request came to.
pub(crate) enum Called<F> {
    /// The service was called with the JSON.
    Service(F, RequestTokens),
    /// The layer answers for it.
    Refused(ErrorEnvelope),
}

/// A request being read and decoded before its service is called, with
/// the service's type erased: what [`ResponseFuture`](super::ResponseFuture)
/// holds, so that its type names only the service's future.
pub(crate) trait Decoding<F>: Send {
    /// Reads the body to its end, decodes it, and calls the service.
    fn poll_call(&mut self, cx: &mut Context<'_>) -> Poll<Called<F>>;
}

impl<S, B> Decoding<S::Future> for PendingRequest<S, B>
where
    S: Service<Request<TerseRequestBody<B>>> + Send,
    B: Body + Send,
{
    fn poll_call(&mut self, cx: &mut Context<'_>) -> Poll<Called<S::Future>> {
        PendingRequest::poll_call(self, cx)
    }
}

impl<S, B> PendingRequest<S, B>
where
    S: Service<Request<TerseRequestBody<B>>>,
    B: Body,
{
    pub(crate) fn new(service: S, req: Request<B>, config: Arc<LayerConfig>) -> Self {
        let (parts, body) = req.into_parts();
        // A declared length is only a ceiling (checked against the limit
        // as bytes arrive): nothing is reserved or allocated for it, so a
        // client that declares megabytes and goes quiet holds nothing.
        let held = config.budget.as_ref().map(|budget| budget.try_reserve(0));
        let (held, buffer) = match held {
            Some(None) => (None, None),
            Some(held) => (held, Some(Bounded::new(config.max_body_bytes, 0))),
            None => (None, Some(Bounded::new(config.max_body_bytes, 0))),
        };
        let deadline = ReadDeadline::new(config.request_body_timeout, config.request_body_min_rate);
        PendingRequest {
            service: Some(service),
            parts: Some(parts),
            body: Box::pin(body),
            buffer,
            held,
            deadline,
            config,
        }
    }

    /// Reads the body to its end, decodes it, and calls the service.
    pub(crate) fn poll_call(&mut self, cx: &mut Context<'_>) -> Poll<Called<S::Future>> {
        let Some(buffer) = self.buffer.as_mut() else {
            return Poll::Ready(Called::Refused(busy()));
        };
        loop {
            match self.body.as_mut().poll_frame(cx) {
                Poll::Pending => {
                    if self.deadline.poll_expired(cx) {
                        return Poll::Ready(Called::Refused(timed_out(&self.config)));
                    }
                    return Poll::Pending;
                }
                Poll::Ready(None) => break,
                Poll::Ready(Some(Err(_))) => {
                    return Poll::Ready(Called::Refused(
                        ErrorEnvelope::new(
                            StatusCode::BAD_REQUEST,
                            "bad_request_body",
                            "the request body failed before it was complete",
                        )
                        .with_hint(HOW),
                    ));
                }
                Poll::Ready(Some(Ok(frame))) => {
                    // Trailers of a request body have nowhere to go in JSON.
                    let Ok(mut data) = frame.into_data() else {
                        continue;
                    };
                    let len = data.remaining();
                    self.deadline.progress(len);
                    let needed = buffer.len().saturating_add(len);
                    if let Some(held) = &mut self.held {
                        if needed > held.bytes() && !held.try_grow(needed - held.bytes()) {
                            return Poll::Ready(Called::Refused(busy()));
                        }
                    }
                    if buffer.push(data.copy_to_bytes(len)).is_err() {
                        return Poll::Ready(Called::Refused(too_large(&self.config)));
                    }
                }
            }
        }
        let toon = self
            .buffer
            .take()
            .map(Bounded::into_bytes)
            .unwrap_or_default();
        Poll::Ready(self.call(toon))
    }

    fn call(&mut self, toon: Bytes) -> Called<S::Future> {
        let (Some(mut service), Some(mut parts)) = (self.service.take(), self.parts.take()) else {
            return Called::Refused(busy());
        };
        let config = &self.config;
        let mut held = self.held.take();
        // A body that turned out empty (no length was declared) goes on as
        // it came, as one declared empty does: there is nothing to decode,
        // and an empty TOON document is not a request for `{}`.
        if toon.is_empty() {
            let body = TerseRequestBody::decoded(toon);
            let tokens = RequestTokens {
                received: 0,
                forwarded: 0,
            };
            return Called::Service(service.call(Request::from_parts(parts, body)), tokens);
        }
        // A costly decoding is CPU work: done where the runtime lets a
        // thread block, so the other connections of this worker move on,
        // holding a slot of the limit every blocking job shares. Its cost
        // is what it writes and counts ([`decode_work`]), not the body's
        // size: a short table whose long keys every row repeats decodes to
        // megabytes. With every slot taken the request is refused (503)
        // rather than decoded on a worker: the handler needs the JSON, so
        // there is nothing to pass on unchanged.
        let shape = shape(&toon);
        let decoded = if decode_work(&shape, toon.len(), config) >= config.offload_threshold {
            let limit = config.limit.clone();
            match limit.off_the_workers(|| decode(&toon, &shape, config, held.as_mut())) {
                OffWorkers::Done(decoded) => decoded,
                OffWorkers::NoSlot => return Called::Refused(busy()),
                OffWorkers::Here => decode(&toon, &shape, config, held.as_mut()),
            }
        } else {
            decode(&toon, &shape, config, held.as_mut())
        };
        let (json, tokens) = match decoded {
            Ok(decoded) => decoded,
            Err(refusal) => return Called::Refused(refusal),
        };
        forward_as_json(&mut parts.headers, json.len());
        let mut body = TerseRequestBody::decoded(json);
        body.hold(held);
        Called::Service(service.call(Request::from_parts(parts, body)), tokens)
    }
}

/// How long the layer waits for a TOON body, as nginx's
/// `client_body_timeout` and Apache's `RequestReadTimeout body=20,MinRate=500`
/// do: at most `timeout` between two reads, and in all `timeout` plus one
/// second for every `min_rate` bytes received. A client that declares a
/// large body and sends it slowly, or not at all, is answered 408 and
/// holds nothing after.
///
/// The deadline is timed by futures-timer's own thread, as the wait for a
/// blocking slot is: it ends a wait on a body that has gone quiet under any
/// runtime, with or without tokio's time driver.
struct ReadDeadline {
    /// `None`: no deadline (`request_body_timeout` of zero).
    timeout: Option<Duration>,
    min_rate: u64,
    started: Instant,
    last: Instant,
    received: u64,
    /// Set when the body first waits. Progress only moves the deadline
    /// later, so the timer is reset only when it fires early (never once
    /// a chunk).
    timer: Option<futures_timer::Delay>,
}

impl ReadDeadline {
    fn new(timeout: Duration, min_rate: u64) -> Self {
        let now = Instant::now();
        ReadDeadline {
            timeout: (!timeout.is_zero()).then_some(timeout),
            min_rate,
            started: now,
            last: now,
            received: 0,
            timer: None,
        }
    }

    /// `bytes` more arrived.
    fn progress(&mut self, bytes: usize) {
        if bytes > 0 {
            self.last = Instant::now();
            self.received = self.received.saturating_add(bytes as u64);
        }
    }

    /// When the body is late: `timeout` after the last bytes, or after the
    /// time its bytes so far allow at the minimum rate.
    fn due(&self, timeout: Duration) -> Instant {
        let idle = self.last.checked_add(timeout);
        let allowed = if self.min_rate == 0 {
            None
        } else {
            let earned = Duration::from_secs_f64(self.received as f64 / self.min_rate as f64);
            self.started
                .checked_add(timeout)
                .and_then(|at| at.checked_add(earned))
        };
        match (idle, allowed) {
            (Some(idle), Some(allowed)) => idle.min(allowed),
            (Some(at), None) | (None, Some(at)) => at,
            // Far beyond any clock: never.
            (None, None) => self.last + Duration::from_secs(u32::MAX as u64),
        }
    }

    /// Whether the body is late; otherwise the timer will wake `cx` when it
    /// may be.
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(timeout) = self.timeout else {
            return false;
        };
        let due = self.due(timeout);
        let timer = self.timer.get_or_insert_with(|| {
            futures_timer::Delay::new(due.saturating_duration_since(Instant::now()))
        });
        loop {
            let now = Instant::now();
            if now >= due {
                return true;
            }
            if Pin::new(&mut *timer).poll(cx).is_pending() {
                return false;
            }
            // Fired for an earlier deadline: the body has made progress
            // since; wait for the one it has now.
            timer.reset(due - now);
        }
    }
}

/// The body came too slowly, or stopped.
fn timed_out(config: &LayerConfig) -> ErrorEnvelope {
    ErrorEnvelope::new(
        StatusCode::REQUEST_TIMEOUT,
        "request_body_timeout",
        format!(
            "the TOON request body did not arrive in time (at most {:?} between reads, and at least {} bytes a second after the first {:?})",
            config.request_body_timeout, config.request_body_min_rate, config.request_body_timeout
        ),
    )
    .with_hint("Send the whole body at once")
}

/// The headers of a request whose body is now `length` bytes of JSON.
fn forward_as_json(headers: &mut HeaderMap, length: usize) {
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.remove(TRANSFER_ENCODING);
    headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
}

/// The refusal of a TOON body the layer cannot read: one with a content
/// coding (the layer holds no decompressor for requests), checked before
/// anything is read.
pub(crate) fn refusal_before_reading<B>(req: &Request<B>) -> Option<ErrorEnvelope> {
    let coded = !req
        .headers()
        .get_all(CONTENT_ENCODING)
        .iter()
        .all(is_identity_coding);
    coded.then(|| {
        ErrorEnvelope::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "toon_request_encoded",
            "a TOON request body cannot have a Content-Encoding",
        )
        .with_hint(format!("{HOW}, without compression"))
    })
}

/// The work decoding `toon` will do, in bytes read or written, counted in
/// one pass before it starts ([`shape`]): the body, the JSON it writes (up
/// to the output bound) and, when `X-Token-Count` counts exactly, both
/// counted. The JSON is the body's text with what decoding adds: the keys
/// each row of a table repeats from its header (which a short body can
/// multiply a thousandfold), quoted, and the quotes and separators of its
/// values. This is the size it will likely write, as the response path
/// counts the TOON it will write; the worst case of every byte escaped,
/// which the memory budget holds ([`ToonShape::json_bytes`](super::toon_shape::ToonShape::json_bytes)),
/// would send every small body off the workers.
fn decode_work(shape: &ToonShape, toon_bytes: usize, config: &LayerConfig) -> usize {
    let written = toon_bytes
        .saturating_add(shape.repeated_key_bytes.saturating_mul(2))
        .saturating_add(shape.values.saturating_mul(2))
        .min(config.render.max_output_bytes);
    let done = toon_bytes.saturating_add(written);
    // What one byte counted costs, as the response path weighs it: the
    // cost of a byte served as it is, counted exactly (nothing when the
    // counts are estimates, which take no more than reading).
    #[cfg(feature = "exact-tokens")]
    let per_counted = if config.render.exact() {
        let options = &config.render.toon_options;
        crate::render::cost(b" ", crate::Format::Json, false, options, 1, true).work
    } else {
        0
    };
    #[cfg(not(feature = "exact-tokens"))]
    let per_counted = 0;
    done.saturating_add(done.saturating_mul(per_counted))
}

/// `toon`, of this `shape`, decoded to JSON text within the layer's output
/// bound, with its tokens before and after; holds what decoding takes
/// against `held`.
fn decode(
    toon: &[u8],
    shape: &ToonShape,
    config: &LayerConfig,
    held: Option<&mut Reservation>,
) -> Result<(Bytes, RequestTokens), ErrorEnvelope> {
    let limit = config.render.max_output_bytes;
    if shape.repeated_key_bytes > limit {
        return Err(decoded_too_large(limit));
    }
    let working = shape.working_bytes(toon.len(), limit);
    if let Some(held) = held {
        // More than the whole budget: no wait makes room for it.
        if held.bytes().saturating_add(working)
            > config.budget.as_ref().map_or(usize::MAX, |b| b.limit())
        {
            return Err(never_fits(working));
        }
        if !held.try_grow(working) {
            return Err(busy());
        }
    }
    // Straight to JSON text, numbers with the digits they were sent with
    // (one past 64 bits reaches the service as written, not as the
    // nearest float).
    let json = crate::toon::decode_to_json(toon, &DecodeOptions::default(), limit).map_err(
        |err| match err {
            crate::toon::DecodeToJsonError::Decode(err) => ErrorEnvelope::new(
                StatusCode::BAD_REQUEST,
                "invalid_toon",
                format!(
                    "the TOON request body does not decode: line {}, column {}: {}",
                    err.line(),
                    err.column(),
                    err.message()
                ),
            )
            .with_hint(HOW),
            _ => decoded_too_large(limit),
        },
    )?;
    let settings = &config.render;
    let tokens = RequestTokens {
        received: settings.count_tokens(toon),
        forwarded: settings.count_tokens(&json),
    };
    tokens.emit();
    Ok((Bytes::from(json), tokens))
}

impl RequestTokens {
    /// Emits the event (target `terse`, level debug) and, with the `metrics`
    /// feature, `terse_request_tokens_received_total` and
    /// `terse_request_tokens_forwarded_total`.
    fn emit(&self) {
        tracing::debug!(
            target: "terse",
            received = self.received,
            forwarded = self.forwarded,
            "TOON request decoded"
        );
        #[cfg(feature = "metrics")]
        {
            metrics::counter!("terse_toon_requests_total").increment(1);
            metrics::counter!("terse_request_tokens_received_total")
                .increment(self.received as u64);
            metrics::counter!("terse_request_tokens_forwarded_total")
                .increment(self.forwarded as u64);
        }
    }
}

fn too_large(config: &LayerConfig) -> ErrorEnvelope {
    ErrorEnvelope::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "toon_request_too_large",
        format!(
            "the TOON request body is larger than {} bytes",
            config.max_body_bytes
        ),
    )
    .with_hint("Send fewer records per request")
}

fn decoded_too_large(limit: usize) -> ErrorEnvelope {
    ErrorEnvelope::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "toon_request_too_large",
        format!("the TOON request body decodes to more than {limit} bytes of JSON"),
    )
    .with_hint("Send fewer records per request")
}

/// Decoding the body takes more than the whole memory budget: it never
/// fits, however long the client waits.
fn never_fits(working: usize) -> ErrorEnvelope {
    ErrorEnvelope::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "toon_request_too_large",
        format!("decoding the TOON request body takes about {working} bytes, more than the server's memory budget"),
    )
    .with_hint("Send fewer records per request, or send them as JSON")
}

/// The memory budget cannot hold the body and its decoding now.
fn busy() -> ErrorEnvelope {
    ErrorEnvelope::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        "the server cannot hold this TOON request body now",
    )
    .with_hint("Retry later, or send the body as JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_here(
        toon: &[u8],
        config: &LayerConfig,
        held: Option<&mut Reservation>,
    ) -> Result<(Bytes, RequestTokens), ErrorEnvelope> {
        decode(toon, &shape(toon), config, held)
    }

    #[test]
    fn toon_media_types_in_any_case_with_parameters() {
        for yes in [
            "text/toon",
            "Application/TOON; charset=utf-8",
            " text/toon ;x=y",
        ] {
            assert!(is_toon_media_type(&HeaderValue::from_static(yes)), "{yes}");
        }
        for no in [
            "application/json",
            "text/toonx",
            "text/plain; x=text/toon",
            "",
        ] {
            assert!(!is_toon_media_type(&HeaderValue::from_static(no)), "{no}");
        }
    }

    #[test]
    fn malformed_toon_names_its_line_and_column() {
        let err =
            decode_here(b"a: 1\nusers[2]{id}:\n  1", &LayerConfig::default(), None).unwrap_err();
        assert_eq!(err.status(), StatusCode::BAD_REQUEST);
        assert!(
            err.message().contains("line 2, column "),
            "{}",
            err.message()
        );
    }

    #[test]
    fn keys_repeated_past_the_bound_are_refused_before_decoding() {
        let config = LayerConfig {
            max_output_bytes: Some(1000),
            ..LayerConfig::default()
        }
        .resolve();
        let toon = format!("t[100]{{{}}}:\n{}", "k".repeat(50), "  x\n".repeat(100));
        let err = decode_here(toon.as_bytes(), &config, None).unwrap_err();
        assert_eq!(err.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[test]
    fn decoding_costs_what_it_writes_not_what_it_reads() {
        let config = LayerConfig::default();
        let work = |toon: &str| decode_work(&shape(toon.as_bytes()), toon.len(), &config);
        // The body read and the JSON written, give or take a half: what
        // decoding does, whatever the body's size.
        let near = |toon: &str| {
            let (json, _) = decode_here(toon.as_bytes(), &config, None).expect("decodes");
            let done = toon.len() + json.len();
            let work = work(toon);
            assert!(
                done / 2 <= work && work <= 2 * done,
                "{work} for {done} bytes read and written"
            );
        };
        let rows = format!("users[500]{{id,name}}:\n{}", "  1,Ada\n".repeat(500));
        near(&rows);
        // A short table whose long key every row repeats writes far more
        // than it reads.
        let key = "k".repeat(512);
        let repeated = format!("t[1000]{{{key}}}:\n{}", "  x\n".repeat(1000));
        assert!(repeated.len() < 8 << 10);
        assert!(work(&repeated) >= 1000 * 512, "{}", work(&repeated));
        near(&repeated);
        // Never past what the output bound lets it write.
        let bounded = LayerConfig {
            max_output_bytes: Some(10_000),
            ..LayerConfig::default()
        }
        .resolve();
        let capped = decode_work(&shape(repeated.as_bytes()), repeated.len(), &bounded);
        assert!(capped <= repeated.len() + 10_000, "{capped}");
    }

    #[test]
    fn the_budget_holds_the_decoding() {
        // More than the whole budget: never, 413.
        let mut config = LayerConfig::default();
        let budget = crate::budget::MemoryBudget::new(64);
        config.budget = Some(budget.clone());
        let mut held = budget.try_reserve(10).unwrap();
        let err = decode_here(b"a: 1", &config, Some(&mut held)).unwrap_err();
        assert_eq!(err.status(), StatusCode::PAYLOAD_TOO_LARGE);
        // Room taken by others: not now, 503.
        let budget = crate::budget::MemoryBudget::new(1 << 20);
        config.budget = Some(budget.clone());
        let _others = budget.try_reserve((1 << 20) - 100).unwrap();
        let mut held = budget.try_reserve(10).unwrap();
        let err = decode_here(b"a: 1", &config, Some(&mut held)).unwrap_err();
        assert_eq!(err.status(), StatusCode::SERVICE_UNAVAILABLE);
    }
}
