//! Exact counts with the o200k_base BPE.

/// Counts the o200k_base tokens of `text` exactly.
///
/// Available with the `exact-tokens` cargo feature (on by default: the
/// smart fallback settles near ties with it, see [`choose`](super::choose())).
///
/// The tokenizer (`bpe-openai`) is built once, on the first call (about
/// 0.1 s), from data embedded in the binary; later calls share it across
/// threads. It counts in time linear in the text, whatever the text (a
/// megabyte of one repeated letter included), and agrees with the reference
/// tokenizer on every corpus of the repository. Special-token markers such
/// as `<|endoftext|>` count as the ordinary text they are, since a response
/// body is data, not a prompt template. It runs at tens of MB/s, hundreds
/// of times slower than [`estimate`](super::estimate()), which is the one
/// for hot paths.
///
/// ```
/// assert_eq!(tower_terse::tokens::exact(""), 0);
/// assert_eq!(tower_terse::tokens::exact("hello world"), 2);
/// let body = r#"{"id":1,"title":"Weekly sync"}"#;
/// assert!(tower_terse::tokens::exact(body) > 5);
/// ```
pub fn exact(text: &str) -> usize {
    bpe_openai::o200k_base().count(text)
}
