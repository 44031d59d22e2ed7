//! Token counting for response bodies.
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

#[cfg(feature = "exact-tokens")]
mod ascii;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(feature = "exact-tokens")]
mod bounds;
mod choose;
mod classes;
mod dispatch;
mod estimate;
#[cfg(feature = "exact-tokens")]
mod exact;
mod features;
mod kernel;
#[cfg(feature = "exact-tokens")]
mod mixed;
#[cfg(feature = "exact-tokens")]
mod pieces;
#[cfg(all(feature = "exact-tokens", target_arch = "x86_64"))]
mod sse2;
mod weights;

pub use choose::{Choice, Counting, EXACT_TIE_MAX_BYTES, Served, choose, estimates};
pub(crate) use choose::{on_estimates, settle};
pub use estimate::{estimate, estimate_portable};

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
/// if wanted && !tower_terse::tokens::EXACT_AVAILABLE {
///     eprintln!("exact counts need the `exact-tokens` feature");
/// }
/// ```
pub const EXACT_AVAILABLE: bool = cfg!(feature = "exact-tokens");
