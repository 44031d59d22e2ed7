//! Costly rewrites of an MCP answer on tokio's blocking pool (with the
//! `tokio` feature, inside a runtime), as the HTTP layer offloads its own:
//! a TOON encoding of a large tool result never holds an async worker. The
//! cost is the work the rewrite will do, counted before it starts with the
//! bound the HTTP layer takes of a response body (see
//! [`OFFLOAD_BYTES`](super::OFFLOAD_BYTES)), not the message's size. They
//! take a slot of the layer's [`BlockingLimit`](crate::settings::BlockingLimit)
//! first, the one the HTTP layer may share; past its wait the answer goes
//! out as the server wrote it. An answer whose client has gone before its
//! rewrite started never starts it.
//!
//! The cost leaves out the exact counts of the smart fallback's near ties,
//! which most answers never need. A rewrite under the threshold renders
//! its blocks on the async worker ([`Session::prepare`]); a near tie met
//! there is settled in place when counting both its texts exactly fits in
//! what is left below the threshold, else the rewrite goes to the blocking
//! pool as a costly one does, with its renderings: only the counting runs
//! there.
//!
//! A transport that reads whole messages (`terse mcp` on stdio) does the
//! same through [`Session::server_message_offloaded`] and
//! [`Session::client_message_offloaded`].

use std::task::{Context, Poll};

use std::sync::Arc;

use bytes::Bytes;

// Named by the offloaded methods, which need the runtime.
#[cfg_attr(not(feature = "tokio"), allow(unused_imports))]
use super::Session;
use super::exchange::Exchange;
use super::mode::{Mode, Readings, finish, push};

/// What the body does with the mode next.
pub(crate) enum Work {
    /// Feed these bytes.
    Push(Bytes),
    /// The stream ended whole.
    Finish,
}

/// Does `work` here, going on from the `readings` its measurement made:
/// what may go out now.
pub(crate) fn run(
    mode: &mut Mode,
    exchange: Option<&Exchange>,
    work: Work,
    readings: &mut Readings,
) -> Vec<u8> {
    match work {
        Work::Push(data) => push(mode, exchange, data, readings),
        Work::Finish => finish(mode, exchange, true, readings),
    }
}

/// A rewrite waiting for a slot of the layer's
/// [`BlockingLimit`](crate::settings::BlockingLimit), then on the blocking pool:
/// gives the mode back with the output.
#[cfg(feature = "tokio")]
pub(crate) enum Task {
    Waiting {
        waiting: crate::blocking::Waiting,
        runtime: tokio::runtime::Handle,
        job: Option<(Mode, Arc<Exchange>, Work, Readings)>,
    },
    Running(crate::blocking::Running<(Mode, Vec<u8>)>),
}
/// Without tokio nothing is offloaded.
#[cfg(not(feature = "tokio"))]
pub(crate) type Task = std::future::Pending<(Mode, Vec<u8>)>;

/// Takes `work` to the blocking pool when it costs
/// [`OFFLOAD_BYTES`](super::OFFLOAD_BYTES) or more ([`cost`]), or when it
/// meets a near tie whose exact counts would take it there, and a runtime
/// is there; `Err` gives the work back to do here, with the readings
/// measuring (and rendering) it made.
pub(crate) fn spawn(
    mode: &mut Mode,
    exchange: Option<&Arc<Exchange>>,
    work: Work,
) -> Result<Task, (Work, Readings)> {
    #[cfg(feature = "tokio")]
    {
        let runtime = tokio::runtime::Handle::try_current();
        if let (Ok(runtime), Some(exchange)) = (runtime, exchange) {
            let (cost, mut readings) = cost(mode, exchange, &work);
            // Here, with what is left below the threshold for the exact
            // counts of near ties, if any come.
            let here = super::OFFLOAD_BYTES.checked_sub(cost);
            if here.is_none_or(|here| exchange.prepare(&mut readings, here)) {
                let mode = std::mem::replace(mode, Mode::Away);
                return Ok(Task::Waiting {
                    waiting: exchange.config.limit.slot(),
                    runtime,
                    job: Some((mode, exchange.clone(), work, readings)),
                });
            }
            return Err((work, readings));
        }
    }
    #[cfg(not(feature = "tokio"))]
    let _ = (mode, exchange);
    Err((work, Readings::new()))
}

