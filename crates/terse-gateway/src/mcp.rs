//! The MCP endpoint of an upstream: requests to its path go through
//! [`McpLayer`](tower_terse::mcp::McpLayer), every other request through the
//! HTTP [`TerseLayer`](tower_terse::TerseLayer).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use http::{Request, Response};
use http_body_util::Either;
use pin_project_lite::pin_project;
use tower::Service;

/// Sends the requests for one path (exactly that path, any method) to
/// `mcp`, and every other request to `http`; made by
/// [`mcp_gateway`](crate::mcp_gateway).
///
/// The answer's body is `Either::Left` from `http` and `Either::Right`
/// from `mcp`.
#[derive(Debug, Clone)]
pub struct McpSplit<H, M> {
    http: H,
    mcp: Option<(Arc<str>, M)>,
}

impl<H, M> McpSplit<H, M> {
    /// `http` for every request, or `mcp` for those to `path` as well.
    pub fn new(http: H, mcp: Option<(&str, M)>) -> Self {
        McpSplit {
            http,
            mcp: mcp.map(|(path, mcp)| (Arc::from(path), mcp)),
        }
    }

    /// The MCP endpoint's path, when there is one.
    pub fn mcp_path(&self) -> Option<&str> {
        self.mcp.as_ref().map(|(path, _)| &**path)
    }
}

impl<H, M, B, HB, MB> Service<Request<B>> for McpSplit<H, M>
where
    H: Service<Request<B>, Response = Response<HB>>,
    M: Service<Request<B>, Response = Response<MB>, Error = H::Error>,
{
    type Response = Response<Either<HB, MB>>;
    type Error = H::Error;
    type Future = SplitFuture<H::Future, M::Future>;

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
            Some((path, mcp)) if req.uri().path() == &**path => SplitFuture::Mcp {
                future: mcp.call(req),
            },
            _ => SplitFuture::Http {
                future: self.http.call(req),
            },
        }
    }
}

pin_project! {
    /// Response future of [`McpSplit`]: the future of the side that serves
    /// the request.
    #[project = SplitProjection]
    // pin-project-lite takes no docs on the fields of a variant.
    #[allow(missing_docs)]
    pub enum SplitFuture<H, M> {
        /// An ordinary HTTP request.
        Http { #[pin] future: H },
        /// A request to the MCP endpoint.
        Mcp { #[pin] future: M },
    }
}

impl<H, M, HB, MB, E> Future for SplitFuture<H, M>
where
    H: Future<Output = Result<Response<HB>, E>>,
    M: Future<Output = Result<Response<MB>, E>>,
{
    type Output = Result<Response<Either<HB, MB>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            SplitProjection::Http { future } => future
                .poll(cx)
                .map_ok(|response| response.map(Either::Left)),
            SplitProjection::Mcp { future } => future
                .poll(cx)
                .map_ok(|response| response.map(Either::Right)),
        }
    }
}
