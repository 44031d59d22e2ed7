//! The JSON-text path must produce exactly what the `Value` path produces for
//! whatever `serde_json` reads from the same text, and refuse what it refuses.

use crate::json_strategies::{json_text, number_token};
use crate::{Delimiter, EncodeOptions, Error, encode, encode_json};
use proptest::prelude::*;
use serde_json::Value;

fn options(delimiter: Delimiter, indent_size: usize) -> EncodeOptions {
    EncodeOptions {
        delimiter,
        indent_size,
    }
}

/// Asserts the invariant for one JSON text and returns the TOON text (or
/// `None` when the JSON is invalid).
fn check_same(json: &str, options: &EncodeOptions) -> Option<String> {
    let via_value = serde_json::from_str::<Value>(json).map(|value| encode(&value, options));
    let via_text = encode_json(json, options);
    match (via_value, via_text) {
        // A number no `f64` holds as written keeps its digits on the text
        // path, where the value path has only the nearest float: the text
        // reads back as the value path's floats (numbers compared by value,
        // keys as the spec's equality allows).
        (Ok(_), Ok(actual)) if crate::has_inexact_number(json.as_bytes()) => {
            let decode_options = crate::DecodeOptions {
                indent_size: options.indent_size,
                ..Default::default()
            };
            let back = crate::decode(&actual, &decode_options)
                .unwrap_or_else(|err| panic!("json: {json}: {actual}: {err}"));
            let value: Value = serde_json::from_str(json).expect("read above");
            assert!(same_value(&back, &value), "json: {json}: {actual}");
            Some(actual)
        }
        (Ok(expected), Ok(actual)) => {
            assert_eq!(actual, expected, "json: {json}");
            Some(actual)
        }
        (Err(_), Err(Error::Json(_))) => None,
        (expected, actual) => {
            panic!("json: {json}\nvalue path: {expected:?}\ntext path: {actual:?}")
        }
    }
}

/// JSON-model equality with numbers by value and object keys in any
/// order (tables decode in their header's order).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, v)| y.get(key).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

fn toon(json: &str) -> String {
    check_same(json, &EncodeOptions::default()).expect("valid JSON")
}

