//! Runs the token estimator over one JSON body many times, for instruction
//! counts under callgrind (repeatable where wall-clock time on a shared
//! machine is not).
//!
//! ```text
//! cargo build --release -p terse-tokens --example token_speed
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/examples/token_speed 1000000 20
//! callgrind_annotate /tmp/cg.out | head -30
//! ```
//!
//! Arguments: the body size in bytes (default 1 MB; built from the documents
//! in `tests/corpus/` as the token bench builds it, or `corpus` for the
//! estimator corpus, or a path to a file) and how many rounds to run
//! (default 20). It prints the bytes estimated, so instructions per byte is
//! the `estimate` line of `callgrind_annotate` divided by that.
//!
//! A third argument, `exact`, runs the exact counter (`tokens::exact`)
//! instead, for its instructions per byte on the same texts:
//!
//! ```text
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/examples/token_speed /tmp/docs/nested.json 20 exact
//! ```

use std::hint::black_box;

#[path = "../benches/common/token_inputs.rs"]
mod token_inputs;
use token_inputs::{corpus, json_body, json_documents};

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "1000000".to_owned());
    let rounds: usize = args.next().map_or(20, |r| r.parse().expect("rounds"));
    let exact = args.next().is_some_and(|how| how == "exact");
    let texts = if what == "corpus" {
        corpus()
    } else if let Ok(size) = what.parse::<usize>() {
        vec![json_body(&json_documents(), size)]
    } else {
        vec![std::fs::read(&what).expect("input file")]
    };
    let mut tokens = 0;
    if exact {
        let texts: Vec<String> = texts
            .iter()
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect();
        for _ in 0..rounds {
            for text in &texts {
                tokens += count_exactly(black_box(text));
            }
        }
    } else {
        for _ in 0..rounds {
            for text in &texts {
                tokens += terse_tokens::estimate(black_box(text));
            }
        }
    }
    let bytes: usize = texts.iter().map(Vec::len).sum::<usize>() * rounds;
    let how = if exact {
        "counted exactly"
    } else {
        "estimated"
    };
    println!("{bytes} bytes {how}, {tokens} tokens");
}

#[cfg(feature = "exact-tokens")]
fn count_exactly(text: &str) -> usize {
    terse_tokens::exact(text)
}

#[cfg(not(feature = "exact-tokens"))]
fn count_exactly(_text: &str) -> usize {
    panic!("exact counts need the `exact-tokens` feature")
}
