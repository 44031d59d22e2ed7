//! Loader for the official TOON conformance fixtures.
//!
//! The fixtures are read at run time from `$TOON_SPEC_FIXTURES`, or else from
//! `../shared/toon-spec/fixtures` beside the checkout. They are not copied into
//! the repository. A missing folder is a missing prerequisite
//! ([`crate::prerequisite`]): a one-line skip on a developer's machine, a
//! failure under CI, never a silent pass.

use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use terse_toon::{DecodeOptions, Delimiter, EncodeOptions};

/// One fixture file: a category and its tests.
#[derive(Debug, Deserialize)]
pub struct FixtureFile {
    /// `encode` or `decode`.
    pub category: String,
    /// The tests in file order.
    pub tests: Vec<Fixture>,
}

/// One conformance test.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fixture {
    /// What the test checks.
    pub name: String,
    /// JSON value for encode tests, TOON text for decode tests.
    pub input: Value,
    /// TOON text for encode tests, JSON value for decode tests.
    pub expected: Value,
    /// The test expects an error.
    #[serde(default)]
    pub should_error: bool,
    /// Encoder or decoder options.
    #[serde(default)]
    pub options: FixtureOptions,
}

/// Options a fixture may set.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixtureOptions {
    /// `","`, `"\t"` or `"|"`.
    pub delimiter: Option<String>,
    /// Spaces per indentation level.
    pub indent_size: Option<usize>,
    /// Strict decoding.
    pub strict: Option<bool>,
}

impl FixtureOptions {
    /// The encoder options this fixture asks for.
    pub fn encode_options(&self) -> EncodeOptions {
        let defaults = EncodeOptions::default();
        let delimiter = match self.delimiter.as_deref() {
            None | Some(",") => Delimiter::Comma,
            Some("\t") => Delimiter::Tab,
            Some("|") => Delimiter::Pipe,
            Some(other) => panic!("unknown fixture delimiter {other:?}"),
        };
        EncodeOptions::new()
            .with_delimiter(delimiter)
            .with_indent_size(self.indent_size.unwrap_or(defaults.indent_size))
    }

    /// The decoder options this fixture asks for.
    pub fn decode_options(&self) -> DecodeOptions {
        let defaults = DecodeOptions::default();
        DecodeOptions::new()
            .with_indent_size(self.indent_size.unwrap_or(defaults.indent_size))
            .with_strict(self.strict.unwrap_or(defaults.strict))
    }
}

/// The fixture folder: `$TOON_SPEC_FIXTURES`, else `../shared/toon-spec/fixtures`
/// beside the checkout.
pub fn fixtures_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TOON_SPEC_FIXTURES") {
        return PathBuf::from(dir);
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    workspace.join("../shared/toon-spec/fixtures")
}

/// Every fixture file of one category (`"encode"` or `"decode"`), with its
/// file name, sorted by name; `None` (after reporting the missing
/// prerequisite) when the folder is missing or holds no fixture file.
pub fn load(category: &str) -> Option<Vec<(String, FixtureFile)>> {
    let dir = fixtures_dir().join(category);
    let missing = |why: String| {
        crate::prerequisite::missing(&format!(
            "TOON fixtures not found at {} ({why}); set TOON_SPEC_FIXTURES or place \
             toon-spec beside the checkout (../shared/toon-spec)",
            dir.display()
        ))
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(err) => {
            missing(err.to_string());
            return None;
        }
    };
    let mut files: Vec<(String, FixtureFile)> = entries
        .map(|entry| entry.expect("readable fixture folder").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable fixture file");
            let file: FixtureFile = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            assert_eq!(file.category, category, "{}", path.display());
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, file)
        })
        .collect();
    if files.is_empty() {
        missing("no fixture files".to_owned());
        return None;
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Some(files)
}
