//! `#[derive(CompactLine)]` for the `tower-terse` crate. Use it through `tower-terse`,
//! which re-exports it; the attributes are documented in `tower_terse::compact`.
//!
//! The derive works in three steps, each in its own module: `parse` reads
//! the type and its `compact`/`serde` attributes, `validate` checks them and
//! the template against the fields, and `expand` writes the impl (with the
//! twin type from `shape_check` that records are checked against). Every
//! problem found is reported, not only the first.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod errors;
mod expand;
mod parse;
mod rename;
mod shape_check;
mod validate;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `tower_terse::compact::CompactLine` from a template; see `tower_terse::compact`.
#[proc_macro_derive(CompactLine, attributes(compact))]
pub fn derive_compact_line(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let mut errors = errors::Errors::default();
    let checked = parse::parse(&input, &mut errors)
        .and_then(|parsed| validate::validate(&parsed, &mut errors));
    match (errors.into_error(), checked) {
        (None, Some(checked)) => expand::expand(&checked, shape_check::twin(&input)).into(),
        (Some(error), _) => error.to_compile_error().into(),
        // Unreachable in practice (every `None` records an error), but an
        // empty expansion is the safe answer.
        (None, None) => TokenStream::new(),
    }
}
