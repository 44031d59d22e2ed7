//! The bodies the token estimator is measured on, shared by the `tokens`
//! bench and the `token_speed` example so both measure the same bytes.

use std::path::{Path, PathBuf};

/// The files of `dir` that `keep` accepts, read whole, in name order.
pub fn files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<Vec<u8>> {
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

/// The realistic JSON responses of `tests/corpus`.
pub fn json_documents() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    files(&root.join("../../tests/corpus"), |p| {
        p.extension().is_some_and(|e| e == "json")
    })
}

/// The estimator's accuracy corpus, every sample.
pub fn corpus() -> Vec<Vec<u8>> {
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokens"),
        |_| true,
    )
}

/// A JSON array of the realistic responses, repeated until it is `size`
/// bytes long (cut at a document boundary, so it stays one JSON value).
pub fn json_body(documents: &[Vec<u8>], size: usize) -> Vec<u8> {
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
