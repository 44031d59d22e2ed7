//! What one client connection is doing, and the watchdog that closes it
//! when it stalls.
//!
//! hyper can bound the wait for an HTTP/1.1 request head (with a timer
//! set, registered and dropped for every request), but not the wait for
//! the first byte (hyper-util's auto server reads the first bytes to
//! choose the protocol with no deadline), not an HTTP/2 preface that never
//! completes, not a keep-alive connection that never sends another request,
//! and not a client that stops reading. The watchdog bounds them all, the
//! HTTP/1.1 request heads after the first too (hyper's timer is off). A
//! thin wrapper around the socket
//! ([`Watched`]) and around each response body ([`Tracked`]) records
//! progress in [`Activity`]; [`watchdog`] compares it with the deadlines
//! and says why the connection should end.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use bytes::Buf;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

/// How many bytes a response body hands over before its task yields.
const YIELD_BYTES: usize = 256 * 1024;

/// No time recorded.
const NEVER: u64 = u64::MAX;

/// The HTTP/2 client preface, then a SETTINGS frame's 9-byte header.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const FRAME_HEADER: usize = 9;
const SETTINGS: u8 = 0x4;

/// The deadlines of one connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadlines {
    /// From accept to the first request head or the HTTP/2 preface and
    /// SETTINGS.
    pub(crate) handshake: Duration,
    /// With no request in flight.
    pub(crate) idle: Duration,
    /// A client that takes no bytes.
    pub(crate) send: Duration,
}

/// Why the watchdog ends a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stall {
    /// No request head (or HTTP/2 handshake) in time: closed.
    Handshake,
    /// HTTP/1.1: no next request head in time after the last answer (or
    /// only part of one): closed, as hyper's own header timer would.
    Head,
    /// No request for the idle timeout: shut down gracefully (GOAWAY).
    Idle,
    /// The client accepted no bytes for the send timeout: closed.
    Send,
}

/// Progress of one connection, in milliseconds since accept.
#[derive(Debug)]
pub(crate) struct Activity {
    accepted: Instant,
    handshake_done: AtomicBool,
    /// The client speaks HTTP/1 (its first bytes are no HTTP/2 preface).
    http1: AtomicBool,
    in_flight: AtomicUsize,
    /// When a request last started or ended.
    last_request: AtomicU64,
    /// Since when the socket refuses writes, or `NEVER`.
    write_blocked: AtomicU64,
    /// Response bodies that handed a frame to the server (or were just
    /// created) and have not been asked for the next one yet.
    bodies_owed: AtomicUsize,
    /// When a response body was last asked for a frame.
    last_body_poll: AtomicU64,
}

impl Activity {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Activity {
            accepted: Instant::now(),
            handshake_done: AtomicBool::new(false),
            http1: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            last_request: AtomicU64::new(0),
            write_blocked: AtomicU64::new(NEVER),
            bodies_owed: AtomicUsize::new(0),
            last_body_poll: AtomicU64::new(0),
        })
    }

    fn now(&self) -> u64 {
        u64::try_from(self.accepted.elapsed().as_millis()).unwrap_or(NEVER - 1)
    }

    /// A request arrived: its head is complete. The guard marks its end.
    pub(crate) fn request(self: &Arc<Self>) -> InFlight {
        self.handshake_done.store(true, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.last_request.store(self.now(), Ordering::Relaxed);
        InFlight(self.clone())
    }

    /// Whether a request head (or the HTTP/2 handshake) has arrived.
    pub(crate) fn handshake_done(&self) -> bool {
        self.handshake_done.load(Ordering::Relaxed)
    }

    /// Since when nothing has been in flight: since accept before the first
    /// request, since the last answer after it; `None` while a request is
    /// in flight.
    pub(crate) fn idle_since(&self) -> Option<Instant> {
        if !self.handshake_done() {
            return Some(self.accepted);
        }
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return None;
        }
        let ms = self.last_request.load(Ordering::Relaxed);
        Some(self.accepted + Duration::from_millis(ms))
    }

    /// The stall at `now` (ms since accept), or how long until the next
    /// deadline could pass.
    fn check(&self, deadlines: &Deadlines) -> Result<Duration, Stall> {
        let now = self.now();
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(NEVER / 2);
        let mut next = NEVER;
        let mut due = |since: u64, timeout: Duration, stall: Stall| {
            let at = since.saturating_add(ms(timeout));
            if now >= at {
                return Err(stall);
            }
            next = next.min(at - now);
            Ok(())
        };
        let blocked = self.write_blocked.load(Ordering::Relaxed);
        if blocked != NEVER {
            due(blocked, deadlines.send, Stall::Send)?;
        }
        if !self.handshake_done.load(Ordering::Relaxed) {
            due(0, deadlines.handshake, Stall::Handshake)?;
        } else if self.in_flight.load(Ordering::Relaxed) == 0 {
            let since = self.last_request.load(Ordering::Relaxed);
            due(since, deadlines.idle, Stall::Idle)?;
            // HTTP/1.1 reads the next request head from the end of the last
            // answer: it is due within the handshake deadline too. hyper's
            // own header timer did this at the cost of a timer set,
            // registered and dropped for every request; it is off.
            if self.http1.load(Ordering::Relaxed) {
                due(since, deadlines.handshake, Stall::Head)?;
            }
        } else if self.bodies_owed.load(Ordering::Relaxed) > 0 {
            // HTTP/2 writes nothing to a stream whose window is closed, so
            // the socket never blocks: a body not asked for more counts.
            due(
                self.last_body_poll.load(Ordering::Relaxed),
                deadlines.send,
                Stall::Send,
            )?;
        }
        Ok(Duration::from_millis(next))
    }
}