/// The work [`run`] will do, in bytes parsed or written, or at least
/// [`OFFLOAD_BYTES`](super::OFFLOAD_BYTES) once it is known to reach it:
/// what rewriting the messages it completes costs
/// ([`Session::measure`]), not the bytes it is given; and the readings of
/// those messages, in order, which their rewrites go on from. Holding a chunk
/// of a JSON answer is a copy, no work; the answer's end rewrites it, and
/// each event a chunk completes is rewritten. A small answer nested deep
/// writes a large TOON text, and leaves the async workers as a large one
/// does; a large answer nobody waits for is passed on here.
#[cfg(feature = "tokio")]
fn cost(mode: &Mode, exchange: &Exchange, work: &Work) -> (usize, Readings) {
    let enough = super::OFFLOAD_BYTES;
    let mut readings = Readings::new();
    match (mode, work) {
        (Mode::Json { held, passing }, Work::Finish) if !*passing => {
            let Ok(text) = std::str::from_utf8(held.as_slice()) else {
                return (0, readings);
            };
            let measured = exchange.measure(text, enough);
            let work = measured.work;
            readings.push_back(measured);
            (work, readings)
        }
        (Mode::Events(splitter), work) => {
            let size = match work {
                Work::Push(data) => data.len().saturating_add(splitter.held()),
                Work::Finish => splitter.held(),
            };
            if size >= enough {
                return (size, readings);
            }
            // The events it completes, found by a copy of the splitter
            // (less than `enough` bytes): each is measured, none rewritten.
            let mut dry = splitter.clone();
            let mut total = size;
            let mut measure = |event: &[u8]| {
                super::sse::rewrite_event(event, |data| {
                    let measured = exchange.measure(data, enough);
                    total = total.saturating_add(measured.work);
                    readings.push_back(measured);
                    None
                })
            };
            let mut out = Vec::new();
            match work {
                Work::Push(data) => dry.feed(data, &mut out, &mut measure),
                Work::Finish => dry.finish(&mut out, &mut measure),
            }
            (total, readings)
        }
        _ => (0, readings),
    }
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
                let Some((mut mode, exchange, work, mut readings)) = job.take() else {
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
                    let out = run(&mut mode, Some(&exchange), work, &mut readings);
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

/// `job` on the blocking pool of the current runtime, holding a slot of
/// `limit` while it runs: `Err(())` when no slot freed within the limit's
/// wait (counted in [`BlockingLimit::busy`](crate::settings::BlockingLimit::busy)),
/// `Ok(None)` when the job panicked. Dropped before a thread picks it up
/// (the reader has gone), the job never starts.
#[cfg(feature = "tokio")]
async fn under_limit<T: Send + 'static>(
    limit: &crate::blocking::BlockingLimit,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<Option<T>, ()> {
    let mut waiting = limit.slot();
    let slot = std::future::poll_fn(|cx| waiting.poll(cx))
        .await
        .ok_or(())?;
    let mut running = slot.spawn(&tokio::runtime::Handle::current(), move |_| job());
    Ok(std::future::poll_fn(|cx| running.poll(cx)).await)
}

#[cfg(feature = "tokio")]
impl Session {
    /// [`server_message`](Self::server_message) for a transport that reads
    /// whole messages inside a tokio runtime: a message whose rewrite costs
    /// [`OFFLOAD_BYTES`](super::OFFLOAD_BYTES) or more (its size, or the
    /// TOON a small answer nested deep writes, or its exact counts, or a
    /// near tie's exact counts past what is left below the threshold) is
    /// read on the blocking pool, once a slot of the layer's
    /// [`BlockingLimit`](crate::settings::BlockingLimit) is free, as the HTTP
    /// transport's answers are. When none frees within the limit's wait,
    /// `None`: the message goes to the client as the server wrote it.
    ///
    /// ```
    /// use tower_terse::mcp::{McpLayer, Session};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let session = Session::new(&McpLayer::new());
    /// let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    /// // No call waits for this answer: it goes as it came.
    /// assert_eq!(session.server_message_offloaded(answer).await, None);
    /// # }
    /// ```
    pub async fn server_message_offloaded(&self, text: &str) -> Option<String> {
        let mut measured = self.measure(text, super::OFFLOAD_BYTES);
        // Here, with what is left below the threshold for the exact counts
        // of near ties; a tie that needs more is counted on the pool.
        if let Some(mut here) = super::OFFLOAD_BYTES.checked_sub(measured.work) {
            if !self.prepare(&mut measured, &mut here) {
                return self.server_message_measured(text, measured);
            }
        }
        let session = self.clone();
        let text = text.to_owned();
        under_limit(self.limit(), move || {
            session.server_message_measured(&text, measured)
        })
        .await
        .ok()
        .flatten()
        .flatten()
    }

    /// [`client_message`](Self::client_message) as
    /// [`server_message_offloaded`](Self::server_message_offloaded) reads
    /// the server's (reading a request renders nothing: its work is its
    /// size, parsed and written again), but never passed over: when no slot frees in time the
    /// message is read here, on the async worker (it is at most
    /// [`max_request_bytes`](super::McpLayer::max_request_bytes), the
    /// work the HTTP transport does inline), since what reading it does
    /// (the call's `format` argument removed, a cancellation noted) must
    /// not be skipped.
    ///
    /// ```
    /// use tower_terse::mcp::{McpLayer, Session};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let session = Session::new(&McpLayer::new().format_argument(true));
    /// let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"format":"toon"}}}"#;
    /// let sent = session.client_message_offloaded(call).await.expect("format removed");
    /// assert!(!sent.contains("format"));
    /// # }
    /// ```
    pub async fn client_message_offloaded(&self, text: &str) -> Option<String> {
        if text.len() < super::OFFLOAD_BYTES {
            return self.client_message(text);
        }
        let session = self.clone();
        let owned = text.to_owned();
        match under_limit(self.limit(), move || session.client_message(&owned)).await {
            Ok(read) => read.flatten(),
            Err(()) => self.client_message(text),
        }
    }
}

#[cfg(all(test, feature = "tokio"))]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::super::{McpLayer, OFFLOAD_BYTES, Session};
    use crate::blocking::BlockingLimit;
    use crate::format::Format;

    /// A call's answer whose text block, a list of records, is larger
    /// than [`OFFLOAD_BYTES`] and cheaper as TOON.
    fn large_answer(id: u64) -> String {
        let rows: Vec<_> = (0..2_000)
            .map(|i| json!({"id": i, "name": format!("user {i}"), "active": i % 2 == 0}))
            .collect();
        let text = serde_json::to_string(&rows).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}});
        let answer = answer.to_string();
        assert!(answer.len() > OFFLOAD_BYTES);
        answer
    }

    fn call(id: u64, padding: usize) -> String {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "users", "arguments": {"format": "toon", "note": "x".repeat(padding)}}})
        .to_string()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn whole_messages_take_a_slot_of_the_limit_or_pass() {
        let limit = BlockingLimit::new(1).with_wait(Duration::from_millis(20));
        let layer = McpLayer::new()
            .default_format(Format::Toon)
            .format_argument(true)
            .blocking_limit(limit.clone());
        let session = Session::new(&layer);
        for id in [1, 2] {
            session.client_message_offloaded(&call(id, 0)).await;
        }

        // The only slot taken: past the wait the answer goes as it came.
        let held = limit.try_slot().expect("a free slot");
        assert_eq!(
            session.server_message_offloaded(&large_answer(1)).await,
            None
        );
        assert_eq!(limit.busy(), 1);
        // A client's message is read all the same, here: its `format`
        // argument never reaches the server.
        let sent = session
            .client_message_offloaded(&call(3, OFFLOAD_BYTES))
            .await
            .expect("the format argument removed");
        assert!(!sent.contains(r#""format""#), "{}", &sent[..200]);
        assert_eq!(limit.busy(), 2);
        drop(held);

        // A free slot: the answer is rewritten on the blocking pool.
        let rewritten = session
            .server_message_offloaded(&large_answer(2))
            .await
            .expect("a TOON result");
        assert!(
            rewritten.contains("[2000]{id,name,active}:"),
            "{}",
            &rewritten[..200]
        );
        assert_eq!(limit.available(), 1);
        assert_eq!(limit.busy(), 2);
    }
}
