//! The estimator's weights across tokenizer families and its error bounds,
//! checked against the figures the README quotes. One test binary, one
//! module per subject.

mod cross_family;
mod estimator_bounds;
mod import_cycles;