/// One request in flight; its end when dropped.
#[derive(Debug)]
pub(crate) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.0.last_request.store(self.0.now(), Ordering::Relaxed);
    }
}

/// Completes with the reason to end the connection. Wakes at the next
/// deadline, and at least every `tick` since progress can move a deadline
/// closer (a write that starts to block).
pub(crate) async fn watchdog(activity: &Activity, deadlines: Deadlines) -> Stall {
    let tick = (deadlines.handshake.min(deadlines.idle).min(deadlines.send) / 4)
        .clamp(Duration::from_millis(10), Duration::from_secs(1));
    loop {
        match activity.check(&deadlines) {
            Err(stall) => return stall,
            Ok(wait) => tokio::time::sleep(wait.min(tick)).await,
        }
    }
}

/// `main` until it completes (`Ok`), or `side` (`Err`), which is polled
/// only when something it waits on has woken the task.
///
/// A connection's task is woken a few times a request, each time for its
/// connection; the futures beside it (the watchdog, the shutdown and the
/// shedding signals) wait on timers and signals that rarely fire, and
/// polling them on every wake cost more than polling the connection's
/// own wake-up. They are polled with a waker of their own, which marks
/// them woken before it wakes the task.
pub(crate) async fn beside<M: Future, S: Future>(
    mut main: Pin<&mut M>,
    mut side: Pin<&mut S>,
) -> Result<M::Output, S::Output> {
    // Woken at first: `side` has never been polled.
    let wake = Arc::new(SideWake {
        woken: AtomicBool::new(true),
        task: Mutex::new(None),
    });
    let waker = Waker::from(wake.clone());
    std::future::poll_fn(|cx| {
        if let Poll::Ready(out) = main.as_mut().poll(cx) {
            return Poll::Ready(Ok(out));
        }
        // The task to wake is known before the flag is read: a wake in
        // between finds it, and the flag set.
        wake.follow(cx.waker());
        if wake.woken.swap(false, Ordering::AcqRel) {
            if let Poll::Ready(out) = side.as_mut().poll(&mut Context::from_waker(&waker)) {
                return Poll::Ready(Err(out));
            }
        }
        Poll::Pending
    })
    .await
}

/// The waker of [`beside`]'s side future.
struct SideWake {
    woken: AtomicBool,
    task: Mutex<Option<Waker>>,
}

impl SideWake {
    /// Wakes `task` from now on (the same one, as a rule: nothing to do).
    fn follow(&self, task: &Waker) {
        let mut current = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if !current.as_ref().is_some_and(|known| known.will_wake(task)) {
            *current = Some(task.clone());
        }
    }
}

