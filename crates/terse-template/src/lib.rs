//! The grammar of terse's compact-line templates, shared by the `tower-terse` crate
//! (which parses templates at run time and renders them) and `terse-macros`
//! (which parses them at compile time to check field and filter names).
//!
//! Keeping the grammar in one small dependency-free crate means a template is
//! read the same way by both, and the derive macro stays cheap to build.
//! Rendering lives in `terse`; this crate only turns text into an [`Ast`].
//!
//! ```
//! use terse_template::{parse, Segment};
//!
//! let ast = parse("{title|upper}{? [{location}]}").unwrap();
//! assert_eq!(ast.segments.len(), 2);
//! assert!(matches!(ast.segments[1], Segment::Optional(_)));
//!
//! let err = parse("{title|uper}").unwrap_err();
//! assert_eq!(err.column(), 8);
//! assert!(err.message().contains("did you mean `upper`"));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Nothing reachable from a request or a response body may panic.
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod ast;
mod error;
mod filters;
mod parse;
mod suggest;

pub use ast::{Ast, Filter, FilterKind, Placeholder, Segment};
pub use error::ParseError;
pub use filters::{FILTER_NAMES, FilterArg, filter_arg};
pub use parse::{MAX_NESTING, MAX_TEMPLATE_BYTES, parse, parse_all};
pub use suggest::{closest, edit_distance};

/// The JSON key a record's id is read from when nothing names another: the
/// field the derive takes for the id without `#[compact(id)]`, and the
/// default of the `tower-terse` crate's `CompactLine::id_key`,
/// `CompactResource::new` and `TerseLayer::id_key`.
///
/// Defined here, in the one crate both the derive and `terse` depend on, so
/// that compile-time and run-time agree on it.
pub const DEFAULT_ID_KEY: &str = "id";
