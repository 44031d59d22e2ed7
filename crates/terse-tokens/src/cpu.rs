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

/// Whether the CPU has AVX2, POPCNT and PCLMULQDQ (every CPU with AVX2 has
/// the carry-less multiply too, but it is asked all the same): code
/// compiled with `#[target_feature(enable = "avx2,popcnt,pclmulqdq")]` may
/// run exactly when this is `true`. Always `false` off x86-64. The passes
/// that track JSON strings 64 bytes at a time take the bytes inside them
/// as one carry-less multiply of their quotes.
///
/// ```
/// if terse_tokens::cpu::avx2_clmul() {
///     assert!(terse_tokens::cpu::avx2());
/// }
/// ```
#[inline]
pub fn avx2_clmul() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx2() && std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether the CPU has AVX2, BMI1, BMI2 and LZCNT: code compiled with
/// `#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]` (the exact
/// counter's loop, `ascii::count_wide`) may run exactly when this is
/// `true`. That loop gains from AVX2's three-operand vector instructions
/// (no copies before each compare), BMI1 and BMI2 (shifts by a register,
/// `andn`, without the flags' shuffles) and LZCNT.
#[cfg(all(target_arch = "x86_64", feature = "exact-tokens"))]
#[inline]
pub(crate) fn avx2_bmi() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
}
