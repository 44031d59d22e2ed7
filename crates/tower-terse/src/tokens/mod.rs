//! Token counting for response bodies.
//!
//! [`estimate`] is the fast default: one pass over the bytes, no tokenizer,
//! within a few percent of the o200k_base count on JSON, TOON and
//! line-per-record text in English, Spanish, German, French, Russian, Arabic,
//! Hindi, CJK and emoji. It is what the layer puts in `X-Token-Count`.
//!
//! `exact` counts with the real o200k_base BPE. It is available with the
//! `exact-tokens` cargo feature, which embeds the tokenizer's ranks (about
//! 3 MB; nothing is downloaded at run time).
//!
//! ```
//! let body = br#"{"id":1,"title":"Weekly sync","start_at":"2025-06-02T09:30:00Z"}"#;
//! let tokens = tower_terse::tokens::estimate(body);
//! assert!((15..=30).contains(&tokens));
//! ```

mod classes;
mod dispatch;
mod estimate;
#[cfg(feature = "exact-tokens")]
mod exact;
mod features;
mod kernel;
mod weights;

pub use estimate::estimate;

/// The estimator's byte classes and pair features, for the weight-fitting
/// tool in `tools/`: it counts them on texts and fits one weight each.
/// Not a stable API.
#[cfg(feature = "fitting")]
#[doc(hidden)]
pub mod model {
    pub use super::classes::{BYTE_CLASS, CLASSES, NAMES as CLASS_NAMES};
    pub use super::features::{FEATURES, NAMES as FEATURE_NAMES, features};
}
#[cfg(feature = "exact-tokens")]
pub use exact::exact;
