//! The MCP endpoint of an upstream: requests to its path go through
//! [`McpLayer`](tower_terse::mcp::McpLayer), every other request through the
//! HTTP [`TerseLayer`](tower_terse::TerseLayer).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use http::{HeaderValue, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{Either, Full};
use pin_project_lite::pin_project;
use tower::Service;

use crate::mcp_access::McpAccess;
use crate::mcp_order::{Opening, Order, Ticket};

/// Sends the requests for one path (exactly that path, any method) to
/// `mcp`, and every other request to `http`; made by
/// [`mcp_gateway`](crate::mcp_gateway).
///
/// A request to the MCP endpoint whose `Host` or `Origin` its
/// [`McpAccess`] refuses is answered 403 here, never forwarded. A POST of
/// a session whose standalone GET stream is expected (the session's first
/// 202 was answered, after which clients open it) or on its way to the
/// upstream waits until the upstream has answered that GET (at most a
/// second), so that the server has the stream for the requests it sends
/// while handling the POST, as it would straight from the client.
///
/// The answer's body is `Either::Left` from `http`, and `Either::Right`
/// from `mcp` (itself `Either::Left`) or the 403 (`Either::Right`).
#[derive(Debug, Clone)]
pub struct McpSplit<H, M> {
    http: H,
    mcp: Option<(Arc<str>, M)>,
    access: Arc<McpAccess>,
    opening: Arc<Opening>,
}

impl<H, M> McpSplit<H, M> {
    /// `http` for every request, or `mcp` for those to `path` as well;
    /// the MCP endpoint open to [`McpAccess::loopback`] hosts only until
    /// [`access`](Self::access) says otherwise.
    pub fn new(http: H, mcp: Option<(&str, M)>) -> Self {
        McpSplit {
            http,
            mcp: mcp.map(|(path, mcp)| (Arc::from(path), mcp)),
            access: Arc::new(McpAccess::loopback()),
            opening: Arc::default(),
        }
    }

    /// Who may call the MCP endpoint (see [`McpAccess`]).
    ///
    /// ```
    /// use terse_gateway::{McpAccess, McpSplit};
    /// let split = McpSplit::<(), ()>::new((), None).access(McpAccess::any());
    /// # drop(split);
    /// ```
    pub fn access(mut self, access: McpAccess) -> Self {
        self.access = Arc::new(access);
        self
    }

    /// The MCP endpoint's path, when there is one.
    pub fn mcp_path(&self) -> Option<&str> {
        self.mcp.as_ref().map(|(path, _)| &**path)
    }
}

