//! Fuzz target: the smart fallback's weighing of a document's JSON against
//! its TOON, and the places where a near tie's stages cut both.
//!
//! Arbitrary bytes, split at the first NUL into a JSON text and a TOON
//! text: `record_cuts` never panics, and finds places in order, inside both
//! texts, where o200k_base starts a piece in each (the exact counts of the
//! two sides add up to the text's). Bytes that are JSON: its minified text
//! and its TOON are weighed by `choose`, which never panics, and whose
//! counts are the exact ones when it says so.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use terse_tokens::{Counting, choose, exact, record_cuts};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (json, toon) = text.split_once('\0').unwrap_or((text, ""));
    let mut last = (0, 0);
    for (json_at, toon_at) in record_cuts(json, toon) {
        assert!(json_at > last.0 && toon_at > last.1, "out of order: {last:?} then {json_at}, {toon_at}");
        assert!(json_at < json.len() && toon_at < toon.len());
        last = (json_at, toon_at);
        for (text, at) in [(json, json_at), (toon, toon_at)] {
            let (before, after) = text.split_at(at);
            assert_eq!(exact(before) + exact(after), exact(text), "{text:?} cut at {at}");
        }
    }
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let json = value.to_string();
    let toon = terse_toon::encode(&value, &terse_toon::EncodeOptions::default());
    let choice = choose(&json, &toon, Counting::Estimate);
    if choice.exact {
        assert_eq!(choice.json_tokens, exact(&json));
        assert!(choice.toon_tokens == exact(&toon) || choice.toon_tokens >= choice.json_tokens);
    }
});
