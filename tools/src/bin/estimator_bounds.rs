//! How far a token estimator without a tokenizer gets on the validation
//! families, next to richer models and models that know words.
//!
//! ```text
//! cargo run --release -p terse-tools --bin estimator_bounds
//! ```
//!
//! Prints the README's table, one row per model: the mean and 95th
//! percentile of the relative error against exact o200k_base counts over
//! all families, each left out of the fit in turn (as `cross_family`
//! measures the estimator); the family it does worst on; and the same
//! errors with the weights fitted on every family (in sample), the least
//! error the model can have on these texts. Weights are not rounded to the
//! estimator's fixed point, so the first row differs from `cross_family`'s
//! figures by a few hundredths.

use terse_tools::bounds::{bounds, markdown};
use terse_tools::fit::DEFAULT_RIDGE;

fn main() {
    print!("{}", markdown(&bounds(DEFAULT_RIDGE)));
}
