//! [`BlockingLimit`]: one bound on the CPU work running off the async
//! workers, shared by every layer given it.
//!
//! A rewrite that costs too much to run inside `poll` (encoding a large or
//! deeply nested body, counting it exactly, reading a body that inflates
//! as it is read) runs on tokio's blocking pool. That pool has hundreds of
//! threads: without a bound, a flood of costly requests would start
//! hundreds of rewrites at once, each holding memory and all of them
//! sharing the same few cores with the async workers. So each one takes a
//! slot first, and holds it until its work ends; a rewrite whose client
//! has gone stops at its next check (`cancelled`) and gives it back. A
//! rewrite that finds no slot waits [`BlockingLimit::wait`] for one; then
//! its body goes out unchanged, and [`BlockingLimit::busy`] (and
//! `terse_rewrites_busy_total` with the `metrics` feature) counts it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A shared bound on the rewrites running off the async workers at once,
/// and how long a rewrite waits for a slot. Clones share the slots and the
/// count of rewrites that found none. Give one to a
/// [`TerseLayer`](crate::TerseLayer) and an
/// `McpLayer` (the `mcp` feature) to bound them together.
///
/// ```
/// use std::time::Duration;
/// use tower_terse::settings::BlockingLimit;
///
/// let limit = BlockingLimit::new(4).with_wait(Duration::from_millis(250));
/// assert_eq!((limit.slots(), limit.wait()), (4, Duration::from_millis(250)));
/// assert_eq!(limit.busy(), 0);
/// ```
#[derive(Clone)]
pub struct BlockingLimit {
    shared: Arc<Shared>,
    wait: Duration,
}

struct Shared {
    slots: usize,
    busy: AtomicU64,
    #[cfg(feature = "tokio")]
    semaphore: Arc<tokio::sync::Semaphore>,
}

impl fmt::Debug for BlockingLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingLimit")
            .field("slots", &self.slots())
            .field("wait", &self.wait)
            .field("busy", &self.busy())
            .finish()
    }
}

impl Default for BlockingLimit {
    /// [`BlockingLimit::per_core`].
    fn default() -> Self {
        BlockingLimit::per_core()
    }
}

impl BlockingLimit {
    /// A limit of `slots` rewrites at once (at least one), waiting
    /// [`defaults::REWRITE_WAIT`](crate::defaults::REWRITE_WAIT) for a slot.
    pub fn new(slots: usize) -> Self {
        #[cfg(feature = "tokio")]
        let slots = slots.clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
        #[cfg(not(feature = "tokio"))]
        let slots = slots.max(1);
        BlockingLimit {
            shared: Arc::new(Shared {
                slots,
                busy: AtomicU64::new(0),
                #[cfg(feature = "tokio")]
                semaphore: Arc::new(tokio::sync::Semaphore::new(slots)),
            }),
            wait: crate::defaults::REWRITE_WAIT,
        }
    }

    /// One slot per core but one (and at least one): the work is CPU work,
    /// so more at once would not finish sooner, only hold more memory; and
    /// a core is left to the async workers, so a flood of costly rewrites
    /// never takes every core from the requests that cost nothing.
    ///
    /// ```
    /// assert!(tower_terse::settings::BlockingLimit::per_core().slots() >= 1);
    /// ```
    pub fn per_core() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Self::new(cores.saturating_sub(1).max(1))
    }

    /// Waits `wait` for a slot (zero: takes one only if free now). The
    /// limit returned shares the slots and the count with this one.
    ///
    /// ```
    /// use std::time::Duration;
    /// let limit = tower_terse::settings::BlockingLimit::new(2);
    /// let quick = limit.clone().with_wait(Duration::ZERO);
    /// assert_eq!(quick.wait(), Duration::ZERO);
    /// assert_eq!(limit.wait(), tower_terse::defaults::REWRITE_WAIT);
    /// ```
    pub fn with_wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// This limit with the `max_concurrent_rewrites` (a limit of its own,
    /// that many slots) and `max_rewrite_wait` of `settings` laid over
    /// it, where they are set.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower_terse::Settings;
    /// use tower_terse::settings::BlockingLimit;
    ///
    /// let settings: Settings = serde_json::from_str(r#"{"max_concurrent_rewrites": 3, "max_rewrite_wait": "50ms"}"#).unwrap();
    /// let limit = BlockingLimit::new(8).with_settings(&settings);
    /// assert_eq!((limit.slots(), limit.wait()), (3, Duration::from_millis(50)));
    /// ```
    pub fn with_settings(self, settings: &crate::settings::Settings) -> Self {
        let limit = match settings.max_concurrent_rewrites {
            Some(slots) => BlockingLimit::new(slots).with_wait(self.wait),
            None => self,
        };
        match settings.max_rewrite_wait {
            Some(wait) => limit.with_wait(wait),
            None => limit,
        }
    }

    /// How many rewrites may run at once.
    pub fn slots(&self) -> usize {
        self.shared.slots
    }

    /// How long a rewrite waits for a slot before its body goes out
    /// unchanged.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// How many rewrites found no slot in time and went out unchanged.
    pub fn busy(&self) -> u64 {
        self.shared.busy.load(Ordering::Relaxed)
    }

    /// The slots free now.
    ///
    /// ```
    /// assert_eq!(tower_terse::settings::BlockingLimit::new(3).available(), 3);
    /// ```
    pub fn available(&self) -> usize {
        #[cfg(feature = "tokio")]
        return self.shared.semaphore.available_permits();
        #[cfg(not(feature = "tokio"))]
        self.shared.slots
    }

    /// Counts a rewrite that found no slot (only a runtime's wait can fail).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn count_busy(&self) {
        self.shared.busy.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("terse_rewrites_busy_total").increment(1);
    }
}

