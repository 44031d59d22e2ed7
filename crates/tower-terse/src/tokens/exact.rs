//! Exact counts with the o200k_base BPE.

use std::sync::OnceLock;

/// Built on first use: decoding the embedded ranks takes a moment and most
/// processes never ask for an exact count.
static O200K_BASE: OnceLock<tiktoken::CoreBpe> = OnceLock::new();

/// Counts the o200k_base tokens of `text` exactly.
///
/// Available with the `exact-tokens` cargo feature only.
///
/// The tokenizer is built once, on the first call, from ranks embedded in
/// the binary; later calls share it across threads. Special-token markers
/// such as `<|endoftext|>` count as the ordinary text they are, since a
/// response body is data, not a prompt template. It runs at tens of MB/s,
/// dozens of times slower than [`estimate`](crate::tokens::estimate()),
/// which is the one for hot paths.
///
/// ```
/// assert_eq!(tower_terse::tokens::exact(""), 0);
/// assert_eq!(tower_terse::tokens::exact("hello world"), 2);
/// let body = r#"{"id":1,"title":"Weekly sync"}"#;
/// assert!(tower_terse::tokens::exact(body) > 5);
/// ```
pub fn exact(text: &str) -> usize {
    O200K_BASE
        .get_or_init(tiktoken::encoding::o200k_base)
        .count(text)
}
