//! [`UpstreamBody`]: the body of an upstream's answer through the gateway,
//! with its idle timeout, read by [`Upstream`](crate::Upstream) and by the
//! OAuth metadata rewrite (`resource_metadata.rs`) alike.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use pin_project_lite::pin_project;
use tokio::time::Sleep;

/// A boxed error, as bodies carry them.
///
/// ```
/// let err: terse_gateway::BoxError = "upstream gone".into();
/// assert_eq!(err.to_string(), "upstream gone");
/// ```
pub type BoxError = Box<dyn StdError + Send + Sync>;

pin_project! {
    /// A response body from [`Upstream`](crate::Upstream): the upstream's stream, or a
    /// body the gateway made itself (its 502 and 504).
    ///
    /// ```
    /// use http_body::Body;
    /// use terse_gateway::UpstreamBody;
    ///
    /// let body = UpstreamBody::from(bytes::Bytes::from_static(b"{}"));
    /// assert_eq!(body.size_hint().exact(), Some(2));
    /// ```
    pub struct UpstreamBody {
        #[pin]
        kind: Kind,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind {
        Incoming {
            #[pin]
            body: Incoming,
            // The idle timer: the one that bounded the wait for the
            // response head, so that an exchange registers one timer, not
            // two. It is not moved at every wait (which costs as much as
            // reading a frame): when it fires, the silence is measured
            // from `silent_since`, and it is set again if that is short.
            idle: Pin<Box<Sleep>>,
            // When the body last started to wait after a frame (or the head).
            silent_since: tokio::time::Instant,
            // A frame came (or the head did) since `silent_since` was set:
            // it is set at the next wait.
            stale: bool,
            timeout: Duration,
            // An error held back for one poll, until what was written
            // before it has had a chance to go out.
            failed: Option<BoxError>,
        },
        Full {
            data: Option<Bytes>,
        },
        // What was read ahead, then the frame that stopped the reading,
        // then the rest of the upstream's body.
        Replayed {
            head: Option<Bytes>,
            next: Option<Result<Frame<Bytes>, BoxError>>,
            rest: Pin<Box<UpstreamBody>>,
        },
    }
}

impl UpstreamBody {
    /// `body`, cut when it pauses for longer than `timeout`, timed by
    /// `timer` (the one that waited for the head: its deadline is moved).
    pub(crate) fn incoming(
        body: Incoming,
        timeout: Duration,
        timer: Pin<Box<Sleep>>,
        started: tokio::time::Instant,
    ) -> Self {
        UpstreamBody {
            kind: Kind::Incoming {
                body,
                idle: timer,
                // Not read before the first wait sets it (`stale`): the
                // exchange's start, rather than a reading of the clock.
                silent_since: started,
                stale: true,
                timeout,
                failed: None,
            },
        }
    }
}

impl UpstreamBody {
    /// `head`, then `next`, then what `rest` still holds: a body read
    /// ahead in part, given back whole.
    pub(crate) fn replayed(
        head: Bytes,
        next: Option<Result<Frame<Bytes>, BoxError>>,
        rest: Pin<Box<UpstreamBody>>,
    ) -> Self {
        UpstreamBody {
            kind: Kind::Replayed {
                head: (!head.is_empty()).then_some(head),
                next,
                rest,
            },
        }
    }
}

impl From<Bytes> for UpstreamBody {
    fn from(data: Bytes) -> Self {
        UpstreamBody {
            kind: Kind::Full {
                data: (!data.is_empty()).then_some(data),
            },
        }
    }
}

impl fmt::Debug for UpstreamBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("UpstreamBody")
    }
}

/// `timeout` after `start`, or about thirty years when that overflows.
pub(crate) fn after(start: tokio::time::Instant, timeout: Duration) -> tokio::time::Instant {
    start
        .checked_add(timeout)
        .unwrap_or_else(|| start + Duration::from_secs(30 * 365 * 86_400))
}

/// The upstream paused mid-body for longer than the idle timeout: the
/// error that ends such a body (see [`Upstream::idle_timeout`](crate::Upstream::idle_timeout)).
///
/// ```
/// fn cut_for_silence(err: &terse_gateway::BoxError) -> bool {
///     err.is::<terse_gateway::IdleTimeout>()
/// }
/// ```
#[derive(Debug)]
pub struct IdleTimeout(Duration);

impl fmt::Display for IdleTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the upstream sent nothing for {:?} mid-body", self.0)
    }
}

impl StdError for IdleTimeout {}

impl Body for UpstreamBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.project().kind.project() {
            KindProj::Incoming {
                body,
                idle,
                silent_since,
                stale,
                timeout,
                failed,
            } => {
                if let Some(err) = failed.take() {
                    return Poll::Ready(Some(Err(err)));
                }
                let frame = match body.poll_frame(cx) {
                    Poll::Ready(frame) => {
                        *stale = true;
                        frame.map(|f| f.map_err(Into::into))
                    }
                    Poll::Pending => {
                        // The silence starts now: the first wait, or the
                        // first since a frame came.
                        if *stale {
                            *silent_since = tokio::time::Instant::now();
                            *stale = false;
                            // Never later than this silence's end (an idle
                            // timeout shorter than what was left of the
                            // response timeout).
                            let due = after(*silent_since, *timeout);
                            if idle.deadline() > due {
                                idle.as_mut().reset(due);
                            }
                        }
                        // The timer may be due before the silence is long
                        // enough (set for the head, or for an earlier
                        // silence): then it is set for the silence's end.
                        loop {
                            ready!(idle.as_mut().poll(cx));
                            let due = after(*silent_since, *timeout);
                            if tokio::time::Instant::now() >= due {
                                break;
                            }
                            idle.as_mut().reset(due);
                        }
                        Some(Err(Box::new(IdleTimeout(*timeout)) as BoxError))
                    }
                };
                match frame {
                    // A server writes the response head with the first
                    // data and flushes when the body is pending; a body
                    // error closes the connection with whatever is still
                    // buffered unsent. One pending poll before the error
                    // lets the head and the bytes read so far out, so a
                    // client sees the status and then the cut, never an
                    // empty reply.
                    Some(Err(err)) => {
                        *failed = Some(err);
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                    other => Poll::Ready(other),
                }
            }
            KindProj::Full { data } => Poll::Ready(data.take().map(|d| Ok(Frame::data(d)))),
            KindProj::Replayed { head, next, rest } => {
                if let Some(head) = head.take() {
                    return Poll::Ready(Some(Ok(Frame::data(head))));
                }
                if let Some(next) = next.take() {
                    return Poll::Ready(Some(next));
                }
                rest.as_mut().poll_frame(cx)
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Incoming { body, failed, .. } => failed.is_none() && body.is_end_stream(),
            Kind::Full { data } => data.is_none(),
            Kind::Replayed { head, next, rest } => {
                head.is_none() && next.is_none() && rest.is_end_stream()
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Incoming { body, .. } => body.size_hint(),
            Kind::Full { data } => {
                SizeHint::with_exact(data.as_ref().map_or(0, |d| d.len() as u64))
            }
            // Unknown: the frame held back may be trailers or an error.
            Kind::Replayed { .. } => SizeHint::default(),
        }
    }
}
