//! [`RequestLog`]: one `info` line per request, written when its response
//! body is done (or dropped).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use bytes::Buf;
use http::header::CONTENT_TYPE;
use http::{Method, Request, Response};
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

use tower_terse::outcome::{Fallback, ResponseFormat};
use tower_terse::proxy::is_json_media_type;
use tower_terse::{Format, Outcome, RequestTokens};

use crate::upstream::UpstreamLatency;

/// The longest request path a log line repeats.
const MAX_LOGGED_PATH: usize = 256;

/// Logs each request at `info` (target `terse_gateway`): method, path
/// (never the query, which may hold secrets), status, the format served
/// (`json`, `toon`, `compact`, or `-` for a body that is not JSON) and,
/// when it is not the one planned, why (`fallback`), the token count, the
/// upstream's latency to headers, the total time, the
/// body's bytes (before the gateway compresses them) and whether the body
/// was sent to the end. The format, fallback and tokens are what the layer
/// decided, read from the [`Outcome`] it leaves on the response; a response
/// the layer streamed without reading is `json` when its content type is
/// JSON. For a request body sent as TOON, `request_tokens` is what the
/// client sent and `forwarded_tokens` the JSON the upstream got
/// ([`RequestTokens`]); `-` for other requests. The line is written when the body is done or
/// dropped, so a stream's line comes when the stream ends.
///
/// ```
/// use terse_gateway::RequestLogLayer;
/// use tower::ServiceBuilder;
///
/// let service = ServiceBuilder::new()
///     .layer(RequestLogLayer)
///     .service_fn(|_: http::Request<()>| async {
///         Ok::<_, std::convert::Infallible>(http::Response::new(String::from("ok")))
///     });
/// # drop(service);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestLogLayer;

impl<S> Layer<S> for RequestLogLayer {
    type Service = RequestLog<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestLog { inner, on: true }
    }
}

/// The service [`RequestLogLayer`] makes.
///
/// ```
/// use terse_gateway::{RequestLog, RequestLogLayer};
/// use tower::Layer;
///
/// let service: RequestLog<_> = RequestLogLayer.layer(tower::service_fn(|_: http::Request<()>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(String::new()))
/// }));
/// # drop(service);
/// ```
#[derive(Debug, Clone)]
pub struct RequestLog<S> {
    inner: S,
    on: bool,
}

impl<S> RequestLog<S> {
    /// Whether to write the request lines (on by default); off, requests
    /// pass through untouched, as with `access_log off` in nginx, and the
    /// gateway's other events are still logged.
    ///
    /// ```
    /// use terse_gateway::RequestLogLayer;
    /// use tower::Layer;
    ///
    /// let quiet = RequestLogLayer
    ///     .layer(tower::service_fn(|_: http::Request<()>| async {
    ///         Ok::<_, std::convert::Infallible>(http::Response::new(String::new()))
    ///     }))
    ///     .logging(false);
    /// # drop(quiet);
    /// ```
    #[must_use]
    pub fn logging(mut self, on: bool) -> Self {
        self.on = on;
        self
    }
}

impl<S, B, ResBody> Service<Request<B>> for RequestLog<S>
where
    S: Service<Request<B>, Response = Response<ResBody>>,
    ResBody: Body,
{
    type Response = Response<LogBody<ResBody>>;
    type Error = S::Error;
    type Future = LogFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let wanted = self.on && tracing::enabled!(target: "terse_gateway", tracing::Level::INFO);
        // The URI shares the request's bytes: nothing is copied unless
        // logged, and the clock is read only for a line to be written.
        let seen = wanted.then(|| Seen {
            method: request.method().clone(),
            path: request.uri().clone(),
            started: Instant::now(),
        });
        let head = request.method() == Method::HEAD;
        LogFuture {
            inner: self.inner.call(request),
            seen,
            head,
        }
    }
}

pin_project! {
    /// The response future of [`RequestLog`]: the inner response, its body
    /// wrapped in a [`LogBody`]. Written by hand rather than as an async
    /// block, which would move the response (large behind some layers)
    /// from one slot of its state to the next.
    ///
    /// ```
    /// use terse_gateway::{LogFuture, RequestLogLayer};
    /// use tower::{Layer, Service};
    ///
    /// let mut service = RequestLogLayer.layer(tower::service_fn(|_: http::Request<()>| {
    ///     std::future::ready(Ok::<_, std::convert::Infallible>(http::Response::new(String::new())))
    /// }));
    /// let future: LogFuture<_> = service.call(http::Request::new(()));
    /// # drop(future);
    /// ```
    pub struct LogFuture<F> {
        #[pin]
        inner: F,
        // What the line needs from the request, when it is to be written.
        seen: Option<Seen>,
        head: bool,
    }
}

/// The request's part of its line, taken when the line is to be written.
struct Seen {
    method: Method,
    path: http::Uri,
    started: Instant,
}

impl<F> fmt::Debug for LogFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LogFuture")
    }
}

impl<F, ResBody, E> Future for LogFuture<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
    ResBody: Body,
{
    type Output = Result<Response<LogBody<ResBody>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let record = this
            .seen
            .take()
            .map(|seen| record(&response, seen, *this.head));
        Poll::Ready(Ok(response.map(|body| LogBody { body, record })))
    }
}

