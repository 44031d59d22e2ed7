//! The allocator setup of the `terse` process: glibc's malloc, with its
//! mmap threshold fixed.
//!
//! By default glibc raises the threshold above which a block is mapped on
//! its own to the size of the largest mapped block freed so far (up to
//! 32 MiB). After the first large body is freed, bodies, renderings and
//! their outputs come from the arenas instead, and what the arenas once
//! held stays resident: under the memory budget's hostile load
//! (`benches/load/soak_rss.sh`) the gateway peaked at 1.7 times its
//! budget and kept that after the load. With the threshold fixed, every
//! block past it is mapped on its own and unmapped when freed, so the
//! resident size follows what is held, which the budget bounds. The
//! figures per setup (this one, glibc's default, `MALLOC_ARENA_MAX=2`,
//! mimalloc, jemalloc) are in `benches/load/rss_results.md`.

/// The fixed threshold: glibc's own starting value.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Fixes glibc's mmap threshold, unless the environment sets one
/// (`MALLOC_MMAP_THRESHOLD_`, or `glibc.malloc.mmap_threshold` in
/// `GLIBC_TUNABLES`): an operator's setting wins. Called first in `main`,
/// before any other thread runs.
pub(crate) fn setup() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
        if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some()
            || tunables.contains("mmap_threshold")
        {
            return;
        }
        // SAFETY: `mallopt` only sets one of malloc's parameters, under
        // malloc's own lock; the value is in the range glibc accepts (up
        // to 32 MiB on 64-bit targets). A refusal (0) leaves glibc's
        // default, which is correct, only larger.
        #[allow(unsafe_code)]
        let _ = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) };
    }
}
