//! Every official TOON decode fixture: valid documents decode to the expected
//! value, `shouldError` documents are rejected.

use terse_tests::fixtures;

/// The number of decode fixtures in the official v4.1.1 set.
const DECODE_FIXTURES: usize = 359;

/// v4.1.1 fixtures that a later rule of the spec's changelog overturns; the
/// changelog is the later word, so these expect an error. Each reads a
/// malformed array header in non-strict mode as a key-value line. 4.3 made
/// that fall-through optional in non-strict mode, and the unreleased entry
/// after 4.3 drops it: "Non-strict mode keeps only the five recoveries of
/// §14.4 ... every other condition errors in both modes, such as malformed
/// headers", with "Non-strict cases for dropped recoveries now expect an
/// error". The reference implementation 4.4.0 errors on them too.
const OVERTURNED_BY_CHANGELOG: [(&str, &str); 6] = [
    (
        "delimiters.json",
        "falls through to a key-value line on a header delimiter mismatch",
    ),
    (
        "objects.json",
        "treats extra brackets after valid array segment as literal key (non-strict)",
    ),
    (
        "objects.json",
        "treats bracket segment without a length as literal key (non-strict)",
    ),
    (
        "objects.json",
        "treats non-integer bracket content as literal key (non-strict)",
    ),
    (
        "objects.json",
        "treats text between bracket segment and colon as literal key (non-strict)",
    ),
    (
        "objects.json",
        "falls through to a key-value line when whitespace precedes the bracket segment",
    ),
];

#[test]
#[ignore = "needs the TOON spec fixtures (../shared/toon-spec or TOON_SPEC_FIXTURES); run with --include-ignored (.ci/run does)"]
fn every_decode_fixture_passes() {
    let mut run = 0;
    let mut failures = Vec::new();
    let Some(files) = fixtures::load("decode") else {
        return;
    };
    for (file, fixture_file) in files {
        for fixture in &fixture_file.tests {
            run += 1;
            let input = fixture
                .input
                .as_str()
                .unwrap_or_else(|| panic!("{file}: {}: input is not a string", fixture.name));
            let options = fixture.options.decode_options();
            let result = terse_toon::decode(input, &options);
            let should_error = fixture.should_error
                || OVERTURNED_BY_CHANGELOG.contains(&(file.as_str(), fixture.name.as_str()));
            let problem = match (&result, should_error) {
                (Ok(value), false) if *value == fixture.expected => None,
                (Ok(value), false) => Some(format!(
                    "expected {}\n    got      {value}",
                    fixture.expected
                )),
                (Err(err), false) => Some(format!("unexpected error: {err}")),
                (Ok(value), true) => Some(format!("expected an error, got {value}")),
                (Err(err), true) => {
                    (err.line() == 0 || err.column() == 0 || err.message().is_empty())
                        .then(|| format!("error without a position or message: {err:?}"))
                }
            };
            if let Some(problem) = problem {
                failures.push(format!(
                    "{file}: {}\n    input    {input:?}\n    {problem}",
                    fixture.name
                ));
            }
        }
    }
    for failure in &failures {
        eprintln!("FAIL {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} of {run} decode fixtures failed",
        failures.len()
    );
    assert_eq!(run, DECODE_FIXTURES, "decode fixtures run");
}
