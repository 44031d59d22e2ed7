//! [`MemoryBudget`]: one bound on the bytes all rewrites in flight hold.
//!
//! Each rewrite holds its body, with what rendering it may take (counted
//! from the body before it starts), and then its output until the client
//! has taken it. `max_body_bytes` bounds one of them; a budget bounds the sum,
//! so 200 clients that ask for large rewrites and never read cannot make a
//! server hold 200 times that. A rewrite the budget cannot cover is not
//! started: the response streams through unchanged, and backpressure from
//! the client then bounds what is held for it.
//!
//! [`BudgetSize`] is a budget's bound as a configuration file sets it
//! (`max_buffered_bytes`), checked against its range as it is read.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use serde::{Deserialize, Deserializer};

use crate::defaults::MEMORY_BUDGET_BYTES;
use crate::settings::in_range;

/// How often a refusal is logged at most; the refusals in between are
/// counted in the next line.
const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// A shared bound on the bytes buffered for rewrites, shared by every clone
/// (and by every layer given the same budget: [`TerseLayer`](crate::TerseLayer)
/// and `McpLayer` (the `mcp` feature) alike).
///
/// ```
/// use tower_terse::settings::MemoryBudget;
///
/// let budget = MemoryBudget::new(1000);
/// let mut held = budget.try_reserve(600).expect("room for 600 bytes");
/// assert!(budget.try_reserve(600).is_none(), "600 more would pass 1000");
/// assert!(held.try_grow(400));
/// assert_eq!(budget.in_use(), 1000);
/// drop(held);
/// assert_eq!((budget.in_use(), budget.refused()), (0, 1));
/// ```
#[derive(Clone)]
pub struct MemoryBudget(Arc<Inner>);

struct Inner {
    limit: usize,
    used: AtomicUsize,
    /// The most `used` has been.
    peak: AtomicUsize,
    refused: AtomicU64,
    /// When a refusal was last logged, and how many went unlogged since.
    log: Mutex<(Option<Instant>, u64)>,
    /// Holders of bytes that are kept only because there is room (the
    /// rewrite memo): asked to give bytes back before a reservation is
    /// refused, so that they never take a rewrite's place.
    yielding: Mutex<Vec<Weak<dyn Yield>>>,
}

/// Bytes held against a budget only while nothing else needs them: given
/// back on demand ([`MemoryBudget::yield_to_reservations`]).
pub(crate) trait Yield: Send + Sync {
    /// Gives back at least `bytes` if it holds that many (all it holds
    /// otherwise); returns how many it gave back.
    fn give_back(&self, bytes: usize) -> usize;
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.0.limit)
            .field("in_use", &self.in_use())
            .field("peak", &self.peak())
            .field("refused", &self.refused())
            .finish()
    }
}

