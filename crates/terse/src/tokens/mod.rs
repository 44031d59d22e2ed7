//! Token counting.

/// Estimates how many tokens `text` takes.
pub fn estimate(text: &[u8]) -> usize {
    text.len().div_ceil(4)
}
