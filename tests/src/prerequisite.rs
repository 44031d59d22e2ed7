//! What a test does when the checkout lacks something it needs (the TOON
//! fixtures, Node.js and npm, the npm registry).
//!
//! One rule for every such test: on a developer's machine it prints one
//! line that says what is missing and how to provide it, and passes without
//! checking anything; under `CI=true` (which `.ci/run` sets) the same miss
//! fails the test, so CI never passes without running the check.

use std::io::Write;

/// Whether the tests run under CI (`CI` is `true` or `1`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}

/// Reports a missing prerequisite: panics under CI, otherwise prints
/// `skipped: <what>` once on stderr, where `cargo test` shows it even for
/// a passing test, and returns so the caller can return early.
///
/// `what` says what is missing and how to provide it, on one line.
pub fn missing(what: &str) {
    if in_ci() {
        panic!("missing test prerequisite under CI: {what}");
    }
    // Straight to the process's stderr: the test harness captures `eprintln!`.
    let _ = writeln!(std::io::stderr(), "skipped: {what}");
}

/// `Some(value)` when `found` is `Ok`; otherwise reports the error as a
/// missing prerequisite (see [`missing`]) and gives `None`.
///
/// ```
/// let found: Result<u8, String> = Ok(1);
/// assert_eq!(terse_tests::prerequisite::require(found), Some(1));
/// ```
pub fn require<T>(found: Result<T, String>) -> Option<T> {
    match found {
        Ok(value) => Some(value),
        Err(what) => {
            missing(&what);
            None
        }
    }
}
