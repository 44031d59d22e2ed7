//! The smallest axum service with the terse layer.

fn main() {}
