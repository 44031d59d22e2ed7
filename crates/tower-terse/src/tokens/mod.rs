//! Token counting for response bodies: the [`terse_tokens`] crate,
//! re-exported so that `tower_terse::tokens::...` paths keep working.
//!
//! [`estimate`] is the fast default: one pass over the bytes, no tokenizer,
//! within a few percent of the o200k_base count on JSON, TOON and
//! line-per-record text in English, Spanish, German, French, Russian, Arabic,
//! Hindi, CJK and emoji. It is what the layer puts in `X-Token-Count`
//! (an estimate, unless the layer counts exactly).
//!
//! `exact` counts with the real o200k_base BPE, in time linear in the text.
//! It is available with the `exact-tokens` cargo feature, on by default,
//! which embeds the tokenizer's vocabulary (under 1 MB compressed; nothing
//! is downloaded at run time).
//!
//! [`choose`] is the smart fallback's decision between TOON and JSON: on the
//! estimates when they are clearly apart, on exact counts when they are
//! within the estimator's error band, so the format served is the one with
//! fewer exact tokens (and the counts it returns are then the exact ones).
//!
//! ```
//! let body = br#"{"id":1,"title":"Weekly sync","start_at":"2025-06-02T09:30:00Z"}"#;
//! let tokens = tower_terse::tokens::estimate(body);
//! assert!((15..=30).contains(&tokens));
//! ```

/// Where a long near tie is counted in stages, for the decision test. Not
/// a stable API.
#[cfg(feature = "exact-tokens")]
#[doc(hidden)]
pub use terse_tokens::record_cuts;
pub use terse_tokens::{
    Choice, Counting, EXACT_AVAILABLE, EXACT_TIE_MAX_BYTES, Served, choose, estimate,
    estimate_portable, estimates,
};
#[cfg(feature = "exact-tokens")]
pub use terse_tokens::{exact, warm};
// The smart fallback decides on the estimates first and settles a near tie
// on exact counts apart from it (off an async worker).
pub(crate) use terse_tokens::{Weighed, settle_weighed, weigh};

/// The estimator's byte classes and pair features, for the weight-fitting
/// tool in `tools/`. Not a stable API.
#[cfg(feature = "fitting")]
#[doc(hidden)]
pub use terse_tokens::model;
