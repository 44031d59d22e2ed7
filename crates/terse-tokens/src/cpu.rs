//! What the CPU can do beyond the target's baseline, asked in one place:
//! the kernels with wider vectors (the token estimate's here, tower-terse's
//! shape pass of the working bound) are chosen by the same answer.
//!
//! std asks the CPU once per process and caches the answer in a static, so
//! asking again per body is a load and a compare.

/// Whether the CPU has AVX2 and POPCNT (every CPU with AVX2 has POPCNT):
/// code compiled with `#[target_feature(enable = "avx2,popcnt")]` may run
/// exactly when this is `true`. Always `false` off x86-64.
#[inline]
pub fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}
