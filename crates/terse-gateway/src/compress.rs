//! [`Compress`]: tower-http's compression, its machinery left out of the
//! requests that accept no coding.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Buf;
use http::header::{
    ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, VARY,
};
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;
use tower::Service;
use tower_http::compression::predicate::DefaultPredicate;
use tower_http::compression::{Compression, CompressionBody};

use crate::upstream_body::BoxError;

/// tower-http's [`Compression`] (with its default predicate), answering a
/// request that accepts no coding (no `Accept-Encoding`, or `identity`
/// alone) as it would, without its machinery.
///
/// Such a request is answered in identity whatever the response; tower-http
/// would still wrap its body in a compression body (its encoders' state
/// inline, some 6 KiB, moved and boxed on every response) and read the
/// request's headers for codings there are none of. Here the response
/// keeps its own body and gets what tower-http adds to it for a client
/// that accepts no coding: `Vary: Accept-Encoding` on a response it would
/// have compressed for another client. Every other request goes through
/// [`Compression`]. Either body is boxed once, where it is made, so that
/// the layers outside and the server move a pointer.
///
/// ```
/// use terse_gateway::Compress;
///
/// let service = Compress::new(tower::service_fn(|_: http::Request<()>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(String::from("ok")))
/// }));
/// # drop(service);
/// ```
#[derive(Clone)]
pub struct Compress<S> {
    inner: Compression<S>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for Compress<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compress")
            .field("inner", self.inner.get_ref())
            .finish_non_exhaustive()
    }
}

impl<S> Compress<S> {
    /// `inner` with its responses compressed as the client accepts.
    ///
    /// ```
    /// let service = terse_gateway::Compress::new(tower::service_fn(
    ///     |_: http::Request<()>| async {
    ///         Ok::<_, std::convert::Infallible>(http::Response::new(String::new()))
    ///     },
    /// ));
    /// # drop(service);
    /// ```
    pub fn new(inner: S) -> Self {
        Compress {
            inner: Compression::new(inner),
        }
    }
}

impl<S, ReqB, B> Service<Request<ReqB>> for Compress<S>
where
    S: Service<Request<ReqB>, Response = Response<B>>,
    B: Body,
{
    type Response = Response<CompressBody<B>>;
    type Error = S::Error;
    type Future = CompressFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqB>) -> Self::Future {
        let state = if accepts_a_coding(request.headers()) {
            State::Compressed {
                future: self.inner.call(request),
            }
        } else {
            State::Identity {
                future: self.inner.get_mut().call(request),
            }
        };
        CompressFuture { state }
    }
}

pin_project! {
    /// The response future of [`Compress`].
    pub struct CompressFuture<F> {
        #[pin]
        state: State<F>,
    }
}

pin_project! {
    #[project = StateProj]
    enum State<F> {
        // The client accepts no coding: the inner service's own future.
        Identity {
            #[pin]
            future: F,
        },
        // tower-http's compression at work.
        Compressed {
            #[pin]
            future: tower_http::compression::ResponseFuture<F, DefaultPredicate>,
        },
    }
}

impl<F> std::fmt::Debug for CompressFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompressFuture").finish_non_exhaustive()
    }
}

impl<F, B, E> Future for CompressFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: Body,
{
    type Output = Result<Response<CompressBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().state.project() {
            StateProj::Identity { future } => {
                let mut response = std::task::ready!(future.poll(cx))?;
                if would_compress(&response) == Some(false) {
                    response
                        .headers_mut()
                        .append(VARY, HeaderValue::from_static("accept-encoding"));
                }
                Poll::Ready(Ok(response.map(CompressBody::identity)))
            }
            StateProj::Compressed { future } => {
                let response = std::task::ready!(future.poll(cx))?;
                Poll::Ready(Ok(response.map(CompressBody::compressed)))
            }
        }
    }
}

/// Whether `headers` may accept a coding other than identity: any
/// `Accept-Encoding` but none at all or `identity` alone (which tower-http
/// answers in identity too) goes to tower-http to decide.
fn accepts_a_coding(headers: &HeaderMap) -> bool {
    // Along the few headers a request has, which costs less than hashing
    // the name to look it up.
    headers.iter().any(|(name, value)| {
        name == ACCEPT_ENCODING
            && !value
                .as_bytes()
                .trim_ascii()
                .eq_ignore_ascii_case(b"identity")
    })
}