impl Default for MemoryBudget {
    /// No bound: every reservation succeeds (and is still counted).
    fn default() -> Self {
        MemoryBudget::new(usize::MAX)
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Self {
        MemoryBudget(Arc::new(Inner {
            limit,
            used: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            log: Mutex::new((None, 0)),
            yielding: Mutex::new(Vec::new()),
        }))
    }

    /// The bound, in bytes.
    ///
    /// ```
    /// assert_eq!(tower_terse::settings::MemoryBudget::new(1 << 20).limit(), 1 << 20);
    /// ```
    pub fn limit(&self) -> usize {
        self.0.limit
    }

    /// The bytes reserved now.
    pub fn in_use(&self) -> usize {
        self.0.used.load(Ordering::Relaxed)
    }

    /// The most bytes reserved at once since the budget was made: what a
    /// load test compares with the memory the process took.
    ///
    /// ```
    /// let budget = tower_terse::settings::MemoryBudget::new(1000);
    /// let a = budget.try_reserve(300).unwrap();
    /// let b = budget.try_reserve(200).unwrap();
    /// drop((a, b));
    /// assert_eq!((budget.in_use(), budget.peak()), (0, 500));
    /// ```
    pub fn peak(&self) -> usize {
        self.0.peak.load(Ordering::Relaxed)
    }

    /// How many reservations were refused since the budget was made.
    pub fn refused(&self) -> u64 {
        self.0.refused.load(Ordering::Relaxed)
    }

    /// Reserves `bytes`, or `None` (counted and logged) when they would
    /// pass the bound. The bytes are given back when the [`Reservation`]
    /// drops.
    ///
    /// ```
    /// let budget = tower_terse::settings::MemoryBudget::new(10);
    /// assert!(budget.try_reserve(11).is_none());
    /// assert_eq!(budget.try_reserve(10).map(|r| r.bytes()), Some(10));
    /// ```
    pub fn try_reserve(&self, bytes: usize) -> Option<Reservation> {
        if self.add(bytes) {
            Some(Reservation {
                budget: self.clone(),
                bytes,
            })
        } else {
            None
        }
    }

    /// Reserves `bytes` only if they fit as things are: nothing is given
    /// back for them, and a `None` is neither counted nor logged. For bytes
    /// kept only while there is room (the rewrite memo).
    pub(crate) fn try_reserve_spare(&self, bytes: usize) -> Option<Reservation> {
        self.fits(bytes).then(|| Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// Registers `holder`, whose bytes give way to every other reservation:
    /// a reservation that does not fit asks it to give bytes back first.
    pub(crate) fn yield_to_reservations(&self, holder: Weak<dyn Yield>) {
        let mut yielding = self
            .0
            .yielding
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        yielding.retain(|held| held.strong_count() > 0);
        yielding.push(holder);
    }

    fn add(&self, bytes: usize) -> bool {
        if self.fits(bytes) {
            return true;
        }
        // What is kept only because there is room goes first: a few rounds,
        // as other reservations may take what was given back meanwhile.
        for _ in 0..4 {
            let short = self
                .in_use()
                .saturating_add(bytes)
                .saturating_sub(self.0.limit);
            if self.give_back(short.max(1)) == 0 {
                break;
            }
            if self.fits(bytes) {
                return true;
            }
        }
        self.refuse(bytes);
        false
    }

    /// Asks every yielding holder for `bytes`; how many came back.
    fn give_back(&self, bytes: usize) -> usize {
        let holders: Vec<Arc<dyn Yield>> = {
            let yielding = self
                .0
                .yielding
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            yielding.iter().filter_map(Weak::upgrade).collect()
        };
        let mut given = 0;
        for holder in holders {
            if given >= bytes {
                break;
            }
            given += holder.give_back(bytes - given);
        }
        given
    }

    /// Adds `bytes` to what is used if they fit under the bound.
    fn fits(&self, bytes: usize) -> bool {
        let limit = self.0.limit;
        let added = self
            .0
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&sum| sum <= limit)
            });
        match added {
            Ok(before) => {
                self.reached(before.saturating_add(bytes));
                true
            }
            Err(_) => false,
        }
    }

    /// Notes that `used` reached `now`.
    fn reached(&self, now: usize) {
        self.0.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn refuse(&self, bytes: usize) {
        self.0.refused.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "metrics")]
        metrics::counter!("terse_budget_refusals_total").increment(1);
        let now = Instant::now();
        let mut log = self.0.log.lock().unwrap_or_else(PoisonError::into_inner);
        log.1 += 1;
        if log
            .0
            .is_none_or(|at| now.saturating_duration_since(at) >= LOG_INTERVAL)
        {
            tracing::warn!(
                target: "tower_terse",
                "memory budget of {} bytes full ({} in use): {} rewrite(s) not started since the last line, {bytes} bytes asked; streaming unchanged",
                self.0.limit,
                self.in_use(),
                log.1,
            );
            *log = (Some(now), 0);
        }
    }
}

/// Bytes held against a [`MemoryBudget`], given back on drop.
#[derive(Debug)]
pub struct Reservation {
    budget: MemoryBudget,
    bytes: usize,
}

impl Reservation {
    /// The bytes reserved.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Reserves `more` bytes as well; `false` (counted and logged) when
    /// they would pass the bound, leaving the reservation as it was.
    pub fn try_grow(&mut self, more: usize) -> bool {
        let grown = self.budget.add(more);
        if grown {
            self.bytes += more;
        }
        grown
    }

