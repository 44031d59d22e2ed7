//! `#[derive(CompactLine)]` for the `terse` crate. Use it through `terse`,
//! which re-exports it.