/// Whether tower-http's compression would compress `response` for a client
/// that accepts a coding (not when it is encoded or ranged already, its
/// response future's own test; else as its default predicate,
/// [`DefaultPredicate`], says), and if so whether a `Vary` names
/// `Accept-Encoding` already: `Some(named)` when it would, `None` when not.
///
/// One pass over the response's few headers, rather than the two lookups,
/// the three of `Content-Type` (one per predicate) and the lookup of `Vary`
/// that the same answer took: this runs for every response to a client
/// that accepts no coding. A test holds it to tower-http's.
fn would_compress<B: Body>(response: &Response<B>) -> Option<bool> {
    let mut content_type = None;
    let mut content_length = None;
    let mut vary_named = false;
    for (name, value) in response.headers() {
        if name == CONTENT_TYPE {
            // The first value, as `HeaderMap::get` gives it.
            content_type.get_or_insert(value);
        } else if name == CONTENT_LENGTH {
            content_length.get_or_insert(value);
        } else if name == VARY {
            vary_named = vary_named || names_accept_encoding(value);
        } else if name == CONTENT_ENCODING || name == CONTENT_RANGE {
            return None;
        }
    }
    // `SizeAbove`: an exact length from the body, else the declared one.
    let size = response.body().size_hint().exact().or_else(|| {
        content_length
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok())
    });
    if size.is_some_and(|size| size < MIN_COMPRESSED_SIZE) {
        return None;
    }
    // `NotForContentType`: gRPC (not gRPC-web), images (not SVG), SSE.
    let content_type = content_type
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let refused = |kind: &str, except: Option<&str>| {
        content_type.starts_with(kind) && !except.is_some_and(|e| content_type.starts_with(e))
    };
    if refused("application/grpc", Some("application/grpc-web"))
        || refused("image/", Some("image/svg+xml"))
        || refused("text/event-stream", None)
    {
        return None;
    }
    Some(vary_named)
}

/// The smallest body tower-http's default predicate compresses.
const MIN_COMPRESSED_SIZE: u64 = 32;

/// Whether a `Vary` value names `Accept-Encoding` (anywhere in it, any
/// case), as tower-http reads it; a window is compared only where it
/// starts with an `a`.
fn names_accept_encoding(value: &HeaderValue) -> bool {
    let needle = ACCEPT_ENCODING.as_str().as_bytes();
    value
        .as_bytes()
        .windows(needle.len())
        .any(|window| window[0] | 0x20 == b'a' && window.eq_ignore_ascii_case(needle))
}

pin_project! {
    /// The response body of [`Compress`]: the inner service's own, or
    /// tower-http's compression body, boxed.
    pub struct CompressBody<B>
    where
        B: Body,
    {
        #[pin]
        inner: Inner<B>,
    }
}

pin_project! {
    #[project = InnerProj]
    enum Inner<B>
    where
        B: Body,
    {
        // Sent as the inner service made it. Boxed as well: the layers'
        // bodies inside are some hundreds of bytes, which the server would
        // move several times on the way out.
        Identity {
            body: Pin<Box<B>>,
        },
        // Compressed as the client accepts (or passed through tower-http's
        // compression body in identity).
        Compressed {
            body: Pin<Box<CompressionBody<B>>>,
        },
    }
}

impl<B: Body> CompressBody<B> {
    fn identity(body: B) -> Self {
        CompressBody {
            inner: Inner::Identity {
                body: Box::pin(body),
            },
        }
    }

    fn compressed(body: CompressionBody<B>) -> Self {
        CompressBody {
            inner: Inner::Compressed {
                body: Box::pin(body),
            },
        }
    }
}

impl<B: Body> std::fmt::Debug for CompressBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.inner {
            Inner::Identity { .. } => f.write_str("CompressBody::Identity"),
            Inner::Compressed { .. } => f.write_str("CompressBody::Compressed"),
        }
    }
}