    /// Holds exactly `bytes` from now on: gives back what is above, or
    /// takes more even past the bound (for output that is already made).
    ///
    /// ```
    /// let budget = tower_terse::settings::MemoryBudget::new(100);
    /// let mut held = budget.try_reserve(80).unwrap();
    /// held.resize(30);
    /// assert_eq!(budget.in_use(), 30);
    /// ```
    pub fn resize(&mut self, bytes: usize) {
        let used = &self.budget.0.used;
        if bytes > self.bytes {
            let more = bytes - self.bytes;
            let before = used.fetch_add(more, Ordering::AcqRel);
            self.budget.reached(before.saturating_add(more));
        } else {
            used.fetch_sub(self.bytes - bytes, Ordering::AcqRel);
        }
        self.bytes = bytes;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.0.used.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// The bound of a [`MemoryBudget`] as a configuration file sets it (the
/// `max_buffered_bytes` key of `terse gateway`'s and `terse mcp`'s file):
/// from [`MIN`](Self::MIN), 1 MiB, to [`MAX`](Self::MAX), 64 GiB on a
/// 64-bit target. Below 1 MiB no rewrite of a useful size starts; past
/// 64 GiB a typo of a few digits would not bound anything.
///
/// It deserializes from a number and refuses one out of range, naming the
/// range, so a configuration file's error is placed at the value. Its
/// default is [`defaults::MEMORY_BUDGET_BYTES`](crate::defaults::MEMORY_BUDGET_BYTES).
///
/// ```
/// use tower_terse::settings::{BudgetSize, MemoryBudget};
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Gateway {
///     #[serde(default)]
///     max_buffered_bytes: BudgetSize,
/// }
///
/// let gateway: Gateway = serde_json::from_str(r#"{"max_buffered_bytes": 16777216}"#)?;
/// let budget = MemoryBudget::from(gateway.max_buffered_bytes);
/// assert_eq!(budget.limit(), 16 << 20);
///
/// let unset: Gateway = serde_json::from_str("{}")?;
/// assert_eq!(unset.max_buffered_bytes.get(), tower_terse::defaults::MEMORY_BUDGET_BYTES);
///
/// let err = serde_json::from_str::<Gateway>(r#"{"max_buffered_bytes": 1000}"#).unwrap_err();
/// assert!(err.to_string().starts_with("`max_buffered_bytes` must be between 1048576 and "));
/// assert_eq!(BudgetSize::new(1000), None);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BudgetSize(usize);

impl BudgetSize {
    /// The smallest bound: 1 MiB.
    pub const MIN: BudgetSize = BudgetSize(1 << 20);

    /// The largest bound: 64 GiB on a 64-bit target, all of the address
    /// space on a smaller one.
    pub const MAX: BudgetSize = BudgetSize(if usize::BITS >= 64 {
        1 << (usize::BITS - 28)
    } else {
        usize::MAX
    });

    /// A bound of `bytes`, or `None` outside [`MIN`](Self::MIN)..=[`MAX`](Self::MAX).
    ///
    /// ```
    /// use tower_terse::settings::BudgetSize;
    ///
    /// assert_eq!(BudgetSize::new(1 << 20), Some(BudgetSize::MIN));
    /// assert_eq!(BudgetSize::new((1 << 20) - 1), None);
    /// ```
    pub const fn new(bytes: usize) -> Option<BudgetSize> {
        if bytes >= Self::MIN.0 && bytes <= Self::MAX.0 {
            Some(BudgetSize(bytes))
        } else {
            None
        }
    }

    /// The bound, in bytes.
    ///
    /// ```
    /// assert_eq!(tower_terse::settings::BudgetSize::MIN.get(), 1 << 20);
    /// ```
    pub const fn get(self) -> usize {
        self.0
    }
}

impl Default for BudgetSize {
    /// [`defaults::MEMORY_BUDGET_BYTES`](crate::defaults::MEMORY_BUDGET_BYTES), 256 MiB.
    fn default() -> Self {
        BudgetSize(MEMORY_BUDGET_BYTES)
    }
}

impl<'de> Deserialize<'de> for BudgetSize {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        // The key is named: this is the one key a file sets a budget with,
        // and the other range errors name theirs.
        in_range(de, "max_buffered_bytes", Self::MIN.0..=Self::MAX.0).map(BudgetSize)
    }
}

impl From<BudgetSize> for MemoryBudget {
    /// A budget of `size` bytes.
    fn from(size: BudgetSize) -> Self {
        MemoryBudget::new(size.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_size_holds_its_range_and_no_more() {
        let (min, max) = (BudgetSize::MIN.get(), BudgetSize::MAX.get());
        assert_eq!(min, 1 << 20);
        if usize::BITS >= 64 {
            assert_eq!(max as u64, 64 << 30);
        }
        for bytes in [min, min + 1, MEMORY_BUDGET_BYTES, max - 1, max] {
            assert_eq!(BudgetSize::new(bytes).map(BudgetSize::get), Some(bytes));
            let read: BudgetSize = serde_json::from_str(&bytes.to_string()).unwrap();
            assert_eq!(MemoryBudget::from(read).limit(), bytes);
        }
        for bytes in [0, 1, min - 1] {
            assert_eq!(BudgetSize::new(bytes), None);
        }
        if let Some(past) = max.checked_add(1) {
            assert_eq!(BudgetSize::new(past), None);
        }
        assert_eq!(BudgetSize::default().get(), 256 << 20);
    }

    #[test]
    fn a_budget_size_out_of_range_names_the_range() {
        let message = format!(
            "`max_buffered_bytes` must be between 1048576 and {}, not 1048575",
            BudgetSize::MAX.get()
        );
        let err = serde_json::from_str::<BudgetSize>("1048575").unwrap_err();
        assert!(err.to_string().starts_with(&message), "{err}");
        for wrong in ["-1", "\"1MiB\"", "1.5", "18446744073709551616"] {
            assert!(
                serde_json::from_str::<BudgetSize>(wrong).is_err(),
                "{wrong}"
            );
        }
    }

    #[test]
    fn refusals_leave_the_budget_as_it_was() {
        let budget = MemoryBudget::new(100);
        let mut a = budget.try_reserve(60).unwrap();
        assert!(!a.try_grow(41));
        assert_eq!(a.bytes(), 60);
        assert!(budget.try_reserve(usize::MAX).is_none());
        assert_eq!(budget.in_use(), 60);
        assert_eq!(budget.refused(), 2);
        a.resize(150);
        assert_eq!(budget.in_use(), 150);
        drop(a);
        assert_eq!(budget.in_use(), 0);
        assert_eq!(budget.peak(), 150, "a resize past the bound is counted");
    }

    /// A body streamed in frames of 16 KiB that share one buffer (the
    /// handler allocates nothing per frame), with no declared length.
    struct Rows(bytes::Bytes);

    impl http_body::Body for Rows {
        type Data = bytes::Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Self::Error>>> {
            let take = self.0.len().min(16 << 10);
            let frame = (take > 0).then(|| Ok(http_body::Frame::data(self.0.split_to(take))));
            std::task::Poll::Ready(frame)
        }
    }

    /// Every rewrite through the layer, from the first frame read to the
    /// last frame sent, holds no more than it reserved: the body as read,
    /// what rendering it takes, the output. Measured with the counting
    /// allocator of the rendering tests, on this thread (a current-thread
    /// runtime, nothing offloaded), so the other tests do not count.
    #[test]
    fn a_rewrite_holds_no_more_than_it_reserved() {
        use http_body_util::BodyExt;
        use tower::{Layer, ServiceExt};

        let rows: Vec<String> = (0..20_000)
            .map(|i| {
                let active = i % 2 == 0;
                format!(r#"{{"id":{i},"name":"user {i:08}","active":{active},"tags":"a b"}}"#)
            })
            .collect();
        let body = bytes::Bytes::from(format!("[{}]", rows.join(",")));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        for uri in [
            "/?format=toon",
            "/?format=json&fields=id,name",
            "/?format=toon&fields=id,tags",
        ] {
            let budget = MemoryBudget::new(1 << 30);
            let handler = {
                let body = body.clone();
                tower::service_fn(move |_: http::Request<crate::TerseRequestBody<String>>| {
                    let body = Rows(body.clone());
                    async move {
                        let response = http::Response::builder()
                            .header("content-type", "application/json")
                            .body(body)
                            .expect("response");
                        Ok::<_, std::convert::Infallible>(response)
                    }
                })
            };
            let service = crate::TerseLayer::new()
                .max_body_bytes(body.len() * 2)
                .memory_budget(budget.clone())
                .offload_threshold(usize::MAX)
                .layer(handler);
            let request = http::Request::get(uri)
                .body(String::new())
                .expect("request");
            let mut sent = 0;
            let peak = crate::render::peak_of(|| {
                runtime.block_on(async {
                    let response = service.oneshot(request).await.expect("response");
                    let mut body = response.into_body();
                    while let Some(frame) = body.frame().await {
                        sent += frame.expect("frame").into_data().map_or(0, |d| d.len());
                    }
                });
            });
            assert!(sent > 0 && sent < body.len(), "{uri}: rewritten");
            assert_eq!(budget.refused(), 0, "{uri}");
            assert_eq!(budget.in_use(), 0, "{uri}: all given back");
            // What a request takes whatever its body: its head, the plan,
            // the response's headers, the runtime's task.
            const PER_REQUEST: usize = 16 << 10;
            assert!(
                peak <= budget.peak() + PER_REQUEST,
                "{uri}: {peak} bytes held at the most, {} reserved",
                budget.peak()
            );
            // Nor far more: a bound several times what a rewrite takes
            // would refuse rewrites the memory could hold.
            assert!(
                budget.peak() <= 4 * peak,
                "{uri}: {} reserved for {peak} bytes held",
                budget.peak()
            );
        }
    }

    #[test]
    fn the_default_never_refuses() {
        let budget = MemoryBudget::default();
        let held = budget.try_reserve(usize::MAX / 2).unwrap();
        assert!(budget.try_reserve(usize::MAX / 4).is_some());
        drop(held);
    }
}
