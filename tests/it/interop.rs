//! Interoperability with the reference TOON implementation.
//!
//! Installs `@toon-format/toon` from the npm registry into a temporary folder
//! and, over every document of `tests/corpus`, checks for each delimiter that
//! our encoder writes byte for byte what the reference writes, that we decode
//! the reference's output to the original value, and that the reference
//! decodes ours to the original value. One node process handles the whole
//! corpus. Without node, npm or the registry each test prints one line and
//! passes on a developer's machine, and fails under CI
//! (`terse_tests::prerequisite`).

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use terse_tests::corpus::{self, Document};
use terse_tests::reference::{CaseResult, DELIMITERS, Outcome, Reference, ours};
use terse_tests::values::difference;
use terse_toon::DecodeOptions;

/// One corpus document with our encodings and the reference's answers.
struct Case {
    doc: Document,
    ours: BTreeMap<&'static str, String>,
    reference: CaseResult,
}

/// The reference is installed and run once for all the tests in this file;
/// `None` when a prerequisite is missing (reported once).
fn cases() -> Option<&'static [Case]> {
    static CASES: OnceLock<Option<Vec<Case>>> = OnceLock::new();
    CASES.get_or_init(run_reference).as_deref()
}

fn run_reference() -> Option<Vec<Case>> {
    let docs = corpus::documents();
    assert!(
        docs.len() >= 10,
        "expected the corpus in {}, found {} documents",
        corpus::corpus_dir().display(),
        docs.len()
    );
    let ours: Vec<BTreeMap<&'static str, String>> =
        docs.iter().map(|doc| ours(&doc.value)).collect();
    let request = json!({
        "cases": docs.iter().zip(&ours).map(|(doc, ours)| json!({
            "name": doc.name,
            "value": doc.value,
            "ours": ours,
        })).collect::<Vec<_>>(),
    });

    let reference = Reference::install("interop")?;
    let results = reference.round_trips(&request, docs.len());

    let cases = docs
        .into_iter()
        .zip(ours)
        .zip(results)
        .map(|((doc, ours), reference)| {
            assert_eq!(
                reference.name.as_deref(),
                Some(doc.name.as_str()),
                "answers in request order"
            );
            Case {
                doc,
                ours,
                reference,
            }
        })
        .collect();
    Some(cases)
}

/// Where two texts first differ, line by line.
fn first_line_difference(ours: &str, theirs: &str) -> String {
    let mut ours_lines = ours.split('\n');
    let mut their_lines = theirs.split('\n');
    for line in 1.. {
        match (ours_lines.next(), their_lines.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (a, b) => return format!("line {line}: ours {a:?}, reference {b:?}"),
        }
    }
    unreachable!("the loop returns at the first difference")
}

fn report(failures: &[String], what: &str) {
    assert!(
        failures.is_empty(),
        "{} of {} checks failed ({what}):\n{}",
        failures.len(),
        cases().map_or(0, <[Case]>::len) * DELIMITERS.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "needs node and npm with registry access; run with --include-ignored (.ci/run does)"]
fn our_encoder_matches_the_reference_byte_for_byte() {
    let mut failures = Vec::new();
    let Some(cases) = cases() else {
        return;
    };
    for case in cases {
        for (key, _) in DELIMITERS {
            let ours = &case.ours[key];
            match &case.reference.encoded[key] {
                Outcome::Ok(Value::String(theirs)) if theirs == ours => {}
                Outcome::Ok(Value::String(theirs)) => failures.push(format!(
                    "{} ({key}): {}",
                    case.doc.name,
                    first_line_difference(ours, theirs)
                )),
                other => failures.push(format!(
                    "{} ({key}): the reference could not encode it: {other:?}",
                    case.doc.name
                )),
            }
        }
    }
    report(&failures, "encoding differs from the reference");
}

#[test]
#[ignore = "needs node and npm with registry access; run with --include-ignored (.ci/run does)"]
fn we_decode_the_reference_output_to_the_original() {
    let mut failures = Vec::new();
    let Some(cases) = cases() else {
        return;
    };
    for case in cases {
        for (key, _) in DELIMITERS {
            let Outcome::Ok(Value::String(theirs)) = &case.reference.encoded[key] else {
                failures.push(format!("{} ({key}): no reference output", case.doc.name));
                continue;
            };
            match terse_toon::decode(theirs, &DecodeOptions::default()) {
                Ok(value) => {
                    if let Some(diff) = difference(&value, &case.doc.value) {
                        failures.push(format!("{} ({key}): {diff}", case.doc.name));
                    }
                }
                Err(err) => failures.push(format!("{} ({key}): {err}", case.doc.name)),
            }
        }
    }
    report(&failures, "decoding the reference's TOON");
}

#[test]
#[ignore = "needs node and npm with registry access; run with --include-ignored (.ci/run does)"]
fn the_reference_decodes_our_output_to_the_original() {
    let mut failures = Vec::new();
    let Some(cases) = cases() else {
        return;
    };
    for case in cases {
        for (key, _) in DELIMITERS {
            match &case.reference.decoded[key] {
                Outcome::Ok(value) => {
                    if let Some(diff) = difference(value, &case.doc.value) {
                        failures.push(format!("{} ({key}): {diff}", case.doc.name));
                    }
                }
                Outcome::Error(err) => failures.push(format!(
                    "{} ({key}): the reference says {err}",
                    case.doc.name
                )),
            }
        }
    }
    report(&failures, "the reference decoding our TOON");
}

/// The corpus is only worth comparing if it reaches every part of the format.
#[test]
#[ignore = "needs node and npm with registry access; run with --include-ignored (.ci/run does)"]
fn the_corpus_covers_the_shapes_of_toon() {
    let Some(cases) = cases() else {
        return;
    };
    let all: String = cases
        .iter()
        .filter_map(|case| match &case.reference.encoded["comma"] {
            Outcome::Ok(Value::String(text)) => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let has = |needle: &str| all.contains(needle);
    assert!(has("]{"), "a tabular array");
    assert!(
        all.lines()
            .any(|line| line.contains("]{") && line.matches('{').count() > 1),
        "a tabular array with a nested field group"
    );
    assert!(has(":]{"), "a keyed tabular object");
    assert!(has("\n  - "), "a list-form array");
    assert!(has("- [") || has("  - ["), "an array of arrays");
    assert!(has(": []"), "an empty array");
    assert!(has("\\n") && has("\\\""), "escaped strings");
    assert!(has("\"-"), "quoted strings with a leading hyphen");
    assert!(has("null"), "nulls");
    assert!(
        all.chars().any(|c| c as u32 > 0xFFFF),
        "characters outside the BMP"
    );
}
