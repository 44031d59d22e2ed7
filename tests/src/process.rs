//! One lock for the tests that share a process with tests measuring it.
//!
//! A test binary runs its tests on parallel threads. A test that measures
//! the whole process (its CPU time, its resident memory, the latency its
//! bystanders see) or reads a process-wide recorder must not run beside
//! any other: it takes [`PROCESS`] for writing. Every other test of that
//! binary takes it for reading, so that it runs beside its peers but never
//! beside a measurement.

/// The process's lock: written by the tests that measure or install
/// process-wide state, read by every other test of their binary.
///
/// Async tests `.await` it; plain `#[test]`s, which run outside any
/// runtime, use `blocking_write` / `blocking_read`.
pub static PROCESS: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());
