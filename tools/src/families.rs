//! The estimator's validation families: disjoint kinds of text, so that a
//! fit can be validated on a kind it never saw.
//!
//! Every family is built from files in the repository, so the set is
//! reproducible from a checkout: the generated corpus
//! (`crates/terse-tokens/tests/data/tokens`, from `token_corpus`), the
//! hand-collected texts of `tokens_heldout`, and the realistic responses of
//! `tests/corpus` (as JSON and as TOON).

use std::path::{Path, PathBuf};

/// One text and the family it belongs to.
pub struct Sample {
    /// The family, one of [`FAMILIES`].
    pub family: &'static str,
    /// Where it came from.
    pub name: String,
    /// The text.
    pub text: String,
}

/// The families, in report order.
pub const FAMILIES: [&str; 9] = [
    "api-json",
    "api-responses",
    "toon",
    "text-records",
    "prose",
    "cjk",
    "code-markup",
    "urls-ids",
    "emoji-chat",
];

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The README and every `docs/*.md` page (in name order) as one text: the
/// figures the tests check may sit on any of them.
pub fn documentation() -> String {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    std::iter::once(root().join("README.md"))
        .chain(pages)
        .map(|path| {
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every sample of every family, in a fixed order.
pub fn samples() -> Vec<Sample> {
    let data = root().join("crates/terse-tokens/tests/data");
    let mut out = Vec::new();
    for (name, text) in read_dir(&data.join("tokens")) {
        let family = match name.split('-').nth(1) {
            Some("toon") => "toon",
            Some("lines") => "text-records",
            _ => "api-json",
        };
        out.push(Sample { family, name, text });
    }
    for (name, text) in read_dir(&data.join("tokens_heldout")) {
        let family = heldout_family(&name);
        out.push(Sample { family, name, text });
    }
    for (name, text) in read_dir(&root().join("tests/corpus")) {
        if !name.ends_with(".json") {
            continue;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let toon = terse_toon::encode(&value, &terse_toon::EncodeOptions::default());
        out.push(Sample {
            family: "api-responses",
            name: format!("corpus/{name}"),
            text: value.to_string(),
        });
        out.push(Sample {
            family: "toon",
            name: format!("corpus/{name}.toon"),
            text: toon,
        });
    }
    out
}

/// The family of a file of `tokens_heldout`, by its name.
fn heldout_family(name: &str) -> &'static str {
    if name.starts_with("prose-zh") || name.starts_with("prose-ja") || name.starts_with("prose-ko")
    {
        "cjk"
    } else if name.starts_with("prose-") {
        "prose"
    } else if name.starts_with("api-") {
        "api-responses"
    } else if name.starts_with("urls")
        || name.starts_with("ids")
        || name.starts_with("numbers")
        || name.starts_with("log")
    {
        "urls-ids"
    } else if name.starts_with("emoji") || name.starts_with("mixed-chat") {
        "emoji-chat"
    } else {
        "code-markup"
    }
}

/// The UTF-8 files of `dir`, by name.
fn read_dir(dir: &Path) -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::read_to_string(&path).ok()?))
        })
        .collect()
}

/// What a family is validated on: each of its texts whole, pieces of them
/// from about 20 tokens up, and one long document of all of them repeated
/// past a megabyte.
pub fn validation_texts<'a>(samples: &[&'a Sample]) -> Vec<std::borrow::Cow<'a, str>> {
    let mut out: Vec<std::borrow::Cow<'a, str>> = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for sample in samples {
        out.push(sample.text.as_str().into());
        for piece in crate::fit::pieces_between(&sample.text, &mut state, 80, 600) {
            if piece.len() >= 80 {
                out.push(piece.into());
            }
        }
    }
    let mut long = String::new();
    while long.len() < 1 << 20 && !samples.is_empty() {
        for sample in samples {
            long.push_str(&sample.text);
            long.push('\n');
        }
    }
    if !long.is_empty() {
        out.push(long.into());
    }
    out
}

/// A family's error when the weights are fitted on all the others.
pub struct CrossFamily {
    /// The family left out of the fit.
    pub family: &'static str,
    /// The relative error on each of its validation texts.
    pub errors: Vec<f64>,
}

/// Fits the weights without each family in turn (ridge strength `ridge`)
/// and measures them on it: leave one family out.
pub fn cross_family(ridge: f64) -> Result<Vec<CrossFamily>, Box<dyn std::error::Error>> {
    use crate::fit::{fit, relative_error, rows};
    let all = samples();
    let mut out = Vec::new();
    for family in FAMILIES {
        let training = rows(
            all.iter()
                .filter(|s| s.family != family)
                .map(|s| s.text.as_str()),
        );
        let (fixed, _) = fit(&training, ridge)?;
        let held_out: Vec<&Sample> = all.iter().filter(|s| s.family == family).collect();
        let errors = validation_texts(&held_out)
            .iter()
            .map(|text| relative_error(&fixed, text))
            .collect();
        out.push(CrossFamily { family, errors });
    }
    Ok(out)
}
