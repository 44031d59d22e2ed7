//! [`TerseRequestBody`], the request body the wrapped service reads.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use super::body::into_bytes;
use crate::budget::Reservation;

pin_project! {
    /// The body of a request that went through [`Terse`](super::Terse): the
    /// client's body streamed as it came, or, for a body the client sent as
    /// TOON, the JSON the layer decoded it into.
    ///
    /// ```
    /// use http_body::Body;
    /// use tower_terse::TerseRequestBody;
    ///
    /// let body = TerseRequestBody::new(String::from("{\"a\":1}"));
    /// assert_eq!(body.size_hint().exact(), Some(7));
    /// ```
    pub struct TerseRequestBody<B> {
        #[pin]
        kind: Kind<B>,
        // What decoding holds against the memory budget, until the service
        // drops the body.
        held: Option<Reservation>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<B> {
        Stream {
            #[pin]
            body: B,
        },
        Decoded {
            json: Option<Bytes>,
        },
    }
}

impl<B> TerseRequestBody<B> {
    /// The client's body, passed on untouched.
    pub fn new(body: B) -> Self {
        TerseRequestBody {
            kind: Kind::Stream { body },
            held: None,
        }
    }

    /// JSON the layer decoded from a TOON body.
    pub(crate) fn decoded(json: Bytes) -> Self {
        TerseRequestBody {
            kind: Kind::Decoded {
                json: (!json.is_empty()).then_some(json),
            },
            held: None,
        }
    }

    /// This body, holding `held` (resized to the JSON) until it is dropped.
    pub(crate) fn hold(&mut self, held: Option<Reservation>) {
        self.held = held.map(|mut held| {
            held.resize(self.size_hint_bytes());
            held
        });
    }

    fn size_hint_bytes(&self) -> usize {
        match &self.kind {
            Kind::Decoded { json } => json.as_ref().map_or(0, Bytes::len),
            Kind::Stream { .. } => 0,
        }
    }
}

impl<B: Body> Body for TerseRequestBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        match self.project().kind.project() {
            KindProj::Stream { body } => {
                let frame = ready!(body.poll_frame(cx));
                Poll::Ready(frame.map(|frame| frame.map(|frame| frame.map_data(into_bytes))))
            }
            KindProj::Decoded { json } => {
                Poll::Ready(json.take().map(|json| Ok(Frame::data(json))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Stream { body } => body.is_end_stream(),
            Kind::Decoded { json } => json.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Stream { body } => body.size_hint(),
            Kind::Decoded { json } => {
                SizeHint::with_exact(json.as_ref().map_or(0, |json| json.len() as u64))
            }
        }
    }
}

impl<B> fmt::Debug for TerseRequestBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.kind {
            Kind::Stream { .. } => "Stream",
            Kind::Decoded { .. } => "Decoded",
        };
        f.debug_struct("TerseRequestBody")
            .field("kind", &kind)
            .finish()
    }
}
