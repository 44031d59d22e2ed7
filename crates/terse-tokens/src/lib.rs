//! Token counting for response bodies, the token counter of
//! [tower-terse](https://docs.rs/tower-terse) (re-exported there as
//! `tower_terse::tokens`).
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
//! fewer exact tokens (and the counts it returns are then the exact ones,
//! or, for long texts decided before both were counted whole, the exact
//! counts of their first slices plus the estimates of the rest).
//!
//! ```
//! let body = br#"{"id":1,"title":"Weekly sync","start_at":"2025-06-02T09:30:00Z"}"#;
//! let tokens = terse_tokens::estimate(body);
//! assert!((15..=30).contains(&tokens));
//! ```

// The estimator's AVX2 kernel (`avx2.rs`) and the calls into code compiled
// for AVX2, in `dispatch.rs`, taken on CPUs that have AVX2 (`cpu.rs` asks),
// and the exact counter's SSE2 and AVX2 byte classes (`sse2.rs`,
// `wide.rs`) and its loop compiled for AVX2 (in `ascii.rs`), and the SSE2
// and AVX2 marks of JSON a near tie's records are found with
// (`json_marks.rs`) and the walk over them compiled for AVX2 (in
// `records.rs`), use `unsafe`; nothing else may.
#![deny(unsafe_code)]
// docs.rs marks what each cargo feature adds.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
// Nothing reachable from a request or a response body may panic.
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

#[cfg(feature = "exact-tokens")]
mod ascii;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(feature = "exact-tokens")]
mod bounds;
mod choose;
mod classes;
pub mod cpu;
mod dispatch;
mod estimate;
#[cfg(feature = "exact-tokens")]
mod exact;
mod features;
#[cfg(feature = "exact-tokens")]
mod json_marks;
mod kernel;
#[cfg(feature = "exact-tokens")]
mod mixed;
#[cfg(feature = "exact-tokens")]
mod pieces;
#[cfg(feature = "exact-tokens")]
mod records;
#[cfg(all(feature = "exact-tokens", target_arch = "x86_64"))]
mod sse2;
mod weights;
#[cfg(all(feature = "exact-tokens", target_arch = "x86_64"))]
mod wide;

pub use choose::{Choice, Counting, EXACT_TIE_MAX_BYTES, Served, choose, estimates};
/// The two halves of [`choose`], for tower-terse's smart fallback, which
/// renders the TOON between them. Not a stable API.
#[doc(hidden)]
pub use choose::{Weighed, settle_weighed, weigh};
pub use estimate::{estimate, estimate_portable};
/// Where a near tie counted in stages cuts its two texts in step, for the
/// decision test, which checks the band used there. Not a stable API.
#[cfg(feature = "exact-tokens")]
#[doc(hidden)]
pub use records::record_cuts;

/// The estimator's byte classes and pair features, for the weight-fitting
/// tool in `tools/`: it counts them on texts and fits one weight each.
/// Not a stable API.
#[cfg(feature = "fitting")]
#[doc(hidden)]
pub mod model {
    pub use super::classes::{BYTE_CLASS, CLASSES, NAMES as CLASS_NAMES};
    /// The exact counter's test for text that goes to the linear encoder,
    /// for the decision bench's baseline.
    #[cfg(feature = "exact-tokens")]
    pub use super::exact::has_long_run;
    pub use super::features::{FEATURES, NAMES as FEATURE_NAMES, RUN, features, lower};
}
#[cfg(feature = "exact-tokens")]
pub use exact::{exact, warm};

/// Whether this build counts exact tokens: the `exact-tokens` feature is on,
/// so `exact_token_count` settings take effect rather than falling back to
/// the estimate. A configuration that asks for exact counts can check it
/// and refuse, rather than estimate silently.
///
/// ```
/// let wanted = true;
/// if wanted && !terse_tokens::EXACT_AVAILABLE {
///     eprintln!("exact counts need the `exact-tokens` feature");
/// }
/// ```
pub const EXACT_AVAILABLE: bool = cfg!(feature = "exact-tokens");
