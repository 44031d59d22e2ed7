//! The allocator setup of the `terse` process: glibc's malloc, with its
//! mmap threshold fixed, and in the gateway a thread that trims the arenas
//! once the memory budget is idle ([`trim_when_idle`]).
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

/// How often the trimmer looks at the memory budget.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Gives the arenas' free memory back to the system once the memory
/// budget is mostly idle (at most an eighth of it reserved), every
/// [`TRIM_EVERY`].
///
/// The mmap threshold does not cover a decoded TOON request: the
/// `serde_json::Value` tree of a 1.8 MB table (100 000 rows of eight
/// one-digit values) is some 800 000 small blocks, far below any
/// threshold, all from the arenas. Freed, they stay there: six such
/// requests in a row took the gateway to 448 MiB against its 256 MiB
/// budget, and it stayed there. `malloc_trim(0)` releases the free pages
/// inside the arenas as well as their tops; with this thread the same six
/// requests come back to 57 MiB within 10 s of the last (the figures are
/// in `benches/load/rss_results.md`).
///
/// A trim walks the arenas' free lists under their locks, so it is done
/// only when the budget is mostly idle: a gateway under load trims once
/// it quietens, and an idle one's trims find little to walk.
pub(crate) fn trim_when_idle(budget: tower_terse::settings::MemoryBudget) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let spawned = std::thread::Builder::new()
            .name("terse-malloc-trim".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(TRIM_EVERY);
                    if budget.in_use() <= budget.limit() / 8 {
                        // SAFETY: `malloc_trim` only returns free memory
                        // of malloc's own arenas to the system, under
                        // malloc's locks; no block in use is touched.
                        #[allow(unsafe_code)]
                        let _ = unsafe { libc::malloc_trim(0) };
                    }
                }
            });
        // Without the thread the gateway serves as before, only holding
        // more memory after a large decode: not a reason to stop.
        drop(spawned);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    drop(budget);
}
