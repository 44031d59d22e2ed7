//! Compact list responses: one line per record, plus the ids to act on.
//!
//! A resource type says how its records read as lines through [`CompactLine`],
//! derived with a template or written by hand. Services without Rust types use
//! a run-time [`Template`] in a [`CompactResource`]. A [`RouteTable`] maps
//! route patterns (axum syntax) to resources, and [`compact_envelope`] turns a
//! list body into the envelope agents read.
//!
//! # The derive
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use terse::CompactLine;
//!
//! #[derive(Serialize, Deserialize, CompactLine)]
//! #[compact(
//!     noun = "person",
//!     plural = "people",
//!     line = "{login} {full_name|trunc(20)}{? ({roles|join(/)})}"
//! )]
//! struct Person {
//!     #[compact(id)]
//!     login: String,
//!     #[serde(rename = "name")]
//!     full_name: String,
//!     roles: Vec<String>,
//! }
//! ```
//!
//! On the type, `#[compact(...)]` takes `noun` (required), `plural`
//! (optional, for irregular nouns) and `line` (required, the template; see
//! [`Template`] for the language). On a field, `#[compact(id)]` marks the
//! id; without it a field whose JSON name is `id` is the id.
//!
//! Templates name fields by their JSON names, after `#[serde(rename)]` and
//! `#[serde(rename_all)]`, so a template reads the same as at run time; the
//! Rust field name is accepted too. At compile time the derive checks that the
//! template parses, that every field it names exists (only the first segment
//! of `{a.b}`) and is not skipped by serde, and that every filter is known
//! and has the right argument. A type with a `#[serde(flatten)]` field may
//! name keys the derive cannot see, so unknown names are allowed there.
//!
//! The type must implement `Serialize` (for [`CompactLine::line`]) and
//! `Deserialize` (to check that a record has the type's shape). Generic
//! types, enums and tuple structs are not supported.

mod context;
mod envelope;
mod line;
mod noun;
mod resource;
mod routes;
mod template;

pub use context::RenderContext;
pub use envelope::{DEFAULT_LIST_KEYS, NotCompact, compact_envelope};
pub use line::{CompactLine, RecordError};
pub use noun::Noun;
pub use resource::CompactResource;
pub use routes::{RouteError, RoutePattern, RouteTable};
pub use template::{Template, TemplateError};
/// Derives [`CompactLine`]; see the [module docs](self).
pub use terse_macros::CompactLine;

/// What `#[derive(CompactLine)]` expands to refers to; not public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;
    pub use terse_template as template;
}
