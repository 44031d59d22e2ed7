//! `#[derive(CompactLine)]` from outside the crate: what it renders, the
//! shape check of records, and the compile errors it gives. One test
//! binary, one module per subject.

mod derive;
mod derive_nested_paths;
mod derive_shape_check;
mod derive_ui;
