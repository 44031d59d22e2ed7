//! Runs the estimator's kernel with the widest vectors the CPU has.
//!
//! The kernel (`kernel::chunk_sum`) is plain safe Rust that LLVM
//! vectorizes. Built for the x86-64 baseline it gets 16-byte SSE2 vectors;
//! the same code compiled with AVX2 enabled works on 32 bytes at a time and
//! runs about 1.7 times as fast. So on x86-64 a second copy is compiled with
//! `#[target_feature(enable = "avx2")]` and taken when the CPU reports AVX2
//! (std asks the CPU once and caches the answer). Both copies are the same
//! source, so they compute the same sum; a test holds them to it.
//!
//! Calling a function compiled for AVX2 is the crate's only `unsafe`: it is
//! sound exactly when the CPU has AVX2, which is checked on the line before.
//! Other targets build the one copy for their baseline (NEON on aarch64).

use super::kernel;

/// The kernel's sum over the first `pairs` pairs of `bytes`, with AVX2 when
/// the CPU has it.
#[inline]
pub(super) fn chunk_sum(bytes: &[u8], pairs: usize) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: `chunk_sum_avx2` needs AVX2, and the CPU has just said it
        // has it. It reads nothing but `bytes`, in bounds-checked safe code.
        return unsafe { chunk_sum_avx2(bytes, pairs) };
    }
    baseline(bytes, pairs)
}

/// The kernel compiled for the target's baseline instruction set.
#[inline(never)]
pub(super) fn baseline(bytes: &[u8], pairs: usize) -> i64 {
    kernel::chunk_sum(bytes, pairs)
}

/// The kernel compiled with AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn chunk_sum_avx2(bytes: &[u8], pairs: usize) -> i64 {
    kernel::chunk_sum(bytes, pairs)
}
