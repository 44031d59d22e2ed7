//! [`Mcp`], the service [`McpLayer`](super::McpLayer) produces, and its
//! response future.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, Method, Request, Response};
use http_body::Body;
use pin_project_lite::pin_project;
use tower_service::Service;

use super::body::{McpBody, McpRequestBody};
use super::exchange::Exchange;
use super::{McpConfig, McpHint};
use crate::format::Format;
use crate::negotiate::{Negotiated, negotiate};
use crate::render::{is_identity_coding, is_json_media_type};

/// Middleware that rewrites the `tools/call` results of an MCP Streamable
/// HTTP endpoint; made by [`McpLayer`](super::McpLayer).
///
/// ```
/// use tower_terse::mcp::Mcp;
///
/// let service = Mcp::new(tower::service_fn(|_: http::Request<String>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(String::new()))
/// }));
/// let inner = service.into_inner();
/// ```
#[derive(Debug, Clone)]
pub struct Mcp<S> {
    inner: S,
    config: Arc<McpConfig>,
}

impl<S> Mcp<S> {
    /// Wraps `inner` with the default configuration (TOON where cheaper unless asked).
    pub fn new(inner: S) -> Self {
        Self::from_parts(inner, Arc::default())
    }

    pub(crate) fn from_parts(inner: S, config: Arc<McpConfig>) -> Self {
        Mcp { inner, config }
    }

    /// The wrapped service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The wrapped service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the inner service.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for Mcp<S>
where
    S: Service<Request<McpRequestBody<ReqBody>>, Response = Response<ResBody>>,
    ReqBody: Body,
    ResBody: Body,
{
    type Response = Response<McpBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<ReqBody>) -> Self::Future {
        let exchange = wanted_format(&self.config, &req)
            .map(|(format, asked)| Arc::new(Exchange::new(self.config.clone(), format, asked)));
        let mut req = req;
        if exchange.as_ref().is_some_and(|e| e.holds_request()) {
            // The body may lose its `format` arguments.
            req.headers_mut().remove(CONTENT_LENGTH);
        }
        let req = req.map(|body| McpRequestBody::new(body, exchange.clone()));
        ResponseFuture {
            inner: self.inner.call(req),
            exchange,
        }
    }
}

/// The format a POST asks its tool results in, and whether the client named
/// it; `None` when they pass as the server makes them.
fn wanted_format<B>(config: &McpConfig, req: &Request<B>) -> Option<(Format, bool)> {
    if req.method() != Method::POST {
        return None;
    }
    // TOON travels inside JSON-RPC, whose media type stays JSON: `Accept`
    // (which MCP SDKs set to JSON and event streams) has no say.
    let mut prefer = HeaderMap::new();
    if let Some(value) = req.headers().get(&config.prefer_header) {
        prefer.insert(config.prefer_header.clone(), value.clone());
    }
    match negotiate(
        req.uri().query(),
        &prefer,
        &config.format_param,
        &config.prefer_header,
        config.default_format,
    ) {
        Negotiated::Use {
            format: format @ (Format::Toon | Format::Compact),
            asked,
        } => Some((format, asked)),
        // JSON, unless agents choose per call or are told about TOON.
        Negotiated::Use { format, asked }
            if config.format_argument || config.hint != McpHint::Off =>
        {
            Some((format, asked))
        }
        _ => None,
    }
}

pin_project! {
    /// Response future of [`Mcp`].
    pub struct ResponseFuture<F> {
        #[pin]
        inner: F,
        exchange: Option<Arc<Exchange>>,
    }
}

impl<F, B, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: Body,
{
    type Output = Result<Response<McpBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let Some(exchange) = this.exchange.take() else {
            return Poll::Ready(Ok(response.map(McpBody::plain)));
        };
        let (mut parts, body) = response.into_parts();
        let body = match answer_media(parts.status.is_success(), &parts.headers) {
            Some(AnswerMedia::Json) if exchange.has_calls() => {
                parts.headers.remove(CONTENT_LENGTH);
                McpBody::json(body, exchange)
            }
            Some(AnswerMedia::Events) => {
                parts.headers.remove(CONTENT_LENGTH);
                McpBody::events(body, exchange)
            }
            _ => McpBody::plain(body),
        };
        Poll::Ready(Ok(Response::from_parts(parts, body)))
    }
}

/// How an answer's body is framed, by its content type: one JSON
/// message (or batch), or a stream of server-sent events.
enum AnswerMedia {
    Json,
    Events,
}

/// What a successful, unencoded answer holds, by its content type.
fn answer_media(success: bool, headers: &HeaderMap) -> Option<AnswerMedia> {
    if !success {
        return None;
    }
    if !headers
        .get_all(CONTENT_ENCODING)
        .iter()
        .all(is_identity_coding)
    {
        return None;
    }
    let media = headers.get(CONTENT_TYPE)?;
    let essence = media.to_str().ok()?.split(';').next().unwrap_or("").trim();
    if is_json_media_type(media) {
        Some(AnswerMedia::Json)
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        Some(AnswerMedia::Events)
    } else {
        None
    }
}