impl<B> Body for CompressBody<B>
where
    B: Body,
    B::Error: Into<BoxError>,
{
    type Data = bytes::Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        match self.project().inner.project() {
            // As tower-http's compression body passes an identity body on.
            InnerProj::Identity { body } => match std::task::ready!(body.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => Poll::Ready(Some(Ok(
                    frame.map_data(|mut data| data.copy_to_bytes(data.remaining()))
                ))),
                Some(Err(err)) => Poll::Ready(Some(Err(err.into()))),
                None => Poll::Ready(None),
            },
            InnerProj::Compressed { body } => body.as_mut().poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Identity { body } => body.is_end_stream(),
            Inner::Compressed { body } => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            Inner::Identity { body } => body.size_hint(),
            Inner::Compressed { body } => body.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full};
    use tower::ServiceExt;

    /// For a client that accepts no coding (no `Accept-Encoding`, or
    /// `identity` alone), [`Compress`] answers as tower-http's
    /// [`Compression`] does: the same status, head (`Vary` included) and
    /// body, for every kind of response its predicate and its response
    /// future tell apart.
    #[tokio::test]
    async fn a_client_of_no_coding_gets_what_tower_http_gives_it() {
        let types = [
            None,
            Some("application/json"),
            Some("application/grpc"),
            Some("application/grpc+proto"),
            Some("application/grpc-web"),
            Some("image/png"),
            Some("image/svg+xml"),
            Some("text/event-stream"),
            Some("text/event-stream; charset=utf-8"),
            Some("text/html"),
        ];
        // `None`: a body of unknown length, whose declared length decides.
        let lengths = [Some(0usize), Some(31), Some(32), Some(33), Some(5000), None];
        let mut cases = 0;
        for content_type in types {
            for len in lengths {
                for declared in [None, Some("10"), Some("100"), Some("x")] {
                    for (encoded, ranged, vary) in [
                        (false, false, None),
                        (true, false, None),
                        (false, true, None),
                        (false, false, Some("X-Prefer-Format")),
                        (false, false, Some("x-prefer-format, Accept-Encoding")),
                        (false, false, Some("Accept, X-Prefer-Format")),
                    ] {
                        for accept in [None, Some("identity")] {
                            let answer = move || {
                                let body = match len {
                                    Some(len) => http_body_util::Either::Left(Full::new(
                                        bytes::Bytes::from(vec![b'a'; len]),
                                    )),
                                    None => http_body_util::Either::Right(Unsized),
                                };
                                let mut response = Response::new(body);
                                let headers = response.headers_mut();
                                if let Some(content_type) = content_type {
                                    headers.insert(CONTENT_TYPE, content_type.parse().unwrap());
                                }
                                if let Some(declared) = declared {
                                    headers.insert(CONTENT_LENGTH, declared.parse().unwrap());
                                }
                                if encoded {
                                    headers.insert(CONTENT_ENCODING, "gzip".parse().unwrap());
                                }
                                if ranged {
                                    headers.insert(CONTENT_RANGE, "bytes 0-1/2".parse().unwrap());
                                }
                                if let Some(vary) = vary {
                                    headers.insert(VARY, vary.parse().unwrap());
                                }
                                response
                            };
                            let request = || {
                                let mut request = Request::new(());
                                if let Some(accept) = accept {
                                    request
                                        .headers_mut()
                                        .insert(ACCEPT_ENCODING, accept.parse().unwrap());
                                }
                                request
                            };
                            let service = tower::service_fn(move |_: Request<()>| async move {
                                Ok::<_, std::convert::Infallible>(answer())
                            });
                            let ours = Compress::new(service).oneshot(request()).await.unwrap();
                            let theirs =
                                Compression::new(service).oneshot(request()).await.unwrap();
                            let case = format!(
                                "{content_type:?} {len:?} {declared:?} {encoded} {ranged} {vary:?} {accept:?}"
                            );
                            assert_eq!(ours.status(), theirs.status(), "{case}");
                            assert_eq!(ours.headers(), theirs.headers(), "{case}");
                            let ours = ours.into_body().collect().await.unwrap().to_bytes();
                            let theirs = theirs.into_body().collect().await.unwrap().to_bytes();
                            assert_eq!(ours, theirs, "{case}");
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(cases, 10 * 6 * 4 * 6 * 2);
    }

    /// A body whose length is not known.
    struct Unsized;

    impl Body for Unsized {
        type Data = bytes::Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
            Poll::Ready(None)
        }
    }

    #[test]
    fn identity_alone_accepts_no_coding() {
        let mut headers = HeaderMap::new();
        assert!(!accepts_a_coding(&headers));
        headers.insert(ACCEPT_ENCODING, " Identity ".parse().unwrap());
        assert!(!accepts_a_coding(&headers));
        headers.append(ACCEPT_ENCODING, "gzip".parse().unwrap());
        assert!(accepts_a_coding(&headers));
        headers.insert(ACCEPT_ENCODING, "identity;q=0".parse().unwrap());
        assert!(accepts_a_coding(&headers));
    }

    #[test]
    fn vary_names_accept_encoding_in_any_case_anywhere() {
        for (value, named) in [
            ("accept-encoding", true),
            ("X-Prefer-Format, Accept-Encoding", true),
            ("ACCEPT-ENCODINGS", true),
            ("Accept, X-Prefer-Format", false),
            ("accept-encodin", false),
            ("", false),
        ] {
            let value = HeaderValue::from_static(value);
            assert_eq!(names_accept_encoding(&value), named, "{value:?}");
        }
    }
}
