//! Runs the parts of the smart fallback's choice on one JSON body, for
//! instruction counts under callgrind: what weighing the JSON minified
//! costs a `?format=toon` request beside the rewrite itself.
//!
//! ```text
//! cargo build --release -p tower-terse --example decision_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/examples/decision_cost body.json minify 10
//! ```
//!
//! Arguments: a JSON file, what to run (`read`: nothing but reading it;
//! `minify`: `minify_json`, which checks every byte it drops, as it must
//! on text that may not be JSON (the rendering minifies text its parser has
//! read, without that check: see its share of `toon` under
//! `callgrind_annotate --inclusive=yes`); `estimate`: the estimate of the
//! body as read;
//! `estimate-minified`: minifying it and estimating that; `toon`: the
//! whole rendering of a `?format=toon` request, `render_json`; `exact`: the
//! exact o200k_base count of the file's text, which need not be JSON) and
//! how many
//! rounds (default 10). Instructions per round are the total less `read`'s,
//! divided by the rounds.

use std::hint::black_box;

use tower_terse::format::{minify_json, render_json};
use tower_terse::{Format, tokens};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a JSON file");
    let what = args.next().unwrap_or_else(|| "read".to_owned());
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let body = std::fs::read_to_string(&path).expect("a UTF-8 file");
    if what == "exact" {
        println!("{}", tokens::exact(&body));
        return;
    }
    let mut out = 0usize;
    for _ in 0..rounds {
        let body = black_box(body.as_str());
        out = out.wrapping_add(match what.as_str() {
            "read" => body.len(),
            "minify" => minify_json(body).len(),
            "estimate" => tokens::estimate(body.as_bytes()),
            "estimate-minified" => tokens::estimate(minify_json(body).as_bytes()),
            "toon" => render_json(body, Format::Toon).map_or(0, |text| text.len()),
            other => panic!("unknown: {other}"),
        });
    }
    println!("{what} {} bytes x {rounds}: {out}", body.len());
}
