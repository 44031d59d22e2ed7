//! Tools for working on the terse repository: fitting and validating the
//! token estimator, and the figures the README quotes. Not published.

pub mod bounds;
pub mod families;
pub mod fit;
