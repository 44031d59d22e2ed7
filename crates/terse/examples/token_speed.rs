//! Runs the token estimator over one JSON body many times, for instruction
//! counts under callgrind (repeatable where wall-clock time on a shared
//! machine is not).
//!
//! ```text
//! cargo build --release -p terse --example token_speed
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

use std::hint::black_box;
use std::path::{Path, PathBuf};

fn files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| keep(p))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read(p).expect("sample"))
        .collect()
}

/// The same body as the token bench's `json_*` inputs.
fn json_body(documents: &[Vec<u8>], size: usize) -> Vec<u8> {
    let mut body = b"[".to_vec();
    for document in documents.iter().cycle() {
        if body.len() + document.len() + 2 > size && body.len() > 1 {
            break;
        }
        if body.len() > 1 {
            body.push(b',');
        }
        body.extend_from_slice(document);
    }
    body.push(b']');
    body
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "1000000".to_owned());
    let rounds: usize = args.next().map_or(20, |r| r.parse().expect("rounds"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let texts = if what == "corpus" {
        files(&root.join("tests/data/tokens"), |_| true)
    } else if let Ok(size) = what.parse::<usize>() {
        let documents = files(&root.join("../../tests/corpus"), |p| {
            p.extension().is_some_and(|e| e == "json")
        });
        vec![json_body(&documents, size)]
    } else {
        vec![std::fs::read(&what).expect("input file")]
    };
    let mut tokens = 0;
    for _ in 0..rounds {
        for text in &texts {
            tokens += terse::tokens::estimate(black_box(text));
        }
    }
    let bytes: usize = texts.iter().map(Vec::len).sum::<usize>() * rounds;
    println!("{bytes} bytes estimated, {tokens} tokens");
}