#[test]
fn a_leading_byte_order_mark_is_quoted_only_at_the_root() {
    // Decoders drop a BOM at the start of a document; quoting keeps it. Any
    // other string starting with U+FEFF is not at the start of a document.
    assert_eq!(toon(r#""\ufeff""#), "\"\u{feff}\"");
    assert_eq!(toon(r#""\ufeffx""#), "\"\u{feff}x\"");
    assert_eq!(toon(r#"{"a":"\ufeffx"}"#), "a: \u{feff}x");
    assert_eq!(toon(r#"["\ufeffx"]"#), "[1]: \u{feff}x");
    assert_eq!(toon(r#""x\ufeff""#), "x\u{feff}");
    for text in ["a: \u{feff}x", "[1]: \u{feff}x"] {
        let value = crate::decode(text, &Default::default()).unwrap();
        assert_eq!(encode(&value, &EncodeOptions::default()), text);
    }
}

#[test]
fn numbers_are_canonical_on_both_paths() {
    let cases = [
        ("0", "0"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("0.000", "0"),
        ("1.0", "1"),
        ("1.50", "1.5"),
        ("-2.500", "-2.5"),
        ("100.00", "100"),
        ("1e6", "1000000"),
        ("1E+2", "100"),
        ("1e-6", "0.000001"),
        ("1e-7", "1e-7"),
        ("0.0000001", "1e-7"),
        ("-0.00000012300", "-1.23e-7"),
        ("0.0000012300", "0.00000123"),
        ("1.5e300", "1.5e+300"),
        ("1e21", "1e+21"),
        ("999999999999999999999", "999999999999999999999"),
        ("123456789012345678", "123456789012345678"),
        ("18446744073709551615", "18446744073709551615"),
        ("18446744073709551616", "18446744073709551616"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("-9223372036854775809", "-9223372036854775809"),
        ("100000000000000000000", "100000000000000000000"),
        ("0.1", "0.1"),
        ("0.30000000000000004", "0.30000000000000004"),
        ("0.30000000000000001", "0.30000000000000001"),
        ("3.141592653589793238", "3.141592653589793238"),
        ("0.0000000000000000000001", "1e-22"),
        ("99.99", "99.99"),
        ("123456789012345.6", "123456789012345.6"),
        ("1234567890123456.7", "1234567890123456.7"),
    ];
    for (json, expected) in cases {
        assert_eq!(toon(json), expected, "{json}");
    }
}

#[test]
fn invalid_json_is_an_error_not_a_panic() {
    let bad = [
        "",
        " ",
        "{",
        "}",
        "[1,]",
        "[1 2]",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "{a:1}",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "tru",
        "nul",
        "\"abc",
        "\"a\u{1}b\"",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud800\\u0041\"",
        "1 2",
        "[] x",
        "1e400",
        "-1e400",
        "NaN",
        "[\"a\",]",
    ];
    for json in bad {
        match encode_json(json, &EncodeOptions::default()) {
            Err(Error::Json(_)) => {}
            other => panic!("{json:?} gave {other:?}"),
        }
        assert!(serde_json::from_str::<Value>(json).is_err(), "{json:?}");
    }
}

#[test]
fn the_error_is_serde_json_s() {
    let err = encode_json("{\"a\": [1, 2,, 3]}", &EncodeOptions::default()).unwrap_err();
    let Error::Json(inner) = &err else {
        panic!("{err:?}")
    };
    assert_eq!((inner.line(), inner.column()), (1, 13));
    assert!(err.to_string().starts_with("invalid JSON: "));
}

#[test]
fn nesting_is_limited_like_serde_json() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(check_same(&nested(127), &EncodeOptions::default()).is_some());
    assert!(check_same(&nested(128), &EncodeOptions::default()).is_none());
    let objects = |depth: usize| format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    assert!(check_same(&objects(127), &EncodeOptions::default()).is_some());
    assert!(check_same(&objects(128), &EncodeOptions::default()).is_none());
    // Far beyond the limit: an error, not a stack overflow.
    let deep = "[".repeat(1_000_000);
    assert!(matches!(
        encode_json(&deep, &EncodeOptions::default()),
        Err(Error::Json(_))
    ));
}

#[test]
fn repeated_keys_resolve_like_serde_json() {
    assert_eq!(toon(r#"{"a":1,"b":2,"a":3}"#), "a: 3\nb: 2");
    assert_eq!(toon(r#"{"a":1,"\u0061":2}"#), "a: 2");
    assert_eq!(toon(r#"[{"id":1,"id":2},{"id":3}]"#), "[2]{id}:\n  2\n  3");
    // Many distinct keys that collide in the filter are not duplicates.
    let wide: Vec<String> = (0..500).map(|i| format!("\"k{i}\":{i}")).collect();
    let json = format!("{{{}}}", wide.join(","));
    assert_eq!(toon(&json).lines().count(), 500);
}

#[test]
fn strings_unescape_and_requote() {
    assert_eq!(
        toon(r#"{"s":"tab\there \"q\" \\ \/ \b\f\n\r \u00e9 \ud83d\ude80 \u0001"}"#),
        "s: \"tab\\there \\\"q\\\" \\\\ / \\u0008\\u000c\\n\\r é 🚀 \\u0001\""
    );
    assert_eq!(toon(r#"["a,b","c"]"#), "[2]: \"a,b\",c");
    assert_eq!(
        check_same(r#"["a,b","c|d"]"#, &options(Delimiter::Pipe, 2)).unwrap(),
        "[2|]: a,b|\"c|d\""
    );
    // Long strings cross the eight-byte scan in every alignment.
    for pad in 0..17 {
        let text = "x".repeat(pad);
        assert_eq!(
            toon(&format!("\"{text}\\\"{text}\"")),
            format!("\"{text}\\\"{text}\"")
        );
        assert_eq!(toon(&format!("\"é{text}\"")), format!("é{text}"));
    }
}

#[test]
fn whitespace_around_tokens_is_accepted() {
    assert_eq!(
        toon(" \n\t{ \"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } } \n"),
        "a[2]: 1,2\nb:"
    );
}

#[test]
fn shapes_match_the_value_path() {
    let docs = [
        r#"{"users":[{"id":1,"name":"Ada"},{"name":"Bob","id":2}]}"#,
        r#"{"m":{"a":{"x":1,"y":{"p":true}},"b":{"y":{"p":null},"x":2}}}"#,
        r#"{"items":[{"config":{"a":{"x":1},"b":{"x":2}},"status":"ok"},{}]}"#,
        r#"[[1,[2]],[],[{"a":[]}],{"b":[[{}]]}]"#,
        r#"{"a":[{"x":{}}],"b":[{"x":[1]}],"c":[{"x":1},{"x":{"y":1}}]}"#,
    ];
    for doc in docs {
        for delimiter in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
            for indent in [0, 1, 2, 4] {
                check_same(doc, &options(delimiter, indent));
            }
        }
    }
}

fn any_options() -> impl Strategy<Value = EncodeOptions> {
    (
        prop_oneof![
            Just(Delimiter::Comma),
            Just(Delimiter::Tab),
            Just(Delimiter::Pipe)
        ],
        prop_oneof![Just(2usize), Just(4), Just(1)],
    )
        .prop_map(|(delimiter, indent_size)| options(delimiter, indent_size))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn text_path_equals_value_path(json in json_text(), options in any_options()) {
        check_same(&json, &options);
    }

    #[test]
    fn number_tokens_match_serde_json(token in number_token()) {
        check_same(&token, &EncodeOptions::default());
        check_same(&format!("[{token},{{\"n\":{token}}}]"), &EncodeOptions::default());
    }

    #[test]
    fn damaged_text_matches_serde_json(json in json_text(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        // Truncated, or with one byte replaced by an ASCII byte.
        let at = cut.index(json.len() + 1);
        let truncated = json.get(..at).unwrap_or(&json);
        check_same(truncated, &EncodeOptions::default());
        if json.is_char_boundary(at) && at < json.len() && json.is_char_boundary(at + 1) {
            let mut changed = json.clone();
            changed.replace_range(at..at + 1, &((byte % 128) as char).to_string());
            check_same(&changed, &EncodeOptions::default());
        }
    }
}

#[test]
fn table_rows_in_another_key_order_come_back_in_the_header_order() {
    // Spec §9.3 and §9.5: rows may list their keys in any order; the header
    // takes the first one's, and every row decodes in it. The values all
    // come back, and encoding what came back gives the same text.
    let value: Value = serde_json::from_str(
        r#"{"rows": [{"a": 1, "b": "x"}, {"b": "y", "a": 2}],
            "by_name": {"p": {"host": "h1", "port": 1}, "r": {"port": 2, "host": "h2"}}}"#,
    )
    .unwrap();
    let text = encode(&value, &EncodeOptions::default());
    assert_eq!(
        text,
        "rows[2]{a,b}:\n  1,x\n  2,y\nby_name[2:]{host,port}:\n  p: h1,1\n  r: h2,2"
    );
    let back = crate::decode(&text, &Default::default()).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&back["rows"][1]), ["a", "b"]);
    assert_eq!(keys(&back["by_name"]["r"]), ["host", "port"]);
    assert_eq!(back, value, "the same entries, key order aside");
    assert_eq!(encode(&back, &EncodeOptions::default()), text);
}

#[test]
fn flat_rows_with_a_missing_extra_or_nested_field_are_not_a_table() {
    // A header of leaves only is checked without the level stack: a row
    // with a field less, a field more, a field renamed or an object where
    // the header has a leaf still ends the table form.
    let docs = [
        r#"{"r":[{"a":1,"b":2},{"a":3}]}"#,
        r#"{"r":[{"a":1,"b":2},{"a":3,"b":4,"c":5}]}"#,
        r#"{"r":[{"a":1,"b":2},{"a":3,"c":4}]}"#,
        r#"{"r":[{"a":1,"b":2},{"b":4,"a":{"x":1}}]}"#,
        r#"{"r":[{"a":1,"b":2},{"a":3,"b":[4]}]}"#,
        r#"{"k":{"p":{"a":1,"b":2},"q":{"b":2,"c":1}}}"#,
    ];
    for doc in docs {
        let text = check_same(doc, &EncodeOptions::default()).unwrap();
        assert!(!text.contains("]{"), "{doc} gave {text}");
    }
    let text = check_same(
        r#"{"r":[{"a":1,"b":2},{"b":4,"a":3}]}"#,
        &EncodeOptions::default(),
    );
    assert_eq!(text.as_deref(), Some("r[2]{a,b}:\n  1,2\n  3,4"));
}

#[test]
fn indentation_wider_than_one_write_is_whole() {
    // Indentation is written from a static line of 64 spaces: widths below,
    // at and past it (several writes) come out as that many spaces, in
    // fields, list items and table rows alike.
    let json = r#"{"a":{"b":{"c":[{"x":1,"y":"s"},{"x":2,"y":"t"}],"d":[[1],{"k":true}]}}}"#;
    for indent in [1, 2, 21, 32, 63, 64, 65, 100, 129] {
        let text = check_same(json, &options(Delimiter::Comma, indent)).expect("valid JSON");
        let pad = |depth: usize| " ".repeat(depth * indent);
        let expected = [
            "a:".to_string(),
            format!("{}b:", pad(1)),
            format!("{}c[2]{{x,y}}:", pad(2)),
            format!("{}1,s", pad(3)),
            format!("{}2,t", pad(3)),
            format!("{}d[2]:", pad(2)),
            format!("{}- [1]: 1", pad(3)),
            format!("{}- k: true", pad(3)),
        ]
        .join("\n");
        assert_eq!(text, expected, "indent {indent}");
    }
}

#[test]
fn numbers_are_written_as_their_canonical_text() {
    // A parsed document's numbers are copied as the canonical text it holds;
    // a `Value`'s are formatted: both give the same text (`check_same`).
    let json = r#"{"n":[1.50,-0,1e3,-0.0,1E-7,15e299,-5],"t":[{"a":2.0,"b":-0}]}"#;
    assert_eq!(
        toon(json),
        "n[7]: 1.5,0,1000,0,1e-7,1.5e+300,-5\nt[1]{a,b}:\n  2,0"
    );
}

#[test]
fn each_table_has_the_header_of_its_own_fields() {
    // Consecutive tables of one shape share a header text; any difference
    // in names, count, order or nesting of the fields gives a new one.
    let json = r#"[
        {"t":[{"a":1,"b":2}]},
        {"t":[{"a":3,"b":4}]},
        {"t":[{"a":5,"c":6}]},
        {"t":[{"b":7,"a":8},{"b":9,"a":10}]},
        {"t":[{"a":11,"b":12,"c":13}]},
        {"t":[{"a":{"x":14},"b":15}]},
        {"t":[{"a":{"x":16,"y":17},"b":18}]},
        {"t":[{"a":{"x":19},"b":20}]},
        {"t":[{"a b":21,"b":22}]},
        {"t":[{"a":23,"b":24}]}
    ]"#;
    let expected_headers = [
        "{a,b}",
        "{a,b}",
        "{a,c}",
        "{b,a}",
        "{a,b,c}",
        "{a{x},b}",
        "{a{x,y},b}",
        "{a{x},b}",
        "{\"a b\",b}",
        "{a,b}",
    ];
    for (delimiter, symbol) in [(Delimiter::Comma, ","), (Delimiter::Pipe, "|")] {
        let text = check_same(json, &options(delimiter, 2)).expect("valid JSON");
        let headers: Vec<String> = text
            .lines()
            .filter_map(|line| line.strip_prefix("  - t[").or(line.strip_prefix("- t[")))
            .map(|rest| {
                rest[rest.find('{').expect("a header")..]
                    .trim_end_matches(':')
                    .to_string()
            })
            .collect();
        let expected: Vec<String> = expected_headers
            .iter()
            .map(|h| h.replace(',', symbol))
            .collect();
        assert_eq!(headers, expected, "{text}");
    }
}

#[test]
fn the_keyed_table_form_follows_every_value_not_only_the_first() {
    // The first value rules the keyed form out early when it is not a
    // non-empty object; later values still decide when it is one.
    assert_eq!(
        toon(r#"{"a":{"x":1},"b":{"x":2}}"#),
        "[2:]{x}:\n  a: 1\n  b: 2"
    );
    assert_eq!(
        toon(r#"{"a":1,"b":{"x":2},"c":{"x":3}}"#),
        "a: 1\nb:\n  x: 2\nc:\n  x: 3"
    );
    assert_eq!(toon(r#"{"a":{},"b":{}}"#), "a:\nb:");
    assert_eq!(toon(r#"{"a":{"x":1},"b":2}"#), "a:\n  x: 1\nb: 2");
    assert_eq!(
        toon(r#"{"a":{"x":1},"b":{"y":2}}"#),
        "a:\n  x: 1\nb:\n  y: 2"
    );
    assert_eq!(toon(r#"{"a":{"x":1}}"#), "a:\n  x: 1");
}

#[test]
fn a_row_whose_keys_leave_the_header_order_in_one_row_only_is_still_a_row() {
    // Cells are read at their field's position first: the row whose keys
    // stand elsewhere, whichever it is, must still find them all.
    let fields = ["id", "name", "ok", "score", "at"];
    let values = ["7", "\"n\"", "true", "1.5", "null"];
    let row = |order: &[usize]| {
        let entries: Vec<String> = order
            .iter()
            .map(|&i| format!("\"{}\":{}", fields[i], values[i]))
            .collect();
        format!("{{{}}}", entries.join(","))
    };
    let in_order: Vec<usize> = (0..fields.len()).collect();
    let swaps = [
        vec![1, 0, 2, 3, 4],
        vec![0, 1, 2, 4, 3],
        vec![4, 3, 2, 1, 0],
    ];
    for swapped in &swaps {
        for k in 0..6 {
            let rows: Vec<String> = (0..6)
                .map(|i| row(if i == k { swapped } else { &in_order }))
                .collect();
            let json = format!("[{}]", rows.join(","));
            let text = toon(&json);
            // The header takes the first row's order.
            let first: &[usize] = if k == 0 { swapped } else { &in_order };
            let header: Vec<&str> = first.iter().map(|&i| fields[i]).collect();
            let cells: Vec<&str> = first.iter().map(|&i| values[i].trim_matches('"')).collect();
            let line = format!("\n  {}", cells.join(","));
            assert_eq!(
                text,
                format!("[6]{{{}}}:{}", header.join(","), line.repeat(6)),
                "{json}"
            );
        }
    }
}

#[test]
fn a_row_of_the_right_length_with_a_wrong_key_or_value_in_row_k_is_no_table() {
    // The fast path compares the key at each position; a row of the right
    // length whose keys differ (same length, other bytes), or whose value
    // is an empty array or object (one slot, like a scalar), ends the
    // table form wherever that row stands.
    let good = r#"{"ab":1,"cd":2,"ef":3}"#;
    let bad = [
        r#"{"ab":1,"cd":2,"eg":3}"#,
        r#"{"ab":1,"xd":2,"ef":3}"#,
        r#"{"ab":1,"cd":[],"ef":3}"#,
        r#"{"ab":{},"cd":2,"ef":3}"#,
        r#"{"ab":1,"cd":2,"ef":[1]}"#,
        r#"{"ab":1,"cd":2,"ab":3}"#,
        r#"{"ab":1,"cd":2}"#,
        r#"{"ab":1,"cd":2,"ef":3,"gh":4}"#,
    ];
    for doc in bad {
        for k in 1..4 {
            let rows: Vec<&str> = (0..4).map(|i| if i == k { doc } else { good }).collect();
            let json = format!("{{\"r\":[{}]}}", rows.join(","));
            let text = toon(&json);
            assert!(!text.contains("]{"), "{json} gave {text}");
        }
    }
}

#[test]
fn escaped_and_repeated_keys_match_the_header_by_their_text() {
    // A key that held an escape lives in the side buffer, not the input:
    // the comparison is of the text, wherever it is stored. A repeated key
    // keeps its first position and its last value.
    let cases = [
        (
            r#"[{"ab":1,"c":2},{"a\u0062":3,"c":4},{"c":5,"\u0061b":6}]"#,
            "[3]{ab,c}:\n  1,2\n  3,4\n  6,5",
        ),
        (
            r#"[{"a\n":1,"c":2},{"a\n":3,"c":4}]"#,
            "[2]{\"a\\n\",c}:\n  1,2\n  3,4",
        ),
        (
            r#"[{"a":1,"c":2},{"a":3,"c":4,"a":5}]"#,
            "[2]{a,c}:\n  1,2\n  5,4",
        ),
    ];
    for (json, expected) in cases {
        assert_eq!(toon(json), expected, "{json}");
    }
}

#[test]
fn rows_of_another_key_order_than_the_header_are_matched_by_their_keys() {
    // A row is written by the positions of its values only when the parser
    // gave it the key id of the row the header was built from: rows of one
    // key order other than the header's (and tables whose first row takes
    // a shared header in another order) still find their cells by key.
    let pad = " ".repeat(16);
    let cases = [
        (
            r#"[{"a":1,"b":2},{"b":3,"a":4},{"b":5,"a":6},{"a":7,"b":8},{"a":9,"b":0}]"#,
            "[5]{a,b}:\n  1,2\n  4,3\n  6,5\n  7,8\n  9,0",
        ),
        (
            r#"{"x":[{"a":1,"b":2},{"a":3,"b":4}],"y":[{"b":5,"a":6},{"b":7,"a":8}]}"#,
            "x[2]{a,b}:\n  1,2\n  3,4\ny[2]{b,a}:\n  5,6\n  7,8",
        ),
        (
            r#"[{"a":1,"b":2},{"a":3,"b":{}},{"a":5,"b":6}]"#,
            "[3]:\n  - a: 1\n    b: 2\n  - a: 3\n    b:\n  - a: 5\n    b: 6",
        ),
        (
            r#"[{"a":1,"b":2},{"a":3,"b":4,"a":5},{"a":6,"b":7}]"#,
            "[3]{a,b}:\n  1,2\n  5,4\n  6,7",
        ),
    ];
    for (json, expected) in cases {
        let json = format!("{json}{pad}");
        assert_eq!(toon(&json), expected, "{json}");
        check_same(&json, &EncodeOptions::default());
    }
}

/// Lists of records mostly of one key order, now and then one whose keys
/// are swapped, dropped, renamed, repeated or escaped, or whose value is
/// an object or array: rows the parser gives the header row's key id, and
/// rows that break the run at every position.
fn records_much_alike() -> impl Strategy<Value = String> {
    let change = prop::sample::select(vec![
        "", "", "", "", "", "", "swap", "drop", "rename", "repeat", "escape", "nest", "empty",
    ]);
    let space = prop::sample::select(vec!["", "", " "]);
    (
        prop::collection::vec((change, 0usize..3), 1..10),
        space,
        prop::sample::select(vec!["[", "{\"k\":["]),
    )
        .prop_map(|(rows, space, open)| {
            let rows: Vec<String> = rows
                .into_iter()
                .enumerate()
                .map(|(n, (change, at))| {
                    let mut keys = vec!["id", "name", "ok"];
                    let mut values = vec![n.to_string(), format!("\"n{n}\""), "true".to_owned()];
                    match change {
                        "swap" => keys.swap(at, (at + 1) % 3),
                        "drop" => {
                            keys.remove(at);
                            values.remove(at);
                        }
                        "rename" => keys[at] = "idx",
                        "repeat" => {
                            keys.push(keys[at]);
                            values.push("null".to_owned());
                        }
                        "escape" => keys[at] = "na\\u006de",
                        "nest" => values[at] = r#"{"z":1}"#.to_owned(),
                        "empty" => values[at] = "[]".to_owned(),
                        _ => {}
                    }
                    let entries: Vec<String> = keys
                        .iter()
                        .zip(&values)
                        .map(|(key, value)| format!("\"{key}\":{space}{value}"))
                        .collect();
                    format!("{{{}}}", entries.join(&format!(",{space}")))
                })
                .collect();
            let close = if open == "[" { "]" } else { "]}" };
            format!("{open}{}{close}{}", rows.join(","), " ".repeat(16))
        })
}

/// A record for the tables of [`tables_of_one_list`]: keys from a small
/// pool in any order, so that neighbouring tables share a header, list its
/// keys in another order, or have a key more, less or renamed; values
/// mostly primitives, now and then an object or array that rules the
/// table out.
fn pooled_record() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        6 => prop::sample::select(vec!["1", "-0.0", "1e21", "2.50", "-7", "true", "false"])
            .prop_map(str::to_owned),
        6 => "[a-c ,:|\t\\\"é0-9.e+-]{0,3}|true|null|long string of [a-z ]{9,30}"
            .prop_map(|s| serde_json::to_string(&s).unwrap()),
        2 => Just("null".to_owned()),
        1 => Just(r#"{"x":1}"#.to_owned()),
        1 => Just("[1]".to_owned()),
    ];
    prop::collection::vec(
        // A key with an escape is unescaped into the document's side
        // buffer, as values with escapes and re-formatted numbers are.
        (
            prop::sample::select(vec!["a", "b", "c", "d e", "q\""]),
            value,
        ),
        0..4,
    )
    .prop_map(|entries| {
        let mut seen = Vec::new();
        let fields: Vec<String> = entries
            .into_iter()
            .filter(|(key, _)| {
                let fresh = !seen.contains(key);
                seen.push(*key);
                fresh
            })
            .map(|(key, value)| format!("{key:?}:{value}"))
            .collect();
        format!("{{{}}}", fields.join(","))
    })
}

/// A list of objects, each with an array of records (a table or not) and,
/// now and then, a keyed table's candidate: what a list of orders with
/// their items looks like.
fn tables_of_one_list() -> impl Strategy<Value = String> {
    let rows = prop::collection::vec(pooled_record(), 0..4);
    let entry = (rows, prop::option::of((pooled_record(), pooled_record())));
    prop::collection::vec(entry, 0..6).prop_map(|entries| {
        let items: Vec<String> = entries
            .into_iter()
            .map(|(rows, keyed)| {
                let keyed = keyed
                    .map(|(p, q)| format!(r#","by":{{"p":{p},"q":{q}}}"#))
                    .unwrap_or_default();
                format!(r#"{{"id":1,"rows":[{}]{keyed}}}"#, rows.join(","))
            })
            .collect();
        format!("[{}]", items.join(","))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// A table that tries the last table's header first writes what one
    /// that builds its own header writes, on both paths and at every limit
    /// (a limit that cuts a table short takes the checked path); and the
    /// document's rows, written from their slots' bytes, are what the walk
    /// of a `Value`'s rows writes.
    #[test]
    fn a_shared_header_is_the_header_a_table_builds(
        json in tables_of_one_list(),
        options in any_options(),
        cut in any::<prop::sample::Index>(),
    ) {
        let value: Value = serde_json::from_str(&json).unwrap();
        let document = crate::document::Document::parse(&json).unwrap();
        let own = super::emit::emit_sharing(&value, &options, 0, usize::MAX, false).unwrap();
        let shared = super::emit::emit_sharing(&value, &options, 0, usize::MAX, true);
        prop_assert_eq!(shared.as_deref(), Some(own.as_str()), "json: {}", json);
        let shared = super::emit::emit_sharing(document.root(), &options, 0, usize::MAX, true);
        prop_assert_eq!(shared.as_deref(), Some(own.as_str()), "json: {}", json);
        let limit = cut.index(own.len() + 1);
        let own_cut = super::emit::emit_sharing(document.root(), &options, 0, limit, false);
        let shared_cut = super::emit::emit_sharing(document.root(), &options, 0, limit, true);
        prop_assert_eq!(shared_cut, own_cut, "json: {} limit {}", json, limit);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    /// A parsed document's own paths (an object's run of scalar fields
    /// read from its slots, a table's rows in one call with each cell led
    /// by its delimiter, rows written by the positions of their values
    /// where the parser gave them the key id of the header's row) write
    /// what the generic walk of a `Value` of the same data writes, at every
    /// limit and at indentations past one word and past the static line.
    #[test]
    fn a_document_writes_what_the_value_walk_writes_at_every_limit(
        json in prop_oneof![json_text(), tables_of_one_list(), records_much_alike()],
        delimiter in prop_oneof![Just(Delimiter::Comma), Just(Delimiter::Tab), Just(Delimiter::Pipe)],
        indent_size in prop::sample::select(vec![0usize, 1, 2, 4, 9, 40]),
        cut in any::<prop::sample::Index>(),
    ) {
        prop_assume!(!crate::has_inexact_number(json.as_bytes()));
        let Ok(value) = serde_json::from_str::<Value>(&json) else {
            return Ok(());
        };
        let options = options(delimiter, indent_size);
        let document = crate::document::Document::parse(&json).unwrap();
        let whole = super::emit::emit(&value, &options, 0, usize::MAX).unwrap();
        let from_document = super::emit::emit(document.root(), &options, 0, usize::MAX);
        prop_assert_eq!(from_document.as_deref(), Some(whole.as_str()), "json: {}", json);
        let limit = cut.index(whole.len() + 2);
        let value_cut = super::emit::emit(&value, &options, 0, limit);
        let document_cut = super::emit::emit(document.root(), &options, 0, limit);
        prop_assert_eq!(document_cut, value_cut, "json: {} limit {}", json, limit);
    }
}