impl<H, M, B, HB, MB> Service<Request<B>> for McpSplit<H, M>
where
    H: Service<Request<B>, Response = Response<HB>>,
    M: Service<Request<B>, Response = Response<MB>, Error = H::Error> + Clone + Send + 'static,
    B: Send + 'static,
    MB: Body<Data = Bytes>,
{
    type Response = Response<SplitBody<HB, MB>>;
    type Error = H::Error;
    type Future = SplitFuture<H::Future, M::Future, MB>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Both sides end in the same upstream, which is always ready.
        ready!(self.http.poll_ready(cx))?;
        match &mut self.mcp {
            Some((_, mcp)) => mcp.poll_ready(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        match &mut self.mcp {
            Some((path, mcp)) if req.uri().path() == &**path => {
                match self.access.refusal(&req) {
                    Some(refusal) => SplitFuture::Refused {
                        future: std::future::ready(refusal),
                    },
                    None => match self.opening.order(&req) {
                        Order { wait: None, ticket } => SplitFuture::Mcp {
                            future: mcp.call(req),
                            ticket,
                        },
                        Order {
                            wait: Some(wait),
                            ticket,
                        } => {
                            // The service made ready goes with the request;
                            // a clone stays for the next one.
                            let clone = mcp.clone();
                            let mut ready = std::mem::replace(mcp, clone);
                            SplitFuture::Waiting {
                                wait,
                                start: Some(Box::new(move || ready.call(req))),
                                ticket,
                            }
                        }
                    },
                }
            }
            _ => SplitFuture::Http {
                future: self.http.call(req),
            },
        }
    }
}

/// The body of [`McpSplit`]'s answers: the HTTP side's, the MCP side's
/// (boxed, see [`SplitFuture::Accepted`]), or one the split made.
type SplitBody<HB, MB> = Either<HB, Either<Pin<Box<MB>>, Full<Bytes>>>;

/// Most bytes of a 202's body read before its head goes out (MCP's 202s
/// have none); more is a 502.
const MAX_ACCEPTED_BODY: usize = 64 * 1024;

/// A 502 for the MCP endpoint's client, in the gateway's envelope.
fn bad_gateway<HB, MB>(message: &str) -> Response<SplitBody<HB, MB>> {
    tower_terse::ErrorEnvelope::new(StatusCode::BAD_GATEWAY, "upstream_failed", message)
        .into_http_response::<Full<Bytes>>()
        .map(|body| Either::Right(Either::Right(body)))
}

pin_project! {
    /// Response future of [`McpSplit`]: the future of the side that serves
    /// the request.
    #[project = SplitProjection]
    // pin-project-lite takes no docs on the fields of a variant.
    #[allow(missing_docs)]
    pub enum SplitFuture<H, M, MB> {
        /// An ordinary HTTP request.
        Http { #[pin] future: H },
        /// A request to the MCP endpoint; its [`Ticket`] is told of the
        /// upstream's answer.
        Mcp { #[pin] future: M, ticket: Option<Ticket> },
        /// A 202 whose (empty) body is read before the head goes out.
        /// The MCP side's body is large (some 1 KiB) and its answers few:
        /// boxed here and in the response, it leaves the future and the
        /// response of every other request their own size.
        Accepted {
            head: Option<http::response::Parts>,
            body: Pin<Box<MB>>,
            read: Vec<u8>,
        },
        /// A POST waiting for its session's GET stream to open upstream,
        /// then sent.
        Waiting {
            wait: Pin<Box<dyn Future<Output = ()> + Send>>,
            start: Option<Box<dyn FnOnce() -> M + Send>>,
            ticket: Option<Ticket>,
        },
        /// A request to the MCP endpoint refused by its [`McpAccess`].
        Refused { #[pin] future: std::future::Ready<Response<Full<Bytes>>> },
    }
}

impl<H, M, HB, MB, E> Future for SplitFuture<H, M, MB>
where
    H: Future<Output = Result<Response<HB>, E>>,
    M: Future<Output = Result<Response<MB>, E>>,
    MB: Body<Data = Bytes>,
{
    type Output = Result<Response<SplitBody<HB, MB>>, E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let SplitProjection::Waiting {
            wait,
            start,
            ticket,
        } = self.as_mut().project()
        {
            ready!(wait.as_mut().poll(cx));
            if let Some(start) = start.take() {
                let ticket = ticket.take();
                let future = start();
                self.set(SplitFuture::Mcp { future, ticket });
            }
        }
        match self.as_mut().project() {
            SplitProjection::Http { future } => future
                .poll(cx)
                .map_ok(|response| response.map(Either::Left)),
            SplitProjection::Mcp { future, ticket } => {
                let response = ready!(future.poll(cx));
                // A GET answered: the stream is open; a POST answered may
                // announce one (see `mcp_order`).
                if let (Some(ticket), Ok(response)) = (ticket.take(), &response) {
                    ticket.answered(response);
                }
                match response {
                    Ok(response) if response.status() == StatusCode::ACCEPTED => {
                        let (head, body) = response.into_parts();
                        self.set(SplitFuture::Accepted {
                            head: Some(head),
                            body: Box::pin(body),
                            read: Vec::new(),
                        });
                        self.poll(cx)
                    }
                    other => Poll::Ready(
                        other.map(|r| r.map(|body| Either::Right(Either::Left(Box::pin(body))))),
                    ),
                }
            }
            SplitProjection::Accepted { head, body, read } => loop {
                match ready!(body.as_mut().poll_frame(cx)) {
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            if read.len().saturating_add(data.len()) > MAX_ACCEPTED_BODY {
                                return Poll::Ready(Ok(bad_gateway(
                                    "the upstream's 202 answer has a body of more than 64 KiB",
                                )));
                            }
                            read.extend_from_slice(&data);
                        }
                    }
                    Some(Err(_)) => {
                        return Poll::Ready(Ok(bad_gateway(
                            "the upstream closed the connection without a complete answer",
                        )));
                    }
                    None => {
                        let Some(mut head) = head.take() else {
                            return Poll::Pending;
                        };
                        head.headers.remove(TRANSFER_ENCODING);
                        head.headers
                            .insert(CONTENT_LENGTH, HeaderValue::from(read.len()));
                        let body = Full::new(Bytes::from(std::mem::take(read)));
                        return Poll::Ready(Ok(Response::from_parts(
                            head,
                            Either::Right(Either::Right(body)),
                        )));
                    }
                }
            },
            // Polled again after `start` failed to run: never, as `start`
            // runs once and the state moves on.
            SplitProjection::Waiting { .. } => Poll::Pending,
            SplitProjection::Refused { future } => future
                .poll(cx)
                .map(|response| Ok(response.map(|body| Either::Right(Either::Right(body))))),
        }
    }
}
