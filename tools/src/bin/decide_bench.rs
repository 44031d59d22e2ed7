//! How long the smart fallback's near-tie decision takes on one document,
//! next to counting each text whole with `tiktoken` (the exact counter's
//! way before it found whitespace pieces itself), in the same run.
//!
//! ```text
//! python3 benches/load/documents.py /tmp/docs
//! cargo run --release -p terse-tools --bin decide_bench -- /tmp/docs/nested.json
//! ```
//!
//! The document's TOON is rendered with `terse-toon`'s defaults. The
//! rounds alternate the two ways, so a busy machine slows both alike; the
//! fastest round of each is printed (the one least disturbed by other
//! work on the machine), and their ratio.

use std::hint::black_box;
use std::time::Instant;

use terse_tokens::model::has_long_run;
use terse_tokens::{Counting, choose, estimates, exact};
use terse_toon::EncodeOptions;

/// One way of counting, timed.
type Counted<'a> = Box<dyn Fn() -> usize + 'a>;

/// Rounds of each measurement, and calls timed per round.
const ROUNDS: usize = 201;
const CALLS: usize = 4;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: decide_bench DOCUMENT.json");
        std::process::exit(2);
    };
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: serde_json::Value = serde_json::from_str(&json).expect("a JSON document");
    let toon = terse_toon::encode(&value, &EncodeOptions::default());
    let tiktoken = tiktoken::get_encoding("o200k_base").expect("o200k_base");
    // The exact counter as it was: the test for long runs (false on API
    // JSON and TOON), then `tiktoken` over the whole text.
    let whole = |text: &str| {
        assert!(
            !has_long_run(text.as_bytes()),
            "a text for the linear encoder"
        );
        tiktoken.count(text)
    };
    assert_eq!(exact(&json), whole(&json));
    assert_eq!(exact(&toon), whole(&toon));

    let (json_estimate, toon_estimate) = estimates(&json, &toon);
    println!(
        "JSON {} bytes: {} tokens (estimate {json_estimate}); TOON {} bytes: {} tokens (estimate {toon_estimate})",
        json.len(),
        exact(&json),
        toon.len(),
        exact(&toon),
    );
    let choice = choose(&json, &toon, Counting::Estimate);
    println!("{choice:?}");

    let time = |f: &dyn Fn() -> usize| {
        let start = Instant::now();
        for _ in 0..CALLS {
            black_box(f());
        }
        start.elapsed().as_secs_f64() * 1e6 / CALLS as f64
    };
    let pairs: [(&str, Counted, Counted); 3] = [
        (
            "JSON",
            Box::new(|| exact(black_box(&json))),
            Box::new(|| whole(black_box(&json))),
        ),
        (
            "TOON",
            Box::new(|| exact(black_box(&toon))),
            Box::new(|| whole(black_box(&toon))),
        ),
        (
            "choose",
            Box::new(|| choose(black_box(&json), black_box(&toon), Counting::Estimate).json_tokens),
            // The decision as it was: the estimates, then, for a near tie
            // (the band is the same), both texts counted whole.
            Box::new(|| {
                let (j, t) = estimates(black_box(&json), black_box(&toon));
                if choice.decided_exactly {
                    j + t + whole(&json) + whole(&toon)
                } else {
                    j + t
                }
            }),
        ),
    ];
    println!(
        "{:<8} {:>10} {:>14} {:>7}",
        "what", "now µs", "whole µs", "ratio"
    );
    for (name, now, before) in &pairs {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            a.push(time(now.as_ref()));
            b.push(time(before.as_ref()));
        }
        let (a, b) = (fastest(a), fastest(b));
        println!("{name:<8} {a:>10.1} {b:>14.1} {:>6.2}x", b / a);
    }
}

fn fastest(xs: Vec<f64>) -> f64 {
    xs.into_iter().fold(f64::INFINITY, f64::min)
}