impl Wake for SideWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        let task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(task) = task.as_ref() {
            task.wake_by_ref();
        }
    }
}

pin_project! {
    /// A client socket that records reads and blocked writes in
    /// [`Activity`], and notices the HTTP/2 preface and first SETTINGS.
    pub(crate) struct Watched<IO> {
        #[pin]
        io: IO,
        activity: Arc<Activity>,
        // The first bytes, until the HTTP/2 handshake is recognised or ruled out.
        head: Vec<u8>,
        head_done: bool,
    }
}

impl<IO> Watched<IO> {
    pub(crate) fn new(io: IO, activity: Arc<Activity>) -> Self {
        Watched {
            io,
            activity,
            head: Vec::new(),
            head_done: false,
        }
    }
}

/// Whether `head` (the first bytes of a connection) may still be the
/// HTTP/2 preface: hyper-util's server speaks HTTP/1 otherwise.
fn h2_preface_so_far(head: &[u8]) -> bool {
    let n = head.len().min(PREFACE.len());
    head[..n] == PREFACE[..n]
}

/// Whether `head` (the first bytes of a connection) holds the HTTP/2
/// preface and a whole SETTINGS frame: `Some(true)`; not HTTP/2 or not a
/// SETTINGS frame first: `Some(false)`; more bytes needed: `None`.
fn h2_handshake(head: &[u8]) -> Option<bool> {
    let n = head.len().min(PREFACE.len());
    if head[..n] != PREFACE[..n] {
        return Some(false);
    }
    let frame = head.get(PREFACE.len()..PREFACE.len() + FRAME_HEADER)?;
    if frame[3] != SETTINGS {
        return Some(false);
    }
    let length = usize::from(frame[0]) << 16 | usize::from(frame[1]) << 8 | usize::from(frame[2]);
    (head.len() >= PREFACE.len() + FRAME_HEADER + length).then_some(true)
}

impl<IO: AsyncRead> AsyncRead for Watched<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let result = this.io.poll_read(cx, buf);
        if !*this.head_done && buf.filled().len() > before {
            // A SETTINGS frame is at most 9 + 6 * a few settings bytes; a
            // client padding it past 1 KiB is not waited for.
            let room = 1024usize.saturating_sub(this.head.len());
            let new = &buf.filled()[before..];
            this.head.extend_from_slice(&new[..new.len().min(room)]);
            if !h2_preface_so_far(this.head) {
                this.activity.http1.store(true, Ordering::Relaxed);
            }
            match h2_handshake(this.head) {
                Some(true) => {
                    this.activity.handshake_done.store(true, Ordering::Relaxed);
                    this.activity
                        .last_request
                        .store(this.activity.now(), Ordering::Relaxed);
                    *this.head_done = true;
                }
                Some(false) => *this.head_done = true,
                None if room == 0 => *this.head_done = true,
                None => {}
            }
            if *this.head_done {
                *this.head = Vec::new();
            }
        }
        result
    }
}

