//! Fuzz target: the TOON decoder on arbitrary bytes.
//!
//! Decoding must never panic, whatever the bytes and options. When a document
//! decodes, our own encoding of the result must decode back to the same value
//! under the spec's equality (§2): key order may change only where a table
//! writes its rows in the header's field order (§9.3, §9.5). So the value is
//! compared with key order aside, and the order is held by encoding what came
//! back: that must give our text again, byte for byte.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Number, Value};
use terse_toon::{DecodeOptions, Delimiter, EncodeOptions};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the options so that every mode is explored.
    let (choice, input) = match data.split_first() {
        Some((first, rest)) => (*first, rest),
        None => (0, data),
    };
    let indent_size = if choice & 1 == 0 { 2 } else { 4 };
    let strict = choice & 2 == 0;
    let delimiter = match (choice >> 2) % 3 {
        0 => Delimiter::Comma,
        1 => Delimiter::Tab,
        _ => Delimiter::Pipe,
    };

    let Ok(value) = terse_toon::decode_slice(
        input,
        &DecodeOptions::new()
            .with_indent_size(indent_size)
            .with_strict(strict),
    ) else {
        return;
    };
    let text = terse_toon::encode(
        &value,
        &EncodeOptions::new()
            .with_delimiter(delimiter)
            .with_indent_size(indent_size),
    );
    let again = terse_toon::decode(
        &text,
        &DecodeOptions::new()
            .with_indent_size(indent_size)
            .with_strict(true),
    )
    .unwrap_or_else(|err| panic!("our own output does not decode: {err}\n{text}"));
    assert!(
        same(&again, &value),
        "round trip changed the value:\n{value}\n{again}\n{text}"
    );
    let text_again = terse_toon::encode(
        &again,
        &EncodeOptions::new()
            .with_delimiter(delimiter)
            .with_indent_size(indent_size),
    );
    assert_eq!(text_again, text, "encoding what came back changed the text");
});

/// Whether `actual` is `expected`, objects compared by their keys in any
/// order, numbers by value: TOON writes the float `1.0` as `1` and
/// `2.1470551995252997e18` as `2147055199525299700`, so a float may come
/// back as an integer that reads as the same double. An integer must never
/// come back rounded.
fn same(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && y.iter()
                    .all(|(key, vb)| x.get(key).is_some_and(|va| same(va, vb)))
        }
        _ => actual == expected,
    }
}

fn same_number(actual: &Number, expected: &Number) -> bool {
    match (actual.is_f64(), expected.is_f64()) {
        (_, true) => actual.as_f64() == expected.as_f64(),
        (true, false) => actual.as_f64().is_some_and(|f| {
            let int = expected
                .as_i64()
                .map(i128::from)
                .or_else(|| expected.as_u64().map(i128::from));
            int.is_some_and(|i| f.fract() == 0.0 && f as i128 == i && i as f64 == f)
        }),
        (false, false) => actual == expected,
    }
}
