//! Compile-time errors of `#[derive(CompactLine)]`, checked against the
//! expected compiler output in `tests/ui/*.stderr`. Regenerate those with
//! `TRYBUILD=overwrite` after a deliberate message change, and read them.

#[test]
fn derive_ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_*.rs");
    cases.compile_fail("tests/ui/err_*.rs");
}
