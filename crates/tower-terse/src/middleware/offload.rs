//! Rewrites of large bodies on tokio's blocking pool, at most a few at once.
//!
//! Encoding and counting an 8 MiB body takes milliseconds of CPU; done inside
//! `poll` it holds up the async worker and every request queued on it. On the
//! blocking pool it does not, but the pool runs hundreds of threads, so a
//! flood of large requests would hold hundreds of bodies and their rewrites
//! in memory at once. A semaphore keeps the rewrites in flight to
//! `TerseLayer::max_concurrent_rewrites`; a request past it waits its turn
//! without holding a thread.

use std::marker::PhantomData;
use std::task::{Context, Poll};
#[cfg(feature = "tokio")]
use std::{future::Future, pin::Pin, task::ready};

use http::Response;
use http_body::Body;

use super::TerseBody;
use super::complete::Complete;
#[cfg(feature = "tokio")]
use crate::render::Rendered;

/// The shared limit on rewrites in flight on the blocking pool.
#[derive(Debug, Clone)]
pub(crate) struct OffloadSlots {
    #[cfg(feature = "tokio")]
    semaphore: std::sync::Arc<tokio::sync::Semaphore>,
}

impl OffloadSlots {
    pub(crate) fn new(slots: usize) -> Self {
        #[cfg(not(feature = "tokio"))]
        let _ = slots;
        OffloadSlots {
            #[cfg(feature = "tokio")]
            semaphore: std::sync::Arc::new(tokio::sync::Semaphore::new(
                slots.clamp(1, tokio::sync::Semaphore::MAX_PERMITS),
            )),
        }
    }

    /// As many slots as the machine has cores: the rewrites are CPU work,
    /// so more at once would not finish sooner, only hold more memory.
    pub(crate) fn per_core() -> Self {
        Self::new(std::thread::available_parallelism().map_or(2, usize::from))
    }
}

#[cfg(feature = "tokio")]
type Acquire = Pin<
    Box<
        dyn Future<Output = Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError>>
            + Send,
    >,
>;

/// A body waiting for a slot, then being rewritten on the blocking pool.
pub(super) struct Offload<B> {
    complete: Option<Complete>,
    #[cfg(feature = "tokio")]
    stage: Stage,
    _body: PhantomData<fn() -> B>,
}

#[cfg(feature = "tokio")]
enum Stage {
    Waiting(Acquire, tokio::runtime::Handle),
    Running {
        task: tokio::task::JoinHandle<Rendered>,
        /// The slot, given back when the rewrite is done and this drops.
        _slot: tokio::sync::OwnedSemaphorePermit,
    },
}

impl<B: Body> Offload<B> {
    /// Takes a body at least as large as the threshold to the blocking
    /// pool; `None` when it is smaller, or when there is no tokio runtime to
    /// run it on (it is then rewritten in place).
    pub(super) fn start(complete: &mut Option<Complete>) -> Option<Self> {
        let body = complete.as_ref()?;
        if body.read.len() < body.config.offload_threshold {
            return None;
        }
        #[cfg(feature = "tokio")]
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let acquire = Box::pin(body.config.offload_slots.semaphore.clone().acquire_owned());
            return Some(Offload {
                complete: complete.take(),
                stage: Stage::Waiting(acquire, runtime),
                _body: PhantomData,
            });
        }
        None
    }

    pub(super) fn poll_rewritten(&mut self, cx: &mut Context<'_>) -> Poll<Response<TerseBody<B>>> {
        #[cfg(feature = "tokio")]
        loop {
            match &mut self.stage {
                Stage::Waiting(acquire, runtime) => {
                    // The semaphore is never closed; were it, the body would
                    // be rewritten in place rather than lost.
                    let Ok(permit) = ready!(acquire.as_mut().poll(cx)) else {
                        return self.rewrite_here();
                    };
                    let Some(body) = self.complete.as_ref() else {
                        return Poll::Pending;
                    };
                    // Shared, not copied: `Bytes` and the `Arc` are handles.
                    let task = runtime.spawn_blocking(body.job());
                    self.stage = Stage::Running {
                        task,
                        _slot: permit,
                    };
                }
                Stage::Running { task, .. } => {
                    // A rewrite that panicked (or a runtime shutting down)
                    // loses nothing: the body goes out as the handler made it.
                    let rendered = ready!(Pin::new(task).poll(cx));
                    return match (self.complete.take(), rendered) {
                        (Some(complete), Ok(rendered)) => Poll::Ready(complete.send(rendered)),
                        (Some(complete), Err(_)) => Poll::Ready(complete.unchanged()),
                        (None, _) => Poll::Pending,
                    };
                }
            }
        }
        #[cfg(not(feature = "tokio"))]
        {
            let _ = cx;
            self.rewrite_here()
        }
    }

    fn rewrite_here(&mut self) -> Poll<Response<TerseBody<B>>> {
        match self.complete.take() {
            Some(complete) => Poll::Ready(complete.rewrite_here()),
            None => Poll::Pending,
        }
    }
}

/// Runs `read` (reading frames that are ready, which may take a while: a
/// decompressing body does the decompression as it is polled) where it may
/// block: inside [`tokio::task::block_in_place`], which hands this worker's
/// other tasks to another thread first. `None` where that is not possible
/// (no tokio runtime, or one with a single thread): the caller reads in
/// place.
pub(super) fn reading_off_the_workers<T>(read: impl FnOnce() -> T) -> Option<T> {
    #[cfg(feature = "tokio")]
    {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
            return Some(tokio::task::block_in_place(read));
        }
    }
    #[cfg(not(feature = "tokio"))]
    let _ = read;
    None
}
