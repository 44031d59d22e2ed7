//! Criterion's own samples, kept so a bench can print the ratio of two
//! measurements after the run.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::Duration;

thread_local! {
    /// Total time and iterations per benchmark id.
    static TIMES: RefCell<BTreeMap<String, (Duration, u64)>> = RefCell::default();
}

/// Adds one `iter_custom` sample of `id`.
pub fn record(id: &str, elapsed: Duration, iters: u64) {
    TIMES.with(|times| {
        let mut times = times.borrow_mut();
        let entry = times.entry(id.to_owned()).or_default();
        entry.0 += elapsed;
        entry.1 += iters;
    });
}

/// Mean nanoseconds per iteration of `id` over its samples; `None` when it
/// did not run (a filter on the command line left it out).
pub fn mean_ns(id: &str) -> Option<f64> {
    TIMES.with(|times| {
        let (total, iters) = *times.borrow().get(id)?;
        (iters > 0).then(|| total.as_nanos() as f64 / iters as f64)
    })
}

/// The mean nanoseconds of two benchmarks measured in the same run, when
/// both ran.
pub fn mean_pair_ns(a: &str, b: &str) -> Option<(f64, f64)> {
    Some((mean_ns(a)?, mean_ns(b)?))
}
