//! What the CPU can do beyond the target's baseline, asked in one place
//! ([`terse_tokens::cpu`]): the shape pass of the working bound and the
//! token estimate choose their kernels by the same answer.

pub(crate) use terse_tokens::cpu::avx2;