/// Where [`BlockingLimit::off_the_workers`] ran its work.
#[derive(Debug, PartialEq, Eq)]
pub enum OffWorkers<T> {
    /// Run where the thread may block, holding a slot of the limit; what
    /// the work returned.
    Done(T),
    /// Every slot of the limit is taken: the work was not run. The caller
    /// lets the worker's other tasks run (wakes itself and returns
    /// `Pending`) before it tries again, or gives the work up.
    NoSlot,
    /// No tokio runtime that can hand its other tasks to another thread
    /// (none, or a current-thread one): the work was not run; the caller
    /// runs it in place.
    Here,
}

impl BlockingLimit {
    /// Runs `work` (CPU work found inside a `poll`: decoding frames that
    /// keep coming ready, a gzip bomb inflating) where it may block:
    /// inside [`tokio::task::block_in_place`], which hands this worker's
    /// other tasks to another thread first, holding a slot of this limit
    /// so that such work counts against the same bound as rewrites.
    /// Work already running under a slot on this thread (a body read off
    /// the workers whose inner body does work of its own) runs at once,
    /// under that slot.
    ///
    /// ```
    /// use tower_terse::{proxy::OffWorkers, settings::BlockingLimit};
    ///
    /// # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
    /// # async fn main() {
    /// let limit = BlockingLimit::new(1);
    /// assert_eq!(limit.off_the_workers(|| 6 * 7), OffWorkers::Done(42));
    /// // Inside, the slot is this work's: nested work runs under it.
    /// let nested = limit.off_the_workers(|| limit.off_the_workers(|| 1));
    /// assert_eq!(nested, OffWorkers::Done(OffWorkers::Done(1)));
    /// # }
    /// ```
    pub fn off_the_workers<T>(&self, work: impl FnOnce() -> T) -> OffWorkers<T> {
        #[cfg(feature = "tokio")]
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
                if run::holds_slot() {
                    return OffWorkers::Done(work());
                }
                let Some(slot) = self.try_slot() else {
                    return OffWorkers::NoSlot;
                };
                return OffWorkers::Done(tokio::task::block_in_place(|| slot.hold(work)));
            }
        }
        #[cfg(not(feature = "tokio"))]
        let _ = work;
        OffWorkers::Here
    }
}

#[cfg(feature = "tokio")]
pub(crate) use run::{Running, Waiting, cancelled};

/// Whether the client of the job running on this thread has gone: never,
/// without the blocking pool.
#[cfg(not(feature = "tokio"))]
pub(crate) fn cancelled() -> bool {
    false
}

#[cfg(feature = "tokio")]
mod run {
    use std::cell::{Cell, RefCell};
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::{Context, Poll, ready};

    use tokio::sync::{AcquireError, OwnedSemaphorePermit};

    use super::BlockingLimit;

    type Acquire = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>> + Send>>;

    /// A slot of the limit, given back when it drops.
    #[derive(Debug)]
    pub(crate) struct Slot {
        _permit: OwnedSemaphorePermit,
    }

    /// Waiting for a slot, up to the limit's wait.
    pub(crate) struct Waiting {
        limit: BlockingLimit,
        acquire: Option<Acquire>,
        /// The end of the wait; `None` once waited out.
        deadline: Option<futures_timer::Delay>,
    }

    impl BlockingLimit {
        /// A slot now, if one is free.
        pub(crate) fn try_slot(&self) -> Option<Slot> {
            self.shared
                .semaphore
                .clone()
                .try_acquire_owned()
                .ok()
                .map(|permit| Slot { _permit: permit })
        }

