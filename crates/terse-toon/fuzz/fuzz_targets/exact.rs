//! Fuzz target: numbers kept with their digits.
//!
//! Arbitrary bytes as TOON: `decode_to_json` never panics, writes JSON
//! that `serde_json` reads, and that JSON holds the same data as `decode`'s
//! value (numbers compared as `serde_json` reads them, so the exact digits
//! of a large number and its nearest float agree). As JSON text:
//! `has_inexact_number` never panics, and each number token it can see
//! has an exact canonical form that reads back as the same float.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The spec's equality of numbers (§2): by value, whatever `serde_json`'s
/// representation (the exact digits of a long decimal read back as a
/// float, its nearest float may have been an integer).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    let options = terse_toon::DecodeOptions::default();
    let decoded = terse_toon::decode_slice(data, &options);
    match terse_toon::decode_to_json(data, &options, 1 << 20) {
        Ok(json) => {
            let got: Value = serde_json::from_slice(&json).expect("decode_to_json writes JSON");
            let want = decoded.expect("decode_to_json took what decode refuses");
            assert!(
                same(&got, &want),
                "decode_to_json and decode disagree: {got} {want}"
            );
        }
        Err(terse_toon::DecodeToJsonError::Decode(_)) => {
            assert!(decoded.is_err(), "decode_to_json refused what decode takes");
        }
        Err(_) => {}
    }
    let _ = terse_toon::has_inexact_number(data);
    if let Ok(text) = std::str::from_utf8(data) {
        for token in text.split(|c: char| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E')) {
            if token.is_empty() || serde_json::from_str::<serde_json::Number>(token).is_err() {
                continue;
            }
            let exact = terse_toon::number_is_exact(token);
            if let Some(canonical) = terse_toon::exact_canonical(token) {
                let a: f64 = canonical.parse().expect("canonical text is a number");
                let b: f64 = token.parse().expect("a JSON number");
                assert_eq!(a, b, "{token} -> {canonical}");
                if exact {
                    continue;
                }
                assert!(
                    !terse_toon::number_is_exact(&canonical),
                    "{token} -> {canonical}: inexact once, exact after"
                );
            }
        }
    }
});
