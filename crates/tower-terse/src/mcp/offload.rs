//! Large rewrites of an MCP answer on tokio's blocking pool (with the
//! `tokio` feature, inside a runtime), as the HTTP layer offloads its own:
//! a TOON encoding of a large tool result never holds an async worker. They
//! take a slot of the layer's [`BlockingLimit`](crate::BlockingLimit)
//! first, the one the HTTP layer may share; past its wait the answer goes
//! out as the server wrote it. An answer whose client has gone before its
//! rewrite started never starts it.

use std::task::{Context, Poll};

use std::sync::Arc;

use bytes::Bytes;

use super::exchange::Exchange;
use super::mode::{Mode, finish, push};

/// What the body does with the mode next.
pub(crate) enum Work {
    /// Feed these bytes.
    Push(Bytes),
    /// The stream ended whole.
    Finish,
}

/// Does `work` here: what may go out now.
pub(crate) fn run(mode: &mut Mode, exchange: Option<&Exchange>, work: Work) -> Vec<u8> {
    match work {
        Work::Push(data) => push(mode, exchange, data),
        Work::Finish => finish(mode, exchange, true),
    }
}

/// A rewrite waiting for a slot of the layer's
/// [`BlockingLimit`](crate::BlockingLimit), then on the blocking pool:
/// gives the mode back with the output.
#[cfg(feature = "tokio")]
pub(crate) enum Task {
    Waiting {
        waiting: crate::blocking::Waiting,
        runtime: tokio::runtime::Handle,
        job: Option<(Mode, Arc<Exchange>, Work)>,
    },
    Running(crate::blocking::Running<(Mode, Vec<u8>)>),
}
/// Without tokio nothing is offloaded.
#[cfg(not(feature = "tokio"))]
pub(crate) type Task = std::future::Pending<(Mode, Vec<u8>)>;

/// Takes `work` to the blocking pool when it is large and a runtime is
/// there; `Err` gives the work back to do here.
pub(crate) fn spawn(
    mode: &mut Mode,
    exchange: Option<&Arc<Exchange>>,
    work: Work,
) -> Result<Task, Work> {
    #[cfg(feature = "tokio")]
    {
        let size = match &work {
            Work::Push(data) => data.len().saturating_add(mode.held()),
            Work::Finish => mode.held(),
        };
        let runtime = tokio::runtime::Handle::try_current();
        if let (true, Ok(runtime), Some(exchange)) =
            (size >= super::OFFLOAD_BYTES, runtime, exchange)
        {
            let mode = std::mem::replace(mode, Mode::Away);
            return Ok(Task::Waiting {
                waiting: exchange.config.limit.slot(),
                runtime,
                job: Some((mode, exchange.clone(), work)),
            });
        }
    }
    #[cfg(not(feature = "tokio"))]
    let _ = (mode, exchange);
    Err(work)
}

/// The mode and output of a finished task; `None` inside when it failed
/// (a panic), which ends the body. A task that found no slot in time
/// gives back what it held as it came, and the mode that streams the rest
/// through.
pub(crate) fn poll(task: &mut Task, cx: &mut Context<'_>) -> Poll<Option<(Mode, Vec<u8>)>> {
    #[cfg(feature = "tokio")]
    loop {
        match task {
            Task::Waiting {
                waiting,
                runtime,
                job,
            } => {
                let slot = std::task::ready!(waiting.poll(cx));
                let Some((mut mode, exchange, work)) = job.take() else {
                    return Poll::Pending;
                };
                let Some(slot) = slot else {
                    let mut out = mode.let_go();
                    if let Work::Push(data) = work {
                        out.extend_from_slice(&data);
                    }
                    return Poll::Ready(Some((mode, out)));
                };
                let running = slot.spawn(runtime, move |_| {
                    let out = run(&mut mode, Some(&exchange), work);
                    (mode, out)
                });
                *task = Task::Running(running);
            }
            Task::Running(running) => return running.poll(cx),
        }
    }
    #[cfg(not(feature = "tokio"))]
    std::future::Future::poll(std::pin::Pin::new(task), cx).map(Some)
}
