//! Every official TOON encode fixture, through both encoder entry points:
//! `encode` on the fixture's JSON value and `encode_json` on its JSON text.

use terse_tests::fixtures;

/// The number of encode fixtures in the v4.1.1 set.
const ENCODE_FIXTURES: usize = 179;

#[test]
#[ignore = "needs the TOON spec fixtures (../shared/toon-spec or TOON_SPEC_FIXTURES); run with --include-ignored (.ci/run does)"]
fn all_encode_fixtures_pass() {
    let mut run = 0;
    let mut failures = Vec::new();
    let Some(files) = fixtures::load("encode") else {
        return;
    };
    for (file, fixture_file) in files {
        for fixture in &fixture_file.tests {
            run += 1;
            let options = fixture.options.encode_options();
            let label = format!("{file}: {}", fixture.name);
            if fixture.should_error {
                failures.push(format!(
                    "{label}: expects an error, which no encode input can cause"
                ));
                continue;
            }
            let Some(expected) = fixture.expected.as_str() else {
                failures.push(format!("{label}: expected output is not a string"));
                continue;
            };

            let from_value = terse_toon::encode(&fixture.input, &options);
            if from_value != expected {
                failures.push(format!(
                    "{label} (encode)\n  expected: {expected:?}\n  actual:   {from_value:?}"
                ));
            }

            let json = serde_json::to_string(&fixture.input).expect("fixture input serializes");
            match terse_toon::encode_json(&json, &options) {
                Ok(from_text) if from_text == expected => {}
                Ok(from_text) => failures.push(format!(
                    "{label} (encode_json)\n  expected: {expected:?}\n  actual:   {from_text:?}"
                )),
                Err(err) => failures.push(format!("{label} (encode_json): {err}")),
            }
        }
    }
    for failure in &failures {
        eprintln!("FAILED {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} of {run} encode fixtures failed",
        failures.len()
    );
    assert_eq!(run, ENCODE_FIXTURES, "number of encode fixtures run");
}
