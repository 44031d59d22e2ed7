//! Large rewrites of an MCP answer on tokio's blocking pool (with the
//! `tokio` feature, inside a runtime), as the HTTP layer offloads its own:
//! a TOON encoding of a large tool result never holds an async worker.

use std::task::{Context, Poll};

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

/// A rewrite on the blocking pool: gives the mode back with the output.
#[cfg(feature = "tokio")]
pub(crate) type Task = tokio::task::JoinHandle<(Mode, Vec<u8>)>;
/// Without tokio nothing is offloaded.
#[cfg(not(feature = "tokio"))]
pub(crate) type Task = std::future::Pending<(Mode, Vec<u8>)>;

/// Starts `work` on the blocking pool when it is large and a runtime is
/// there; `Err` gives the work back to do here.
pub(crate) fn spawn(
    mode: &mut Mode,
    exchange: Option<&std::sync::Arc<Exchange>>,
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
            let exchange = exchange.clone();
            let mut mode = std::mem::replace(mode, Mode::Away);
            return Ok(runtime.spawn_blocking(move || {
                let out = run(&mut mode, Some(&exchange), work);
                (mode, out)
            }));
        }
    }
    #[cfg(not(feature = "tokio"))]
    let _ = (mode, exchange);
    Err(work)
}

/// The mode and output of a finished task; `None` inside when it failed
/// (a panic), which ends the body.
pub(crate) fn poll(task: &mut Task, cx: &mut Context<'_>) -> Poll<Option<(Mode, Vec<u8>)>> {
    let task = std::pin::Pin::new(task);
    #[cfg(feature = "tokio")]
    return std::future::Future::poll(task, cx).map(Result::ok);
    #[cfg(not(feature = "tokio"))]
    std::future::Future::poll(task, cx).map(Some)
}
