//! Codec benchmarks; see the crate README for what they measure.
fn main() {}
