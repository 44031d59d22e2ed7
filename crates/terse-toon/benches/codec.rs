//! Codec speed on realistic list responses, against `serde_json` baselines
//! measured in the same run.
//!
//! For event, email and order lists of 10, 1 000 and 10 000 records (built
//! from a fixed seed, with nested objects and arrays), each group measures:
//!
//! - `encode_json`: JSON text to TOON text with [`terse_toon::encode_json`];
//! - `serde_json_roundtrip`: the baseline for it, JSON bytes to a
//!   `serde_json::Value` and back to compact JSON bytes;
//! - `decode`: the TOON text to a `Value` with [`terse_toon::decode`];
//! - `decode_to_json`: the TOON text straight to JSON text with
//!   [`terse_toon::decode_to_json`] (how TOON request bodies are read);
//! - `serde_json_parse`: the baseline for both, `serde_json::from_slice::<Value>`
//!   of the same data as JSON.
//!
//! At the end it prints each throughput ratio (baseline time / our time, so
//! above 1 means faster than the baseline), from the same samples criterion
//! analyses, with the throughput of each in MB/s of the JSON text. Run with `cargo bench -p terse-toon`; criterion's options apply,
//! e.g. `-- --measurement-time 1 --warm-up-time 0.5`.

use criterion::{BenchmarkId, Criterion, Throughput};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const SIZES: [usize; 3] = [10, 1_000, 10_000];

/// Nanoseconds per iteration of every sample, by benchmark id.
static SAMPLES: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

/// The JSON text's length, by group name.
static JSON_BYTES: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());

fn main() {
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    for kind in Kind::ALL {
        for size in SIZES {
            bench_list(&mut criterion, kind, size);
        }
    }
    criterion.final_summary();
    print_ratios();
}

fn bench_list(criterion: &mut Criterion, kind: Kind, size: usize) {
    let json = serde_json::to_string(&list_response(kind, size)).expect("serializable");
    let toon = terse_toon::encode_json(&json, &Default::default()).expect("valid JSON");
    // The decoded value equals the JSON's up to number representation
    // (`7285.0` comes back as the integer `7285`), so it must re-encode to
    // the same TOON.
    let decoded = terse_toon::decode(&toon, &Default::default()).expect("decodable TOON");
    assert!(
        terse_toon::encode(&decoded, &Default::default()) == toon,
        "the TOON of {} {size} does not decode to its data",
        kind.name(),
    );

    // Straight to JSON, the text is what `serde_json` writes for the value.
    let written = terse_toon::decode_to_json(toon.as_bytes(), &Default::default(), usize::MAX)
        .expect("decodable TOON");
    assert!(
        written == serde_json::to_vec(&decoded).expect("serializable"),
        "decode_to_json of {} {size} is not the value's JSON",
        kind.name(),
    );

    let name = format!("{}/{size}", kind.name());
    JSON_BYTES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.clone(), json.len());
    let mut group = criterion.benchmark_group(&name);
    group.throughput(Throughput::Bytes(json.len() as u64));
    group.sample_size(sample_size(size));
    let id = |what: &str| format!("{name}/{what}");

    let options = terse_toon::EncodeOptions::default();
    group.bench_function(BenchmarkId::from_parameter("encode_json"), |b| {
        b.iter_custom(|iters| {
            timed(&id("encode_json"), iters, || {
                terse_toon::encode_json(black_box(&json), &options)
            })
        })
    });
    group.bench_function(BenchmarkId::from_parameter("serde_json_roundtrip"), |b| {
        b.iter_custom(|iters| {
            timed(&id("serde_json_roundtrip"), iters, || {
                let value: Value = serde_json::from_slice(black_box(json.as_bytes())).unwrap();
                serde_json::to_vec(&value).unwrap()
            })
        })
    });
    let decode_options = terse_toon::DecodeOptions::default();
    group.bench_function(BenchmarkId::from_parameter("decode"), |b| {
        b.iter_custom(|iters| {
            timed(&id("decode"), iters, || {
                terse_toon::decode(black_box(&toon), &decode_options)
            })
        })
    });
    group.bench_function(BenchmarkId::from_parameter("decode_to_json"), |b| {
        b.iter_custom(|iters| {
            timed(&id("decode_to_json"), iters, || {
                terse_toon::decode_to_json(black_box(toon.as_bytes()), &decode_options, usize::MAX)
            })
        })
    });
    group.bench_function(BenchmarkId::from_parameter("serde_json_parse"), |b| {
        b.iter_custom(|iters| {
            timed(&id("serde_json_parse"), iters, || {
                serde_json::from_slice::<Value>(black_box(json.as_bytes()))
            })
        })
    });
    group.finish();
}