/// The line to write for `response`, complete already if no body follows.
fn record<B: Body>(response: &Response<B>, seen: Seen, head: bool) -> Record {
    let Seen {
        method,
        path,
        started,
    } = seen;
    let outcome = response.extensions().get::<Outcome>().copied();
    let format = match outcome {
        Some(outcome) => outcome.served.map_or(Served::Other, Served::Format),
        None => served_by_type(response.headers()),
    };
    Record {
        method,
        path,
        status: response.status().as_u16(),
        format,
        // Set also where the layer did not read the body (a
        // compressed one, the budget full).
        fallback: response
            .extensions()
            .get::<ResponseFormat>()
            .and_then(|served| served.fallback),
        tokens: outcome.and_then(|outcome| outcome.tokens),
        request: response.extensions().get::<RequestTokens>().copied(),
        upstream: response.extensions().get::<UpstreamLatency>().map(|l| l.0),
        started,
        bytes: 0,
        complete: bodiless(head, response.status()) || response.body().is_end_stream(),
    }
}

/// Whether nothing is sent after the head: the server never polls such a
/// body, and the answer is whole once the head is out.
fn bodiless(head: bool, status: http::StatusCode) -> bool {
    head || status.is_informational() || matches!(status.as_u16(), 204 | 304)
}

fn short_path(path: &str) -> &str {
    let mut end = path.len().min(MAX_LOGGED_PATH);
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    &path[..end]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Served {
    Format(Format),
    Other,
}

impl fmt::Display for Served {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Served::Format(format) => f.write_str(format.as_str()),
            Served::Other => f.write_str("-"),
        }
    }
}

/// The format of a response the layer did not read: JSON as it came, or
/// something else.
fn served_by_type(headers: &http::HeaderMap) -> Served {
    match headers.get(CONTENT_TYPE) {
        Some(value) if is_json_media_type(value) => Served::Format(Format::Json),
        _ => Served::Other,
    }
}

/// What one log line says; written when dropped.
struct Record {
    method: Method,
    /// The request's URI, of which only the path is logged.
    path: http::Uri,
    status: u16,
    format: Served,
    fallback: Option<Fallback>,
    tokens: Option<usize>,
    request: Option<RequestTokens>,
    upstream: Option<Duration>,
    started: Instant,
    bytes: u64,
    complete: bool,
}

impl Drop for Record {
    fn drop(&mut self) {
        tracing::info!(
            target: "terse_gateway",
            method = %self.method,
            path = %short_path(self.path.path()),
            status = self.status,
            format = %self.format,
            fallback = %Optional(self.fallback),
            tokens = %Number(self.tokens),
            request_tokens = %Number(self.request.map(|r| r.received)),
            forwarded_tokens = %Number(self.request.map(|r| r.forwarded)),
            upstream_ms = %Number(self.upstream.map(|d| d.as_millis())),
            total_ms = self.started.elapsed().as_millis() as u64,
            bytes = self.bytes,
            complete = self.complete,
            "request"
        );
    }
}

/// `-` for a value not known.
struct Optional<T>(Option<T>);

impl<T: fmt::Display> fmt::Display for Optional<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(value) => value.fmt(f),
            None => f.write_str("-"),
        }
    }
}

/// A number, or `-` when not known, written with `itoa`: `core::fmt`'s
/// integer path (padding, flags) is a good part of a request line's cost.
struct Number<T>(Option<T>);

impl<T: itoa::Integer + Copy> fmt::Display for Number<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(value) => f.write_str(itoa::Buffer::new().format(value)),
            None => f.write_str("-"),
        }
    }
}

pin_project! {
    /// The response body of [`RequestLog`]: the inner body, unchanged,
    /// measured for the log line, which is written when it is dropped.
    ///
    /// ```
    /// fn is_logged(_: &terse_gateway::LogBody<String>) {}
    /// ```
    pub struct LogBody<B> {
        #[pin]
        body: B,
        record: Option<Record>,
    }
}

impl<B> fmt::Debug for LogBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LogBody")
    }
}

impl<B: Body> Body for LogBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let mut this = self.project();
        let polled = this.body.as_mut().poll_frame(cx);
        if let Some(record) = this.record.as_mut() {
            match &polled {
                Poll::Ready(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        record.bytes += data.remaining() as u64;
                    }
                    // hyper stops polling once the body says it has ended.
                    record.complete = this.body.is_end_stream();
                }
                Poll::Ready(None) => record.complete = true,
                _ => {}
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_without_a_body_are_complete_once_their_head_is_out() {
        use http::StatusCode;
        assert!(bodiless(true, StatusCode::OK));
        assert!(bodiless(false, StatusCode::NOT_MODIFIED));
        assert!(bodiless(false, StatusCode::NO_CONTENT));
        assert!(!bodiless(false, StatusCode::OK));
        assert!(!bodiless(false, StatusCode::NOT_FOUND));
    }

    #[test]
    fn a_response_the_layer_did_not_read_is_json_by_its_content_type() {
        let served = |content_type: &'static str| {
            let mut headers = http::HeaderMap::new();
            headers.insert(CONTENT_TYPE, http::HeaderValue::from_static(content_type));
            served_by_type(&headers)
        };
        assert_eq!(served("Application/JSON"), Served::Format(Format::Json));
        assert_eq!(
            served("application/problem+json"),
            Served::Format(Format::Json)
        );
        assert_eq!(served("text/event-stream"), Served::Other);
        assert_eq!(served("+"), Served::Other);
        assert_eq!(served_by_type(&http::HeaderMap::new()), Served::Other);
        assert_eq!(short_path(&"é".repeat(200)).len(), 256);
    }
}
