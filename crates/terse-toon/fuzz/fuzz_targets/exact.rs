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

mod same_value;
use same_value::same;

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
                // An integer written with an exponent (`44444444444444444e2`)
                // is read as the nearest float, so it is inexact; written out
                // (`4444444444444444400`) it is an integer `serde_json` holds
                // digit for digit, the same value kept exactly.
                let integer = canonical.parse::<u64>().is_ok() || canonical.parse::<i64>().is_ok();
                if exact || integer {
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