/// Runs `routine` `iters` times, records the time per iteration, and returns
/// the total for criterion.
fn timed<R>(id: &str, iters: u64, mut routine: impl FnMut() -> R) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        black_box(routine());
    }
    let elapsed = start.elapsed();
    let per_iter = elapsed.as_nanos() as f64 / iters.max(1) as f64;
    SAMPLES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(id.to_string())
        .or_default()
        .push(per_iter);
    elapsed
}

/// Samples per benchmark: fewer for the largest lists, whose iterations are
/// long enough on their own.
fn sample_size(records: usize) -> usize {
    if records >= 10_000 { 10 } else { 30 }
}

/// The median time per iteration over the measured samples of `id` (the
/// warm-up calls come first, so only the last `keep` samples count).
fn median(samples: &BTreeMap<String, Vec<f64>>, id: &str, keep: usize) -> Option<f64> {
    let all = samples.get(id)?;
    let keep = keep.min(all.len());
    let mut last: Vec<f64> = all[all.len() - keep..].to_vec();
    last.sort_by(f64::total_cmp);
    last.get(last.len() / 2).copied()
}

fn print_ratios() {
    let samples = SAMPLES.lock().unwrap_or_else(|e| e.into_inner());
    println!();
    println!("Throughput relative to the serde_json baseline (>1 is faster):");
    for (ours, baseline, label) in [
        (
            "encode_json",
            "serde_json_roundtrip",
            "JSON bytes -> Value -> JSON bytes",
        ),
        (
            "decode",
            "serde_json_parse",
            "serde_json::from_slice::<Value>",
        ),
        (
            "decode_to_json",
            "serde_json_parse",
            "serde_json::from_slice::<Value>",
        ),
    ] {
        for kind in Kind::ALL {
            for size in SIZES {
                let name = format!("{}/{size}", kind.name());
                let (Some(t_ours), Some(t_base)) = (
                    median(&samples, &format!("{name}/{ours}"), sample_size(size)),
                    median(&samples, &format!("{name}/{baseline}"), sample_size(size)),
                ) else {
                    continue;
                };
                let bytes = JSON_BYTES
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&name)
                    .copied()
                    .unwrap_or(0) as f64;
                // Bytes per nanosecond are thousands of MB/s.
                println!(
                    "{ours} {} {size} records: {:.2}x baseline ({label}; {:.1} us vs {:.1} us, \
                     {:.0} vs {:.0} MB/s)",
                    kind.name(),
                    t_base / t_ours,
                    t_ours / 1e3,
                    t_base / 1e3,
                    bytes / t_ours * 1e3,
                    bytes / t_base * 1e3,
                );
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Events,
    Emails,
    Orders,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Events, Kind::Emails, Kind::Orders];

    fn name(self) -> &'static str {
        match self {
            Kind::Events => "events",
            Kind::Emails => "emails",
            Kind::Orders => "orders",
        }
    }
}

/// A small deterministic generator (xorshift64*), so every run measures the
/// same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn timestamp(&mut self) -> String {
        format!(
            "2025-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            1 + self.below(12),
            1 + self.below(28),
            self.below(24),
            self.below(60),
            self.below(60)
        )
    }

    fn price(&mut self) -> f64 {
        (self.below(50_000) as f64 + 99.0) / 100.0
    }
}

