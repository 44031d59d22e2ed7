//! Differential test against the reference TOON implementation
//! (`@toon-format/toon` 4.4.0 under Node.js).
//!
//! Every run encodes the documents of the regression file
//! (`reference_differential.regressions.jsonl`, one JSON document a line)
//! and 2 000 random API-shaped documents (`terse_tests::api_values`) with
//! both encoders, for each delimiter, and checks that the texts are byte
//! for byte the same and that each side decodes the other's text back to
//! the document (rows of a table in the header's key order). One node
//! process serves the whole run.
//!
//! A run prints its seed when a case fails and appends the failing
//! documents to the regression file, which is replayed first from then on;
//! `TOON_DIFF_SEED=<seed>` replays a run. Without node, npm or the registry
//! the test prints one line and passes outside CI, and fails under CI.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use terse_tests::api_values;
use terse_tests::reference::{CaseResult, DELIMITERS, Outcome, Reference};
use terse_tests::values::difference_in_any_key_order;
use terse_toon::{DecodeOptions, Delimiter, EncodeOptions};

const RANDOM_DOCUMENTS: usize = 2_000;

fn regressions_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference_differential.regressions.jsonl")
}

/// The kept regression documents, in file order.
fn regressions() -> Vec<Value> {
    let path = regressions_path();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|err| panic!("{}: not a JSON line: {err}", path.display()))
        })
        .collect()
}

/// The run's seed: `TOON_DIFF_SEED`, or else one from the clock.
fn seed() -> u64 {
    match std::env::var("TOON_DIFF_SEED") {
        Ok(text) => text.trim().parse().expect("TOON_DIFF_SEED is a u64"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64),
    }
}

/// `count` documents drawn from the API-shaped strategy with `seed`.
fn random_documents(seed: u64, count: usize) -> Vec<Value> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = api_values::document();
    (0..count)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the strategy draws a document")
                .current()
        })
        .collect()
}

fn options(delimiter: Delimiter) -> EncodeOptions {
    EncodeOptions::new().with_delimiter(delimiter)
}

/// Every problem with one document, for each delimiter.
fn problems(doc: &Value, ours: &BTreeMap<&str, String>, theirs: &CaseResult) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, _) in DELIMITERS {
        let our_text = &ours[key];
        match &theirs.encoded[key] {
            Outcome::Ok(Value::String(their_text)) => {
                if their_text != our_text {
                    problems.push(format!(
                        "{key}: encodings differ\n    ours      {our_text:?}\n    reference {their_text:?}"
                    ));
                }
                match terse_toon::decode(their_text, &DecodeOptions::default()) {
                    Ok(value) => {
                        if let Some(diff) = difference_in_any_key_order(&value, doc) {
                            problems.push(format!("{key}: we decode the reference's text {diff}"));
                        }
                    }
                    Err(err) => problems.push(format!(
                        "{key}: we cannot decode the reference's text: {err}"
                    )),
                }
            }
            other => problems.push(format!(
                "{key}: the reference could not encode it: {other:?}"
            )),
        }
        match &theirs.decoded[key] {
            Outcome::Ok(value) => {
                if let Some(diff) = difference_in_any_key_order(value, doc) {
                    problems.push(format!("{key}: the reference decodes our text {diff}"));
                }
            }
            Outcome::Error(err) => problems.push(format!(
                "{key}: the reference cannot decode our text: {err}"
            )),
        }
    }
    problems
}

#[test]
#[ignore = "needs node and npm with registry access; run with --include-ignored (.ci/run does)"]
fn our_codec_and_the_reference_agree_on_random_documents() {
    let seed = seed();
    let kept = regressions();
    let kept_count = kept.len();
    let mut docs = kept;
    docs.extend(random_documents(seed, RANDOM_DOCUMENTS));

    let ours: Vec<BTreeMap<&str, String>> = docs
        .iter()
        .map(|doc| {
            let json = doc.to_string();
            DELIMITERS
                .iter()
                .map(|&(key, delimiter)| {
                    let text = terse_toon::encode(doc, &options(delimiter));
                    let from_json = terse_toon::encode_json(&json, &options(delimiter));
                    assert_eq!(
                        from_json.ok().as_ref(),
                        Some(&text),
                        "encode_json of {json}"
                    );
                    (key, text)
                })
                .collect()
        })
        .collect();

    let Some(reference) = Reference::install("differential") else {
        return;
    };
    let request = json!({
        "cases": docs.iter().zip(&ours).map(|(doc, ours)| json!({"value": doc, "ours": ours}))
            .collect::<Vec<_>>(),
    });
    let results = reference.round_trips(&request, docs.len());

    let mut failures = Vec::new();
    let mut new_regressions = Vec::new();
    for (index, ((doc, ours), theirs)) in docs.iter().zip(&ours).zip(&results).enumerate() {
        let problems = problems(doc, ours, theirs);
        if problems.is_empty() {
            continue;
        }
        let origin = if index < kept_count {
            "regression"
        } else {
            "random"
        };
        failures.push(format!(
            "{origin} document {index}: {doc}\n  {}",
            problems.join("\n  ")
        ));
        if index >= kept_count {
            new_regressions.push(doc.to_string());
        }
    }
    if !new_regressions.is_empty() {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(regressions_path())
            .expect("open the regression file");
        for line in &new_regressions {
            writeln!(file, "{line}").expect("append a regression");
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed} (replay with TOON_DIFF_SEED={seed}): {} of {} documents differ from the \
         reference; {} new ones appended to {}\n{}",
        failures.len(),
        docs.len(),
        new_regressions.len(),
        regressions_path().display(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
