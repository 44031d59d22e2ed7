//! [`BoxResponseBody`]: the response body moved to the heap where it is
//! made, so the layers outside and the server move a pointer.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::Response;
use pin_project_lite::pin_project;
use tower::Service;

/// Boxes the response body of `inner`, once per response.
///
/// tower-http's compression body holds its encoders' state inline (some
/// 6 KiB); every future and connection task outside it would move a
/// response that large several times on its way out. Boxed right where it
/// is made, the rest moves a pointer. The box keeps the body's type:
/// polling it is not dynamic dispatch.
///
/// ```
/// use terse_gateway::BoxResponseBody;
///
/// let service = BoxResponseBody::new(tower::service_fn(|_: http::Request<()>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(String::from("ok")))
/// }));
/// # drop(service);
/// ```
#[derive(Debug, Clone)]
pub struct BoxResponseBody<S> {
    inner: S,
}

impl<S> BoxResponseBody<S> {
    /// `inner` with its response bodies boxed.
    ///
    /// ```
    /// let service = terse_gateway::BoxResponseBody::new(tower::service_fn(
    ///     |_: http::Request<()>| async {
    ///         Ok::<_, std::convert::Infallible>(http::Response::new(String::new()))
    ///     },
    /// ));
    /// # drop(service);
    /// ```
    pub fn new(inner: S) -> Self {
        BoxResponseBody { inner }
    }
}

impl<S, R, B> Service<R> for BoxResponseBody<S>
where
    S: Service<R, Response = Response<B>>,
{
    type Response = Response<Pin<Box<B>>>;
    type Error = S::Error;
    type Future = BoxResponseBodyFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        BoxResponseBodyFuture {
            inner: self.inner.call(request),
        }
    }
}

pin_project! {
    /// The response future of [`BoxResponseBody`].
    ///
    /// ```
    /// fn is_future<F: std::future::Future>(_: &F) {}
    /// let future = terse_gateway::BoxResponseBodyFuture::from(std::future::ready(
    ///     Ok::<_, std::convert::Infallible>(http::Response::new(String::new())),
    /// ));
    /// is_future(&future);
    /// ```
    #[derive(Debug)]
    pub struct BoxResponseBodyFuture<F> {
        #[pin]
        inner: F,
    }
}

impl<F> From<F> for BoxResponseBodyFuture<F> {
    fn from(inner: F) -> Self {
        BoxResponseBodyFuture { inner }
    }
}

impl<F, B, E> Future for BoxResponseBodyFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<Pin<Box<B>>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().inner.poll(cx) {
            Poll::Ready(Ok(response)) => Poll::Ready(Ok(response.map(Box::pin))),
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => Poll::Pending,
        }
    }
}