const FIRST: &[&str] = &[
    "Ada", "Grace", "Linus", "Margaret", "Alan", "Barbara", "Ken", "Frances", "Dennis", "Radia",
];
const LAST: &[&str] = &[
    "Lovelace", "Hopper", "Torvalds", "Hamilton", "Turing", "Liskov", "Thompson", "Allen",
    "Ritchie", "Perlman",
];
const COUNTRIES: &[&str] = &["DK", "DE", "UK", "US", "FR", "JP", "BR", "IN"];

fn person(rng: &mut Rng) -> (String, String) {
    let first = rng.pick(FIRST);
    let last = rng.pick(LAST);
    let email = format!(
        "{}.{}@example.com",
        first.to_lowercase(),
        last.to_lowercase()
    );
    (format!("{first} {last}"), email)
}

/// `{"data": [...], "has_more": true, "next_cursor": "..."}` with `size`
/// records of `kind`.
fn list_response(kind: Kind, size: usize) -> Value {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ size as u64);
    let data: Vec<Value> = (0..size)
        .map(|i| match kind {
            Kind::Events => event(&mut rng, i),
            Kind::Emails => email(&mut rng, i),
            Kind::Orders => order(&mut rng, i),
        })
        .collect();
    json!({
        "data": data,
        "has_more": true,
        "next_cursor": format!("cur_{:016x}", rng.next()),
    })
}

/// Uniform records with nested objects: a tabular array with field groups.
fn event(rng: &mut Rng, i: usize) -> Value {
    let (name, email) = person(rng);
    json!({
        "id": format!("evt_{:08}", i),
        "type": rng.pick(&["user.signup", "user.login", "invoice.paid", "invoice.failed", "repo.push"]),
        "created_at": rng.timestamp(),
        "actor": {"id": rng.below(100_000), "name": name, "email": email},
        "source": {
            "ip": format!("10.{}.{}.{}", rng.below(256), rng.below(256), rng.below(256)),
            "country": rng.pick(COUNTRIES),
        },
        "severity": rng.pick(&["info", "warning", "error"]),
        "duration_ms": rng.below(100_000) as f64 / 10.0,
        "success": rng.below(10) != 0,
    })
}

/// Records with a label list and free text: the expanded list form.
fn email(rng: &mut Rng, i: usize) -> Value {
    let (name, address) = person(rng);
    let labels: Vec<&str> = (0..1 + rng.below(3))
        .map(|_| rng.pick(&["inbox", "work", "important", "travel", "receipts", "later"]))
        .collect();
    json!({
        "id": 100_000 + i,
        "thread_id": format!("t-{:x}", rng.next() >> 20),
        "from": {"name": name, "address": address},
        "subject": rng.pick(&[
            "Re: quarterly report, draft 3",
            "Lunch on Friday?",
            "Your invoice #4821 is ready",
            "Build failed: main (3 errors)",
            "Meeting notes - planning",
        ]),
        "snippet": rng.pick(&[
            "Thanks for the update. I have looked at the numbers and they match.",
            "Can we move it to 12:30? The room is booked until noon.",
            "Please find attached the invoice for last month's usage.",
            "error[E0308]: mismatched types in src/lib.rs",
        ]),
        "received_at": rng.timestamp(),
        "unread": rng.below(3) == 0,
        "labels": labels,
        "size_bytes": 1_000 + rng.below(90_000),
    })
}

/// Records with a nested customer and a line-item table inside each.
fn order(rng: &mut Rng, i: usize) -> Value {
    let (name, email) = person(rng);
    let items: Vec<Value> = (0..1 + rng.below(4))
        .map(|_| {
            json!({
                "sku": format!("SKU-{:05}", rng.below(100_000)),
                "qty": 1 + rng.below(5),
                "price": rng.price(),
            })
        })
        .collect();
    json!({
        "id": 500_000 + i,
        "status": rng.pick(&["pending", "paid", "shipped", "delivered", "refunded"]),
        "customer": {"id": rng.below(50_000), "name": name, "email": email, "country": rng.pick(COUNTRIES)},
        "items": items,
        "total": rng.price(),
        "currency": rng.pick(&["EUR", "USD", "GBP"]),
        "placed_at": rng.timestamp(),
        "note": if rng.below(4) == 0 { Value::Null } else { json!("leave at the door") },
    })
}