impl<IO> Watched<IO> {
    fn wrote<T>(activity: &Activity, result: &Poll<io::Result<T>>) {
        match result {
            Poll::Pending => {
                let _ = activity.write_blocked.compare_exchange(
                    NEVER,
                    activity.now(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            Poll::Ready(_) => activity.write_blocked.store(NEVER, Ordering::Relaxed),
        }
    }
}

impl<IO: AsyncWrite> AsyncWrite for Watched<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let result = this.io.poll_write(cx, buf);
        Self::wrote(this.activity, &result);
        result
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let result = this.io.poll_write_vectored(cx, bufs);
        Self::wrote(this.activity, &result);
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let result = this.io.poll_flush(cx);
        Self::wrote(this.activity, &result);
        result
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().io.poll_shutdown(cx)
    }
}

pin_project! {
    /// A response body that records in [`Activity`] whether the server
    /// still owes it a poll, and ends its request when dropped.
    pub(crate) struct Tracked<B> {
        #[pin]
        body: B,
        owed: bool,
        // Bytes handed over since this body last let its task yield.
        since_yield: usize,
        request: InFlight,
    }

    impl<B> PinnedDrop for Tracked<B> {
        fn drop(this: Pin<&mut Self>) {
            if this.owed {
                this.request.0.bodies_owed.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

impl<B> Tracked<B> {
    pub(crate) fn new(body: B, request: InFlight) -> Self {
        // A new body is owed its first poll, as soon as the client takes
        // the head (HTTP/2: as soon as the stream's window opens).
        request.0.bodies_owed.fetch_add(1, Ordering::Relaxed);
        request
            .0
            .last_body_poll
            .store(request.0.now(), Ordering::Relaxed);
        Tracked {
            body,
            owed: true,
            since_yield: 0,
            request,
        }
    }
}

impl<B: Body> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.project();
        let activity = &this.request.0;
        activity
            .last_body_poll
            .store(activity.now(), Ordering::Relaxed);
        if *this.owed {
            *this.owed = false;
            activity.bodies_owed.fetch_sub(1, Ordering::Relaxed);
        }
        // Decompressing an upstream's body and compressing it again for the
        // client is CPU work done inside this poll; to a fast reader a gzip
        // bomb would be one poll loop holding the worker for seconds. Every
        // `YIELD_BYTES` the task steps back so the others on it run.
        if *this.since_yield >= YIELD_BYTES {
            *this.since_yield = 0;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let frame = this.body.poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &frame {
            if let Some(data) = frame.data_ref() {
                *this.since_yield = this.since_yield.saturating_add(data.remaining());
            }
            if frame.data_ref().is_some_and(|d| d.has_remaining()) {
                *this.owed = true;
                activity.bodies_owed.fetch_add(1, Ordering::Relaxed);
            }
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_h2_handshake_is_the_preface_and_a_whole_settings_frame() {
        let mut head = PREFACE.to_vec();
        assert_eq!(h2_handshake(b"PRI * HTTP/2.0\r\n"), None);
        assert_eq!(h2_handshake(&head), None);
        head.extend_from_slice(&[0, 0, 6, SETTINGS, 0, 0, 0, 0, 0]);
        assert_eq!(h2_handshake(&head), None);
        head.extend_from_slice(&[0, 3, 0, 0, 0, 100]);
        assert_eq!(h2_handshake(&head), Some(true));
        assert_eq!(h2_handshake(b"GET / HTTP/1.1\r\n"), Some(false));
        let mut ping_first = PREFACE.to_vec();
        ping_first.extend_from_slice(&[0, 0, 8, 0x6, 0, 0, 0, 0, 0]);
        assert_eq!(h2_handshake(&ping_first), Some(false));
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_connection_misses_its_handshake_deadline() {
        let activity = Activity::new();
        let deadlines = Deadlines {
            handshake: Duration::from_secs(30),
            idle: Duration::from_secs(60),
            send: Duration::from_secs(60),
        };
        let started = Instant::now();
        assert_eq!(watchdog(&activity, deadlines).await, Stall::Handshake);
        assert!(started.elapsed() >= Duration::from_secs(30));
        assert!(started.elapsed() < Duration::from_secs(32));
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_without_requests_goes_idle() {
        let activity = Activity::new();
        let deadlines = Deadlines {
            handshake: Duration::from_secs(1),
            idle: Duration::from_secs(5),
            send: Duration::from_secs(60),
        };
        drop(activity.request());
        let started = Instant::now();
        assert_eq!(watchdog(&activity, deadlines).await, Stall::Idle);
        assert!(started.elapsed() >= Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn an_http1_connection_owes_its_next_head_within_the_handshake_deadline() {
        let deadlines = Deadlines {
            handshake: Duration::from_secs(2),
            idle: Duration::from_secs(5),
            send: Duration::from_secs(60),
        };
        let activity = Activity::new();
        activity.http1.store(true, Ordering::Relaxed);
        drop(activity.request());
        let started = Instant::now();
        assert_eq!(watchdog(&activity, deadlines).await, Stall::Head);
        assert!(started.elapsed() >= Duration::from_secs(2));
        assert!(started.elapsed() < Duration::from_secs(3));
        // A keep-alive timeout shorter than the head's still ends it first,
        // gracefully.
        let shorter = Deadlines {
            idle: Duration::from_secs(1),
            ..deadlines
        };
        assert_eq!(watchdog(&activity, shorter).await, Stall::Idle);
        // Not while a request is in flight.
        let in_flight = activity.request();
        let wait = tokio::time::timeout(Duration::from_secs(10), watchdog(&activity, deadlines));
        assert!(wait.await.is_err());
        drop(in_flight);
    }

    #[test]
    fn http1_is_told_by_first_bytes_that_are_no_h2_preface() {
        assert!(h2_preface_so_far(b""));
        assert!(h2_preface_so_far(b"PRI * HT"));
        assert!(h2_preface_so_far(PREFACE));
        let mut ping_first = PREFACE.to_vec();
        ping_first.extend_from_slice(&[0, 0, 8, 0x6]);
        assert!(h2_preface_so_far(&ping_first));
        assert!(!h2_preface_so_far(b"G"));
        assert!(!h2_preface_so_far(b"GET / HTTP/1.1\r\n"));
    }

    /// `n` ready frames of 64 KiB.
    struct Chunks(usize);

    impl Body for Chunks {
        type Data = bytes::Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<bytes::Bytes>, Self::Error>>> {
            if self.0 == 0 {
                return Poll::Ready(None);
            }
            self.0 -= 1;
            Poll::Ready(Some(Ok(Frame::data(bytes::Bytes::from(vec![
                b'x';
                64 * 1024
            ])))))
        }
    }

    #[tokio::test]
    async fn a_long_body_lets_its_task_yield_between_runs() {
        let mut body = std::pin::pin!(Tracked::new(Chunks(8), Activity::new().request()));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut outcomes = String::new();
        loop {
            match body.as_mut().poll_frame(&mut cx) {
                Poll::Ready(Some(Ok(_))) => outcomes.push('d'),
                Poll::Ready(_) => break,
                Poll::Pending => outcomes.push('y'),
            }
        }
        assert_eq!(outcomes, "ddddyddddy");
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_never_asked_for_more_misses_the_send_deadline() {
        let activity = Activity::new();
        let deadlines = Deadlines {
            handshake: Duration::from_secs(1),
            idle: Duration::from_secs(1),
            send: Duration::from_secs(3),
        };
        let body = Tracked::new(
            http_body_util::Empty::<bytes::Bytes>::new(),
            activity.request(),
        );
        assert_eq!(watchdog(&activity, deadlines).await, Stall::Send);
        drop(body);
        assert_eq!(activity.bodies_owed.load(Ordering::Relaxed), 0);
        assert_eq!(activity.in_flight.load(Ordering::Relaxed), 0);
    }

    /// A future that counts its polls and stays pending without asking to
    /// be woken.
    struct CountPolls<'a>(&'a AtomicUsize);

    impl Future for CountPolls<'_> {
        type Output = ();

        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn beside_polls_its_side_only_when_the_side_was_woken() {
        let polls = AtomicUsize::new(0);
        // The main future wakes the task five times before it ends.
        let main = async {
            for _ in 0..5 {
                tokio::task::yield_now().await;
            }
            7
        };
        let out = beside(std::pin::pin!(main), std::pin::pin!(CountPolls(&polls))).await;
        assert_eq!(out, Ok(7));
        // Once at first, never for the main future's own wake-ups.
        assert_eq!(polls.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn beside_ends_with_its_side_once_the_side_is_woken() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let main = std::future::pending::<()>();
        let sender = tokio::spawn(async move {
            tokio::task::yield_now().await;
            tx.send(3).expect("receiver alive");
        });
        let out = beside(std::pin::pin!(main), std::pin::pin!(rx)).await;
        assert_eq!(out, Err(Ok(3)));
        sender.await.expect("sender");
    }

    #[tokio::test(start_paused = true)]
    async fn beside_wakes_a_task_that_moved_to_another_waker() {
        // The side's timer fires after the main future has been polled
        // with a second waker: the side still ends it.
        let main = std::pin::pin!(std::future::pending::<()>());
        let side = std::pin::pin!(tokio::time::sleep(Duration::from_secs(5)));
        let mut both = std::pin::pin!(beside(main, side));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert!(both.as_mut().poll(&mut cx).is_pending());
        // Polled again by the runtime, with its own waker.
        assert_eq!(both.await, Err(()));
    }
}
