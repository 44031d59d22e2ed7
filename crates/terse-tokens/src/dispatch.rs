//! Runs the estimator's kernel with the widest vectors the CPU has.
//!
//! The portable kernel (`kernel::chunk_sum`) is plain safe Rust that LLVM
//! vectorizes for the target's baseline: 16-byte SSE2 vectors on x86-64,
//! NEON on aarch64. On x86-64 CPUs with AVX2 (and POPCNT, which every AVX2
//! CPU has) the kernel written with AVX2 intrinsics (`avx2::chunk_sum`)
//! is taken instead: 32 pairs per vector and one horizontal sum per 32
//! pairs, about a sixth fewer instructions per byte. std asks
//! the CPU once and caches the answer. Both compute the same sum, bit for
//! bit; tests hold them to it on every ASCII pair and on arbitrary bytes.
//!
//! The portable kernel compiled with AVX2 (`portable`) is what x86-64 CPUs
//! with AVX2 ran before; it is kept as the reference the bench measures
//! the AVX2 kernel against.
//!
//! Calling a function compiled for AVX2 is sound exactly when the CPU has
//! AVX2, which is checked on the line before.

use super::kernel;

/// The kernel's sum over the first `pairs` pairs of `bytes`, with AVX2 when
/// the CPU has it.
#[inline]
pub(super) fn chunk_sum(bytes: &[u8], pairs: usize) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        #[allow(unsafe_code)]
        // SAFETY: `avx2::chunk_sum` needs AVX2 and POPCNT, and the CPU has
        // just said it has both. Its memory reads are documented there.
        return unsafe { super::avx2::chunk_sum(bytes, pairs) };
    }
    baseline(bytes, pairs)
}

/// The portable kernel compiled for the target's baseline instruction set:
/// what CPUs without AVX2 run, and the reference the AVX2 kernel is tested
/// and benchmarked against.
#[inline(never)]
pub(super) fn baseline(bytes: &[u8], pairs: usize) -> i64 {
    kernel::chunk_sum(bytes, pairs)
}

/// The portable kernel with the widest vectors the CPU has: compiled with
/// AVX2 where the CPU has it, as the estimate ran before the AVX2 kernel.
/// The reference `estimate_portable` measures the AVX2 kernel against.
#[inline]
pub(super) fn portable(bytes: &[u8], pairs: usize) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: `portable_avx2` needs AVX2, and the CPU has just said it
        // has it. It reads nothing but `bytes`, in bounds-checked safe code.
        return unsafe { portable_avx2(bytes, pairs) };
    }
    baseline(bytes, pairs)
}

/// The portable kernel compiled with AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn portable_avx2(bytes: &[u8], pairs: usize) -> i64 {
    kernel::chunk_sum(bytes, pairs)
}
