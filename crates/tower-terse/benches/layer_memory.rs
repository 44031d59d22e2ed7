//! Peak heap memory while the layer rewrites a JSON body of N bytes to TOON.
//!
//! ```text
//! cargo bench -p tower-terse --bench layer_memory
//! ```
//!
//! A counting global allocator records the highest number of live heap bytes
//! during one request through the layer, above what was live before it (the
//! handler's body is already allocated then). Printed as peak / N; the goal
//! is under 4 N plus a constant. The same is printed for a serde_json round
//! trip of the body, for scale.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                let grown = new_size - layout.size();
                let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak live bytes above the starting point while `work` runs.
fn peak_during<T>(work: impl FnOnce() -> T) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    black_box(work());
    PEAK.load(Ordering::Relaxed) - before
}

fn main() {
    let runtime = common::timed_runtime();
    println!(
        "records,json_bytes,toon_bytes,layer_peak_bytes,layer_peak_per_n,codec_peak_per_n,serde_json_peak_per_n"
    );
    for records in [100, 1_000, 10_000, 40_000] {
        let body = common::list_body(records);
        let n = body.len();
        let mut service = common::layered(body.clone());
        // Warm up once so lazily built state is not counted.
        let (_, toon) = runtime.block_on(common::call(&mut service, "/?format=toon"));
        let layer = peak_during(|| runtime.block_on(common::call(&mut service, "/?format=toon")));
        let baseline = peak_during(|| {
            let value: serde_json::Value = serde_json::from_slice(&body).expect("valid JSON");
            serde_json::to_vec(&value).expect("serializable")
        });
        let text = std::str::from_utf8(&body).expect("UTF-8");
        let codec = peak_during(|| {
            tower_terse::toon::encode_json(text, &Default::default()).expect("valid JSON")
        });
        println!(
            "{records},{n},{},{layer},{:.2},{:.2},{:.2}",
            toon.len(),
            layer as f64 / n as f64,
            codec as f64 / n as f64,
            baseline as f64 / n as f64
        );
    }
}
