//! Rewrites that cost too much for an async worker, on tokio's blocking
//! pool under the layer's [`BlockingLimit`](crate::settings::BlockingLimit).
//!
//! Encoding and counting takes CPU in proportion to what is written and
//! counted, not to the body read: 80 KB nested 60 levels writes a megabyte
//! of TOON. Done inside `poll`, that holds up the async worker and every
//! request queued on it. So a rewrite whose work (counted before it
//! starts, see [`Cost`](crate::render::Cost)) reaches
//! `offload_threshold` runs on the blocking pool, once it has a slot of
//! the limit; a rewrite that finds none in time sends its body unchanged
//! ([`Complete::busy`]). A near tie of the smart fallback met on a worker
//! comes here the same way when counting both its texts exactly would
//! take the rewrite's work past the threshold: only the counting runs on
//! the pool, the rendering already done travels with it. A response dropped before its rewrite started
//! (the client has gone) never starts it.

use std::marker::PhantomData;
#[cfg(feature = "tokio")]
use std::task::ready;
use std::task::{Context, Poll};

use http::Response;
use http_body::Body;

use super::TerseBody;
use super::complete::Complete;
#[cfg(feature = "tokio")]
use crate::blocking::{Running, Waiting};
#[cfg(feature = "tokio")]
use crate::render::Rendered;
use crate::render::Tie;

/// A body waiting for a slot, then being rewritten on the blocking pool.
pub(super) struct Offload<B> {
    // Boxed: only large bodies come here, and the response future, whose
    // every state is as large as its largest, stays small for the rest.
    complete: Option<Box<Complete>>,
    /// A near tie met on an async worker, to settle here.
    tie: Option<Tie>,
    #[cfg(feature = "tokio")]
    stage: Stage,
    _body: PhantomData<fn() -> B>,
}

#[cfg(feature = "tokio")]
enum Stage {
    Waiting(Waiting, tokio::runtime::Handle),
    Running(Running<Rendered>),
}

impl<B: Body> Offload<B> {
    /// Takes a body whose rewrite costs too much for an async worker (its
    /// work reached `offload_threshold`), or whose near `tie` costs too
    /// much to settle there, to the blocking pool; both back when there is
    /// no tokio runtime to run them on (they are then done in place,
    /// [`Complete::finish_here`]).
    pub(super) fn start(
        complete: Box<Complete>,
        tie: Option<Tie>,
    ) -> Result<Self, (Box<Complete>, Option<Tie>)> {
        #[cfg(feature = "tokio")]
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let waiting = complete.plan.config.limit.slot();
            return Ok(Offload {
                complete: Some(complete),
                tie,
                stage: Stage::Waiting(waiting, runtime),
                _body: PhantomData,
            });
        }
        Err((complete, tie))
    }

    pub(super) fn poll_rewritten(&mut self, cx: &mut Context<'_>) -> Poll<Response<TerseBody<B>>> {
        #[cfg(feature = "tokio")]
        loop {
            match &mut self.stage {
                Stage::Waiting(waiting, runtime) => {
                    let slot = ready!(waiting.poll(cx));
                    let (Some(slot), Some(body)) = (slot, self.complete.as_ref()) else {
                        return self.take(Complete::busy);
                    };
                    // Shared, not copied: `Bytes` and the `Arc` are handles.
                    let job = body.job(self.tie.take());
                    self.stage = Stage::Running(slot.spawn(runtime, move |_| job()));
                }
                Stage::Running(running) => {
                    // A rewrite that panicked (or a runtime shutting down)
                    // loses nothing: the body goes out as the handler made it.
                    return match ready!(running.poll(cx)) {
                        Some(rendered) => self.take(|complete| complete.send(rendered)),
                        None => self.take(Complete::unchanged),
                    };
                }
            }
        }
        #[cfg(not(feature = "tokio"))]
        {
            let _ = cx;
            let tie = self.tie.take();
            self.take(|complete| complete.finish_here(tie))
        }
    }

    /// The response `finish` makes of the body; pending for ever when
    /// polled again after it was ready, which the `Future` contract allows.
    fn take(
        &mut self,
        finish: impl FnOnce(Complete) -> Response<TerseBody<B>>,
    ) -> Poll<Response<TerseBody<B>>> {
        match self.complete.take() {
            Some(complete) => Poll::Ready(finish(*complete)),
            None => Poll::Pending,
        }
    }
}
