//! The corpus of realistic API responses in `tests/corpus/*.json`.
//!
//! Lists of calendar events, e-mails with many null columns, orders with
//! nested customers, log lines, semi-uniform rows, keyed maps, a paginated
//! envelope and strings that need quoting. Shared by the interop tests, the
//! fuzz seeds and anything else that wants real-looking JSON.

use serde_json::Value;
use std::path::PathBuf;

/// The corpus folder.
pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// One corpus document.
#[derive(Debug, Clone)]
pub struct Document {
    /// File name without `.json`.
    pub name: String,
    /// The JSON text as stored.
    pub text: String,
    /// The parsed value (key order kept).
    pub value: Value,
}

/// Every corpus document, sorted by name.
///
/// ```
/// let docs = terse_tests::corpus::documents();
/// assert!(docs.len() >= 10);
/// assert!(docs.iter().any(|doc| doc.name == "paginated_customers"));
/// ```
pub fn documents() -> Vec<Document> {
    let dir = corpus_dir();
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("cannot read the corpus at {}: {err}", dir.display()));
    let mut documents: Vec<Document> = entries
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
            let value = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{} is not JSON: {err}", path.display()));
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            Document { name, text, value }
        })
        .collect();
    documents.sort_by(|a, b| a.name.cmp(&b.name));
    documents
}
