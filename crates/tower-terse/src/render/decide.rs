//! The TOON-or-JSON rule (the smart fallback), in one place: every path
//! that may serve TOON asks this function.

/// The tokens of the `toon` text, counted by `count`, when they are fewer
/// than the JSON's `json_tokens` (counted the same way); `None` when the
/// JSON should be served. A tie goes to JSON, which every client reads.
pub(crate) fn cheaper_toon(
    count: impl Fn(&[u8]) -> usize,
    toon: &str,
    json_tokens: usize,
) -> Option<usize> {
    let tokens = count(toon.as_bytes());
    (tokens < json_tokens).then_some(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toon_wins_only_with_fewer_tokens() {
        let bytes = |text: &[u8]| text.len();
        assert_eq!(cheaper_toon(bytes, "ab", 3), Some(2));
        // A tie goes to JSON.
        assert_eq!(cheaper_toon(bytes, "abc", 3), None);
        assert_eq!(cheaper_toon(bytes, "abcd", 3), None);
    }
}
