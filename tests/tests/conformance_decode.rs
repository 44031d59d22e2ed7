//! Every official TOON decode fixture: valid documents decode to the expected
//! value, `shouldError` documents are rejected.

use terse_tests::fixtures;

/// The number of decode fixtures in the official v4.1.1 set.
const DECODE_FIXTURES: usize = 359;

#[test]
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
            let problem = match (&result, fixture.should_error) {
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
