//! The bounded encoders: exact bound, same text as the unbounded ones.

use crate::json_strategies::json_text;
use crate::{Delimiter, EncodeOptions, encode, encode_json, encode_json_limited, encode_limited};
use proptest::prelude::*;
use serde_json::Value;

fn nested_arrays(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn deep_nesting_hits_the_limit() {
    // 127 levels (serde_json's limit): 255 bytes of JSON, ~16 KB of TOON.
    let json = nested_arrays(127);
    let full = encode_json(&json, &EncodeOptions::default()).unwrap();
    assert!(full.len() > 60 * json.len(), "{}", full.len());
    let err = encode_json_limited(&json, &EncodeOptions::default(), 4096).unwrap_err();
    assert!(err.is_output_limit());
    let value: Value = serde_json::from_str(&json).unwrap();
    let err = encode_limited(&value, &EncodeOptions::default(), 4096).unwrap_err();
    assert!(err.is_output_limit());
}

#[test]
fn output_exactly_at_the_limit_passes() {
    let docs = [
        nested_arrays(20),
        r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}],"n":-1.5}"#.to_string(),
        r#""a long string with \"quotes\" and \n escapes""#.to_string(),
        "[1,2,3,4,5,6,7,8,9,10]".to_string(),
        "{}".to_string(),
    ];
    for json in docs {
        let options = EncodeOptions::default();
        let full = encode_json(&json, &options).unwrap();
        let value: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            encode_json_limited(&json, &options, full.len()).unwrap(),
            full
        );
        assert_eq!(encode_limited(&value, &options, full.len()).unwrap(), full);
        if !full.is_empty() {
            let below = full.len() - 1;
            assert!(
                encode_json_limited(&json, &options, below)
                    .unwrap_err()
                    .is_output_limit()
            );
            assert!(
                encode_limited(&value, &options, below)
                    .unwrap_err()
                    .is_output_limit()
            );
        }
    }
}

#[test]
fn one_huge_line_is_cut_at_the_limit() {
    // A single string far longer than the limit: the bound holds within it.
    let json = format!("{{\"a\":\"{}\"}}", "x".repeat(1 << 20));
    let err = encode_json_limited(&json, &EncodeOptions::default(), 1000).unwrap_err();
    assert!(err.is_output_limit());
    let items = vec!["1"; 100_000].join(",");
    let err = encode_json_limited(&format!("[{items}]"), &EncodeOptions::default(), 1000);
    assert!(err.unwrap_err().is_output_limit());
}

#[test]
fn invalid_json_is_not_an_output_limit() {
    let err = encode_json_limited("[1,", &EncodeOptions::default(), 0).unwrap_err();
    assert!(!err.is_output_limit());
    assert!(err.to_string().starts_with("invalid JSON: "));
}

#[test]
fn a_zero_limit_allows_only_the_empty_document() {
    assert_eq!(
        encode_json_limited("{}", &EncodeOptions::default(), 0).unwrap(),
        ""
    );
    assert!(
        encode_json_limited("1", &EncodeOptions::default(), 0)
            .unwrap_err()
            .is_output_limit()
    );
}

fn any_options() -> impl Strategy<Value = EncodeOptions> {
    (
        prop_oneof![
            Just(Delimiter::Comma),
            Just(Delimiter::Tab),
            Just(Delimiter::Pipe)
        ],
        1usize..5,
    )
        .prop_map(|(delimiter, indent_size)| EncodeOptions {
            delimiter,
            indent_size,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn limited_output_is_the_unlimited_output_or_an_error(
        json in json_text(),
        options in any_options(),
        slack in -8i64..8,
    ) {
        let Ok(value) = serde_json::from_str::<Value>(&json) else {
            return Ok(());
        };
        let full = encode(&value, &options);
        // The text path keeps the digits of a number no `f64` holds.
        let full_text = crate::encode_json(&json, &options).unwrap_or_else(|_| full.clone());
        let limit = usize::try_from(full.len() as i64 + slack).unwrap_or(0);
        for (result, full) in [
            (encode_limited(&value, &options, limit), &full),
            (encode_json_limited(&json, &options, limit), &full_text),
        ] {
            match result {
                Ok(text) => {
                    prop_assert!(full.len() <= limit);
                    prop_assert_eq!(&text, full);
                }
                Err(err) => {
                    prop_assert!(err.is_output_limit(), "{}", err);
                    prop_assert!(full.len() > limit);
                }
            }
        }
    }
}

/// Tables are written on the guess that every row matches the first and
/// taken back at the first that does not: a row that breaks the table last
/// (or one whose shape differs deep inside) leaves the list form, and at
/// every limit the text is the unlimited text or an output-limit error,
/// whether the limit falls inside the guessed table or after it.
#[test]
fn a_row_that_breaks_a_table_late_leaves_the_list_form_at_every_limit() {
    let docs = [
        r#"{"rows":[{"a":1,"b":"x"},{"a":2,"b":"y"},{"a":3,"c":"z"}],"n":1}"#,
        r#"[{"a":1,"b":{"c":2}},{"a":1,"b":{"c":3}},{"a":1,"b":{"c":[4]}}]"#,
        r#"[{"a":1,"b":{"c":2}},{"a":1,"b":{"c":3,"d":4}}]"#,
        r#"[{"a":1},{"a":2},{"a":3,"b":4}]"#,
        r#"[{"a":1},{"a":2},{"b":3}]"#,
        r#"{"k":[{"a":1},{"a":2}],"m":[{"a":1},{"a":{}}]}"#,
    ];
    for json in docs {
        let value: Value = serde_json::from_str(json).unwrap();
        for options in [
            EncodeOptions::default(),
            EncodeOptions::default().with_delimiter(Delimiter::Pipe),
        ] {
            let full = encode_json(json, &options).unwrap();
            assert_eq!(full, encode(&value, &options));
            for limit in 0..full.len() + 2 {
                match encode_json_limited(json, &options, limit) {
                    Ok(text) => assert!(limit >= full.len() && text == full, "{json} at {limit}"),
                    Err(err) => assert!(err.is_output_limit() && limit < full.len(), "{json}"),
                }
            }
        }
    }
    // The list form, not a table, where the last row differs.
    let text = encode_json(
        r#"[{"a":1},{"a":2},{"a":3,"b":4}]"#,
        &EncodeOptions::default(),
    );
    assert_eq!(
        text.unwrap(),
        "[3]:\n  - a: 1\n  - a: 2\n  - a: 3\n    b: 4"
    );
}
