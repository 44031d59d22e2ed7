//! The user documentation the tests check against what the code does: the
//! README and every page of `docs/`, read as one text, so a figure or a
//! command block is checked wherever it moves between them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `README.md` and then every `docs/*.md` page in name order, each with
/// its path relative to the repository.
pub fn pages() -> Vec<(String, String)> {
    let root = root();
    let mut paths = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("read docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| PathBuf::from("docs").join(path.file_name().expect("a file name")))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(root.join(&path))
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            (path.display().to_string(), text)
        })
        .collect()
}

/// The README and the `docs/` pages as one text, each page starting on a
/// line of its own.
pub fn text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        pages()
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join("\n")
    })
}
