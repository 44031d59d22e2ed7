//! What the CPU can do beyond the target's baseline, asked in one place
//! ([`terse_tokens::cpu`]): the shape pass of the working bound, the
//! minifier, the UTF-8 check and the token estimate choose their kernels
//! by the same answers.

pub(crate) use terse_tokens::cpu::{avx2, avx2_clmul};
