//! [`TerseBody`], the response body the middleware sends.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use crate::budget::Reservation;

pin_project! {
    /// The body of a response that went through [`Terse`](super::Terse).
    ///
    /// It either streams the handler's body unchanged, or sends a body the
    /// layer read whole (rewritten or not), or, for a body the layer started
    /// reading and then had to give up on (over the limit, or failing), sends
    /// the bytes already read followed by the rest of the handler's stream.
    pub struct TerseBody<B>
    where
        B: Body,
    {
        #[pin]
        kind: Kind<B>,
        // Bytes held against the memory budget until the body is dropped.
        held: Option<Reservation>,
    }
}

/// The largest frame a body held whole is sent in: the server then asks
/// for the next one only once it has written this one, so a client that
/// reads slowly holds the rest here, counted against the budget.
const FRAME_BYTES: usize = 64 * 1024;

pin_project! {
    #[project = KindProj]
    enum Kind<B>
    where
        B: Body,
    {
        Stream {
            #[pin]
            body: B,
        },
        Full {
            data: Option<Bytes>,
            trailers: Option<HeaderMap>,
            // The handler's own hint, for a body sent exactly as it was made
            // (so a chunked body stays chunked); `None` means the exact length.
            hint: Option<SizeHint>,
        },
        Replay {
            data: Option<Bytes>,
            error: Option<B::Error>,
            rest: Pin<Box<B>>,
        },
    }
}

impl<B: Body> TerseBody<B> {
    /// The handler's body, streamed as it comes.
    pub(crate) fn stream(body: B) -> Self {
        TerseBody {
            held: None,
            kind: Kind::Stream { body },
        }
    }

    /// A body held whole, then the handler's trailers, if it had any.
    pub(crate) fn full(data: Bytes, trailers: Option<HeaderMap>) -> Self {
        TerseBody {
            held: None,
            kind: Kind::Full {
                data: (!data.is_empty()).then_some(data),
                trailers,
                hint: None,
            },
        }
    }

    /// A body read whole that goes out as the handler made it, announcing
    /// the size the handler announced.
    pub(crate) fn unchanged(data: Bytes, trailers: Option<HeaderMap>, hint: SizeHint) -> Self {
        TerseBody {
            held: None,
            kind: Kind::Full {
                data: (!data.is_empty()).then_some(data),
                trailers,
                hint: Some(hint),
            },
        }
    }

    /// This body, holding `held` until it is dropped.
    pub(crate) fn holding(mut self, held: Option<Reservation>) -> Self {
        self.held = held;
        self
    }

    /// The bytes already read, then `error` if reading failed, then whatever
    /// `rest` still has.
    pub(crate) fn replay(data: Bytes, error: Option<B::Error>, rest: Pin<Box<B>>) -> Self {
        TerseBody {
            held: None,
            kind: Kind::Replay {
                data: (!data.is_empty()).then_some(data),
                error,
                rest,
            },
        }
    }
}

/// A frame's data as `Bytes`, for the layer's and MCP's bodies alike.
pub(crate) fn into_bytes<D: Buf>(mut data: D) -> Bytes {
    // `Bytes` hands itself over without copying.
    data.copy_to_bytes(data.remaining())
}

impl<B: Body> Body for TerseBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.project();
        match this.kind.project() {
            KindProj::Stream { body } => {
                let frame = ready!(body.poll_frame(cx));
                Poll::Ready(frame.map(|frame| frame.map(|frame| frame.map_data(into_bytes))))
            }
            KindProj::Full { data, trailers, .. } => Poll::Ready(
                match data {
                    Some(rest) if rest.len() > FRAME_BYTES => Some(rest.split_to(FRAME_BYTES)),
                    _ => data.take(),
                }
                .map(Frame::data)
                .or_else(|| trailers.take().map(Frame::trailers))
                .map(Ok),
            ),
            KindProj::Replay { data, error, rest } => {
                if let Some(data) = data.take() {
                    return Poll::Ready(Some(Ok(Frame::data(data))));
                }
                // Asked for more: the server has taken the bytes replayed
                // (it asks only once its buffer has room), and what they
                // held of the budget goes back.
                *this.held = None;
                if let Some(error) = error.take() {
                    return Poll::Ready(Some(Err(error)));
                }
                let frame = ready!(rest.as_mut().poll_frame(cx));
                Poll::Ready(frame.map(|frame| frame.map(|frame| frame.map_data(into_bytes))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Stream { body } => body.is_end_stream(),
            Kind::Full { data, trailers, .. } => data.is_none() && trailers.is_none(),
            Kind::Replay { data, error, rest } => {
                data.is_none() && error.is_none() && rest.is_end_stream()
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Stream { body } => body.size_hint(),
            Kind::Full { data, hint, .. } => match hint {
                Some(hint) if data.is_some() => *hint,
                _ => SizeHint::with_exact(data.as_ref().map_or(0, |d| d.len() as u64)),
            },
            Kind::Replay { data, error, rest } => {
                if error.is_some() {
                    return SizeHint::default();
                }
                let read = data.as_ref().map_or(0, |d| d.len() as u64);
                let rest = rest.size_hint();
                let mut hint = SizeHint::new();
                hint.set_lower(rest.lower().saturating_add(read));
                if let Some(upper) = rest.upper() {
                    hint.set_upper(upper.saturating_add(read));
                }
                hint
            }
        }
    }
}

impl<B: Body> fmt::Debug for TerseBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            Kind::Stream { .. } => "Stream",
            Kind::Full { .. } => "Full",
            Kind::Replay { .. } => "Replay",
        };
        f.debug_struct("TerseBody").field("kind", &kind).finish()
    }
}
