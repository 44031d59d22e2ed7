//! The exact counter against independent ones: `bpe-openai`'s o200k_base
//! encoder on the corpora, and `tiktoken` on text mostly ASCII with
//! characters beyond it. One test binary, one module per subject.

mod exact_differential;
mod exact_non_ascii;
