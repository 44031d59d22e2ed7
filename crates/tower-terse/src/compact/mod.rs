//! Compact list responses: one line per record, plus the ids to act on.
//!
//! A resource type says how its records read as lines through [`CompactLine`],
//! derived with a template or written by hand. Services without Rust types use
//! a run-time [`Template`] in a [`CompactResource`]. The layer maps route
//! patterns (axum syntax) to resources, and [`compact_envelope`] turns a list
//! body into the envelope agents read.
//!
//! # The derive
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use tower_terse::CompactLine;
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
//! `#[compact(unchecked)]` on a field leaves the paths below it
//! (`{payment.type}`) to the run-time check described below.
//!
//! Templates name fields by their JSON names, after `#[serde(rename)]` and
//! `#[serde(rename_all)]`, so a template reads the same as at run time; the
//! Rust field name is accepted too. At compile time the derive checks that the
//! template parses, that every field it names exists and is not skipped by
//! serde, and that every filter is known and has the right argument. A type
//! with a `#[serde(flatten)]` field may name keys the derive cannot see, so
//! unknown names are allowed there.
//!
//! A path below a field (`{reporter.name}`) is checked as Rust field
//! access, so rustc reports a segment the field's type lacks (``no field
//! `nme` on type `Reporter` ``). The check goes through `Option`, `Box`,
//! `Rc`, `Arc`, references and lists by index (`{watchers.0.name}`) down to
//! the first struct below the type, and names only segments written as
//! Rust names (snake_case). What it cannot see is left to the run time: a
//! camelCase key (the nested type's own serde rename), a path into
//! `serde_json::Value`, a map or another generic type, segments below the
//! first nested struct, and fields serialized by code of their own
//! (`with`, `serialize_with`). There, a record whose object lacks the key
//! renders it empty and logs one `tracing` warning per resource and path,
//! naming the key meant when one is close. A nested type that renames a
//! field to another snake_case name, or an enum serialized as an object
//! (`#[serde(tag = "type")]`), fails the compile-time check although the
//! key exists: mark that field `#[compact(unchecked)]`.
//!
//! The type must implement `Serialize` (for [`CompactLine::line`]) and
//! `Deserialize` (to check that a record has the type's shape). Generic
//! types, enums and tuple structs are not supported.
//!
//! The shape check accepts a record exactly when it deserializes into the
//! type, and gives serde's own message when it does not. Where the type's
//! serde attributes are plain data (`rename`, `rename_all`, `alias`,
//! `default`, `deny_unknown_fields`, ...), the derive checks against a twin
//! of the type whose `String` fields (also inside `Option` and `Vec`) keep
//! nothing, so checking allocates nothing for them; a field with a `with` or
//! `deserialize_with` function or a `default` path keeps its own type, and a
//! container attribute such as `from`, `try_from` or `default` makes the
//! derive check against the type itself. (A type named `String` that is not
//! `std::string::String` would be mistaken for it.)
//!
//! # In the layer
//!
//! The layer parses a body once into a borrowed
//! parsed document (no `serde_json::Value`),
//! checks each record from it and renders its line, copied into the
//! envelope's JSON text as soon as it is written; `benches/compact.rs`
//! measures this path against the TOON path for the same body.
//!
//! Register a type with
//! [`TerseLayer::resource`](crate::TerseLayer::resource) (or a run-time
//! resource with [`TerseLayer::compact_resource`](crate::TerseLayer::compact_resource)); a
//! request that asks for `format=compact` then gets, for a 2xx list body on
//! that route, the envelope [`compact_envelope`] describes, as compact JSON
//! with an `X-Token-Count` that counts it. In short:
//!
//! - `summary`: `1 event`, `3 events`, or `20 of 57 events` when the body
//!   gives a larger total.
//! - `meta`: the body's `meta` object (or its keys beside the list), with
//!   `has_more` added when a total is known (`offset + count < total`; the
//!   offset from `offset` or `page` and a page size), never overwritten.
//! - `bytes` counts in decimal units (1 KB = 1000 B); `ago` measures from
//!   the time the response is rendered, rounded down: seconds, then minutes
//!   from 60 s, hours from 60 min, days from 24 h, weeks from 7 days, months
//!   (30 days) from 30 days, years (365 days) from 365 days.
//! - Nothing is logged for a route without a resource or a body that is not
//!   a list (a single object): JSON goes out. A record that does not fit the
//!   resource is logged with `tracing::warn!` (fields `route`, the registered
//!   pattern; `path`; `reason`, e.g. ``record 3: field `attendees`: expected
//!   u32, found a string``, with the field path and the types, never the
//!   record's values; `suppressed`, the warnings held back since the last)
//!   at most once a minute per route, and the JSON goes out unchanged.
//!
//! [`render`](crate::format::render) and [`render_json`](crate::format::render_json) have no
//! route, so `Format::Compact` renders JSON there; call [`compact_envelope`]
//! with a [`CompactResource`] to build the envelope yourself.

#[cfg(feature = "changes")]
pub(crate) mod change_set;
mod context;
pub(crate) mod envelope;
mod line;
mod lines;
mod noun;
mod record;
mod resource;
pub(crate) mod resource_settings;
mod routes;
pub(crate) mod shape_error;
mod template;
#[cfg(test)]
mod verbatim_tests;

pub use context::RenderContext;
pub use envelope::{NotCompact, compact_envelope};
pub use line::{CompactLine, RecordError};
pub use noun::Noun;
pub use record::Record;
pub use resource::CompactResource;
pub use resource_settings::ResourceSettings;
pub use routes::RouteError;
pub(crate) use routes::{RoutePattern, RouteTable};
pub use template::{Template, TemplateError};
/// Derives [`CompactLine`]; see the [module docs](self).
pub use terse_macros::CompactLine;

/// What `#[derive(CompactLine)]` expands to refers to; not public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;
    pub use terse_template as template;

    use std::fmt;

    use serde::de::{Deserialize, Deserializer, Error, Unexpected, Visitor};

    /// Stands in for a `String` field when the derive checks a record's
    /// shape: it accepts and rejects exactly what `String` does (with the
    /// same messages) but keeps nothing, so the check allocates nothing.
    #[derive(Debug, Default)]
    pub struct CheckString;

    impl<'de> Deserialize<'de> for CheckString {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_string(CheckStringVisitor)
        }
    }

    struct CheckStringVisitor;

    impl Visitor<'_> for CheckStringVisitor {
        type Value = CheckString;

        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            // `String`'s own wording.
            formatter.write_str("a string")
        }

        fn visit_str<E: Error>(self, _: &str) -> Result<CheckString, E> {
            Ok(CheckString)
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<CheckString, E> {
            match std::str::from_utf8(bytes) {
                Ok(_) => Ok(CheckString),
                Err(_) => Err(E::invalid_value(Unexpected::Bytes(bytes), &self)),
            }
        }
    }
}
