//! [`MemoryBudget`]: one bound on the bytes all rewrites in flight hold.
//!
//! Each rewrite holds its body, with what rendering it may take (counted
//! from the body before it starts), and then its output until the client
//! has taken it. `max_body_bytes` bounds one of them; a budget bounds the sum,
//! so 200 clients that ask for large rewrites and never read cannot make a
//! server hold 200 times that. A rewrite the budget cannot cover is not
//! started: the response streams through unchanged, and backpressure from
//! the client then bounds what is held for it.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often a refusal is logged at most; the refusals in between are
/// counted in the next line.
const LOG_INTERVAL: Duration = Duration::from_secs(10);

/// A shared bound on the bytes buffered for rewrites, shared by every clone
/// (and by every layer given the same budget: [`TerseLayer`](crate::TerseLayer)
/// and `McpLayer` (the `mcp` feature) alike).
///
/// ```
/// use tower_terse::MemoryBudget;
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
    refused: AtomicU64,
    /// When a refusal was last logged, and how many went unlogged since.
    log: Mutex<(Option<Instant>, u64)>,
}

impl fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.0.limit)
            .field("in_use", &self.in_use())
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
            refused: AtomicU64::new(0),
            log: Mutex::new((None, 0)),
        }))
    }

    /// The bound, in bytes.
    ///
    /// ```
    /// assert_eq!(tower_terse::MemoryBudget::new(1 << 20).limit(), 1 << 20);
    /// ```
    pub fn limit(&self) -> usize {
        self.0.limit
    }

    /// The bytes reserved now.
    pub fn in_use(&self) -> usize {
        self.0.used.load(Ordering::Relaxed)
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
    /// let budget = tower_terse::MemoryBudget::new(10);
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

    fn add(&self, bytes: usize) -> bool {
        let limit = self.0.limit;
        let added = self
            .0
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&sum| sum <= limit)
            })
            .is_ok();
        if !added {
            self.refuse(bytes);
        }
        added
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
    /// let budget = tower_terse::MemoryBudget::new(100);
    /// let mut held = budget.try_reserve(80).unwrap();
    /// held.resize(30);
    /// assert_eq!(budget.in_use(), 30);
    /// ```
    pub fn resize(&mut self, bytes: usize) {
        let used = &self.budget.0.used;
        if bytes > self.bytes {
            used.fetch_add(bytes - self.bytes, Ordering::AcqRel);
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

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn the_default_never_refuses() {
        let budget = MemoryBudget::default();
        let held = budget.try_reserve(usize::MAX / 2).unwrap();
        assert!(budget.try_reserve(usize::MAX / 4).is_some());
        drop(held);
    }
}
