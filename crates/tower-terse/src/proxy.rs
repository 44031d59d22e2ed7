//! Building blocks for servers built around the layer, such as a reverse
//! proxy that puts it in front of another service: what `terse gateway`
//! uses beyond the layer itself. A service author needs none of it.
//!
//! - [`OffWorkers`]: work run off the async workers under a
//!   [`BlockingLimit`](crate::settings::BlockingLimit) slot (inflating a
//!   compressed upstream answer, say).
//! - [`Reservation`]: bytes held against a
//!   [`MemoryBudget`](crate::settings::MemoryBudget).
//! - [`Rewind`]: a response extension that lets the layer undo what a
//!   service inside it did to a body it then leaves alone.
//! - [`is_json_media_type`], [`is_identity_coding`]: the layer's own tests
//!   of a `Content-Type` and a `Content-Encoding`.
//!
//! ```
//! use http::HeaderValue;
//! use tower_terse::proxy::is_json_media_type;
//!
//! assert!(is_json_media_type(&HeaderValue::from_static("application/problem+json")));
//! assert!(!is_json_media_type(&HeaderValue::from_static("text/html")));
//! ```

pub use crate::blocking::OffWorkers;
pub use crate::budget::Reservation;
pub use crate::render::{is_identity_coding, is_json_media_type};
#[cfg(feature = "metrics")]
pub use crate::report::record_metrics;
pub use crate::rewind::Rewind;