        /// Waits for a slot, up to [`BlockingLimit::wait`].
        pub(crate) fn slot(&self) -> Waiting {
            // Timed by futures-timer's one process-wide timer thread, not
            // tokio's time driver: a runtime built without the driver (or
            // an application whose tokio lacks the `time` feature) would
            // make `tokio::time::sleep` panic, and no public tokio API
            // tells whether the driver is there before calling it.
            Waiting {
                limit: self.clone(),
                acquire: Some(Box::pin(self.shared.semaphore.clone().acquire_owned())),
                deadline: Some(futures_timer::Delay::new(self.wait)),
            }
        }
    }

    impl Waiting {
        /// The slot, or `None` (counted) when the wait ran out first.
        pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Option<Slot>> {
            let Some(acquire) = &mut self.acquire else {
                return Poll::Ready(None);
            };
            if let Poll::Ready(permit) = acquire.as_mut().poll(cx) {
                // The semaphore is never closed.
                return Poll::Ready(permit.ok().map(|permit| Slot { _permit: permit }));
            }
            if let Some(deadline) = &mut self.deadline {
                ready!(Pin::new(deadline).poll(cx));
                // Out of the semaphore's queue now: a slot freed later goes
                // to a rewrite still waiting, not to this one, which has
                // already sent its body on unchanged.
                self.acquire = None;
                self.limit.count_busy();
                return Poll::Ready(None);
            }
            Poll::Pending
        }
    }

    thread_local! {
        /// Whether this thread runs work under a slot now (see
        /// [`Slot::hold`]).
        static HOLDING: Cell<bool> = const { Cell::new(false) };
        /// The flag of the job [`Slot::spawn`] runs on this thread: set
        /// when its client has gone.
        static CANCEL: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
    }

    /// Whether the client of the job running on this thread has gone
    /// (its [`Running`] dropped): long work checks it between chunks and
    /// stops early, which gives its slot back.
    pub(crate) fn cancelled() -> bool {
        CANCEL.with(|cancel| {
            cancel
                .borrow()
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::Acquire))
        })
    }

    /// Clears the thread's job flag when the job ends, even by a panic.
    struct Job;

    impl Drop for Job {
        fn drop(&mut self) {
            CANCEL.with(|cancel| cancel.borrow_mut().take());
        }
    }

    /// Whether work on this thread holds a slot now.
    pub(super) fn holds_slot() -> bool {
        HOLDING.with(Cell::get)
    }

    /// Clears the thread's mark when the work ends, even by a panic.
    struct Held(bool);

    impl Drop for Held {
        fn drop(&mut self) {
            HOLDING.with(|holding| holding.set(self.0));
        }
    }

    impl Slot {
        /// Runs `work` on this thread under this slot, marked so that work
        /// nested inside it does not wait for a second slot of its own.
        pub(super) fn hold<T>(self, work: impl FnOnce() -> T) -> T {
            let _restore = Held(HOLDING.with(|holding| holding.replace(true)));
            let done = work();
            drop(self);
            done
        }

        /// Runs `job` on the blocking pool of `runtime`, holding this slot
        /// until it returns. If the [`Running`] drops before a thread picks
        /// the job up (its client has gone), the job never starts; the flag
        /// `job` is given turns `true` then too, for long work to check
        /// (as [`cancelled`] does, on the job's thread).
        pub(crate) fn spawn<T: Send + 'static>(
            self,
            runtime: &tokio::runtime::Handle,
            job: impl FnOnce(&AtomicBool) -> T + Send + 'static,
        ) -> Running<T> {
            let cancelled = Arc::new(AtomicBool::new(false));
            let flag = cancelled.clone();
            let task = runtime.spawn_blocking(move || {
                CANCEL.with(|cancel| *cancel.borrow_mut() = Some(flag.clone()));
                let _job = Job;
                self.hold(|| (!flag.load(Ordering::Acquire)).then(|| job(&flag)))
            });
            Running { task, cancelled }
        }
    }

    /// A job on the blocking pool; dropping it cancels the job if it has
    /// not started.
    pub(crate) struct Running<T> {
        task: tokio::task::JoinHandle<Option<T>>,
        cancelled: Arc<AtomicBool>,
    }

    impl<T> Running<T> {
        /// What the job returned; `None` when it panicked (or the runtime
        /// is shutting down).
        pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let done = ready!(Pin::new(&mut self.task).poll(cx));
            Poll::Ready(done.ok().flatten())
        }
    }

    impl<T> Drop for Running<T> {
        fn drop(&mut self) {
            self.cancelled.store(true, Ordering::Release);
        }
    }
}

#[cfg(all(test, feature = "tokio"))]
#[path = "blocking_tests.rs"]
mod tests;
