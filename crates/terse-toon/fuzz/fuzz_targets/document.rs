//! Fuzz target: the one-pass JSON document against `serde_json`.
//!
//! `Document::parse` must accept exactly the text `serde_json` accepts, hold
//! the same data (written back out the same way, read back as the same
//! `Value`), and encode to the same TOON as that `Value` (or, where a number
//! keeps digits no `f64` holds, TOON that reads back as the same `Value`);
//! never panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use serde_json::Value;
use terse_toon::document::Document;

mod same_value;
use same_value::same;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let expected = serde_json::from_str::<Value>(text);
    let document = Document::parse(text);
    let (expected, document) = match (expected, document) {
        (Ok(value), Ok(document)) => (value, document),
        (Err(_), Err(_)) => return,
        (expected, document) => {
            panic!("serde_json and the document disagree on {text:?}: {expected:?} / {document:?}")
        }
    };
    let root = document.root();
    assert_eq!(
        serde_json::to_string(&root).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
    assert_eq!(root.to_value(), expected);
    assert_eq!(Value::deserialize(root).unwrap(), expected);
    let options = Default::default();
    let toon = terse_toon::encode_json(text, &options).unwrap();
    if terse_toon::has_inexact_number(text.as_bytes()) {
        // A number no `f64` holds as written keeps its digits in the
        // document's TOON, where the value's can only have the nearest
        // float: the same data, read back as the same `Value`.
        let decoded = terse_toon::decode(&toon, &Default::default()).unwrap();
        let from_value = terse_toon::decode(
            &terse_toon::encode(&expected, &options),
            &Default::default(),
        )
        .unwrap();
        assert!(same(&decoded, &from_value), "{decoded:?} / {from_value:?}");
    } else {
        assert_eq!(toon, terse_toon::encode(&expected, &options));
    }
});
