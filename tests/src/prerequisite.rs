//! What a test does when the checkout lacks something it needs (the TOON
//! fixtures, Node.js and npm, Python with PyPI).
//!
//! Every test that needs such a thing is marked
//! `#[ignore = "needs <what>; run with --include-ignored (.ci/run does)"]`,
//! so a bare clone's `cargo test` lists it as ignored, never as passed.
//! Run on purpose (`cargo test -- --include-ignored`, as `.ci/run` does
//! under `CI=true`), a test whose prerequisite is missing fails with one
//! line that says what is missing and how to provide it: it never passes
//! without checking anything.

/// Whether the tests run under CI (`CI` is `true` or `1`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}

/// Reports a missing prerequisite by failing the test that needs it.
///
/// `what` says what is missing and how to provide it, on one line. The
/// function returns `()` rather than `!` so that callers written for an
/// early return keep compiling; it never returns.
pub fn missing(what: &str) {
    let context = if in_ci() { " under CI" } else { "" };
    panic!(
        "missing test prerequisite{context}: {what} (tests that need it are \
         #[ignore]d; leave out --include-ignored to skip them)"
    );
}

/// `Some(value)` when `found` is `Ok`; otherwise fails the test as a
/// missing prerequisite (see [`missing`]).
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
