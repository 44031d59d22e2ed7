//! Decoder unit tests: error positions and messages, invalid UTF-8, number
//! edge cases, lenient mode, nesting limits and inputs that must not panic.

use super::MAX_DEPTH;
use crate::{DecodeError, DecodeOptions, decode, decode_slice};
use serde_json::{Value, json};

fn strict() -> DecodeOptions {
    DecodeOptions::default()
}

fn lenient() -> DecodeOptions {
    DecodeOptions {
        strict: false,
        ..DecodeOptions::default()
    }
}

fn ok(input: &str) -> Value {
    decode(input, &strict()).unwrap_or_else(|err| panic!("{input:?}: {err}"))
}

fn err(input: &str) -> DecodeError {
    match decode(input, &strict()) {
        Ok(value) => panic!("{input:?} decoded to {value}"),
        Err(err) => err,
    }
}

/// Asserts the error's line, column and message.
fn assert_error(input: &str, line: usize, column: usize, message: &str) {
    let err = err(input);
    assert_eq!(
        (err.line(), err.column(), err.message()),
        (line, column, message),
        "{input:?}"
    );
}

#[test]
fn display_reads_line_column_message() {
    let err = err("items[2]{id}:\n  1");
    assert_eq!(
        err.to_string(),
        "line 1, column 7: expected 2 rows, found 1"
    );
}

#[test]
fn count_errors_point_at_the_length_or_the_first_extra_item() {
    assert_error("items[2]{id}:\n  1", 1, 7, "expected 2 rows, found 1");
    assert_error("items[1]{id}:\n  1\n  2", 3, 3, "expected 1 row, found 2");
    assert_error("tags[3]: a,b", 1, 6, "expected 3 values, found 2");
    assert_error("tags[2]: a,b,c", 1, 14, "expected 2 values, found 3");
    assert_error("xs[2]:\n  - 1", 1, 4, "expected 2 list items, found 1");
    assert_error(
        "xs[1]:\n  - 1\n  - 2",
        3,
        3,
        "expected 1 list item, found 2",
    );
    assert_error("m[2:]{v}:\n  a: 1", 1, 3, "expected 2 entries, found 1");
}

#[test]
fn width_errors_point_at_the_row() {
    assert_error(
        "users[2]{id,name}:\n  1,Ada\n  2",
        3,
        3,
        "expected 2 values in this row, found 1",
    );
    assert_error(
        "o[1]{id,c{a,b}}:\n  1,x",
        2,
        3,
        "expected 3 values in this row, found 2",
    );
}

#[test]
fn string_errors_point_at_the_quote_or_escape() {
    // Columns count characters, not bytes: `café` is four.
    assert_error(
        "café: \"open",
        1,
        7,
        "unterminated string: missing closing `\"`",
    );
    assert_error(
        "a: \"x\\q\"",
        1,
        6,
        "invalid escape `\\q`; allowed: \\\\ \\\" \\n \\r \\t \\uXXXX",
    );
    assert_error(
        "a: \"\\u12\"",
        1,
        5,
        "invalid escape: `\\u` must be followed by four hex digits",
    );
    assert_error(
        "a: \"\\udc00\"",
        1,
        5,
        "invalid escape `\\udc00`: surrogate code points are not allowed",
    );
    assert_error(
        "a: \"x\" y",
        1,
        7,
        "unexpected characters after the closing quote",
    );
}

#[test]
fn structure_errors_have_positions_and_plain_messages() {
    assert_error("name: Ada\nname: Bob", 2, 1, "duplicate key `name`");
    assert_error(
        "a:\n\tb: 1",
        2,
        1,
        "tab in indentation; indent with spaces only",
    );
    assert_error(
        "a:\n   b: 1",
        2,
        4,
        "indentation of 3 spaces is not a multiple of 2",
    );
    assert_error("xs[2]:\n  - a\n\n  - b", 3, 1, "blank line inside an array");
    assert_error(
        "a: 1\n  b: 2",
        2,
        3,
        "unexpected indentation: the line above does not open a block",
    );
    assert_error("a:\n  user", 2, 7, "missing `:` after the key");
    assert_error(
        "[1]: x\ny: 2",
        2,
        1,
        "unexpected content after the end of the root array",
    );
    assert_error(
        "x[03]: a",
        1,
        3,
        "invalid array length: leading zeros are not allowed",
    );
    assert_error(
        "x[2]{a,b}: 1,2",
        1,
        11,
        "a table header takes no values after its `:`; rows go on the following lines",
    );
    assert_error(
        "xs[1]:\n  x: 1",
        2,
        3,
        "expected a list item starting with `- `",
    );
}

#[test]
fn byte_order_mark_is_not_a_column() {
    assert_eq!(ok("\u{feff}a: 1"), json!({"a": 1}));
    let err = err("\u{feff}a: \"x");
    assert_eq!((err.line(), err.column()), (1, 4));
}

#[test]
fn invalid_utf8_is_an_error_at_its_position() {
    let cases: [(&[u8], usize, usize); 5] = [
        (b"a: \xff", 1, 4),
        (b"a: 1\nb: x\xc3", 2, 5),
        // A surrogate code point encoded in UTF-8 is ill-formed too.
        (b"k: \xed\xa0\x80", 1, 4),
        ("é: ".as_bytes(), 0, 0),
        (b"\xe2\x82", 1, 1),
    ];
    for (input, line, column) in cases {
        let result = decode_slice(input, &strict());
        if line == 0 {
            assert!(result.is_ok(), "{input:?}");
            continue;
        }
        let err = result.unwrap_err();
        assert_eq!((err.line(), err.column()), (line, column), "{input:?}");
        assert!(err.message().starts_with("invalid UTF-8"), "{err}");
    }
    let mut after_multibyte = "é: ".as_bytes().to_vec();
    after_multibyte.push(0x80);
    let err = decode_slice(&after_multibyte, &strict()).unwrap_err();
    assert_eq!((err.line(), err.column()), (1, 4));
    // Lenient mode does not paper over it either.
    assert!(decode_slice(b"a: \xff", &lenient()).is_err());
}

#[test]
fn integers_stay_exact_and_others_become_floats_or_strings() {
    let doc = ok("a: 18446744073709551615\n\
         b: -9223372036854775808\n\
         c: 123456789012345678\n\
         d: 18446744073709551616\n\
         e: -0\n\
         f: 1e3\n\
         g: 0.1\n\
         h: 1e400\n\
         i: 2.5E-3\n\
         j: 0.000000000000000000001\n\
         k: 00\n\
         l: 1.0");
    assert_eq!(doc["a"], json!(u64::MAX));
    assert_eq!(doc["b"], json!(i64::MIN));
    assert_eq!(doc["c"], json!(123_456_789_012_345_678_i64));
    assert_eq!(doc["d"], json!(18_446_744_073_709_551_616.0_f64));
    assert_eq!(doc["e"], json!(0));
    assert_eq!(doc["f"], json!(1000));
    assert_eq!(doc["g"], json!(0.1));
    assert_eq!(doc["h"], json!("1e400"));
    assert_eq!(doc["i"], json!(0.0025));
    assert_eq!(doc["j"], json!(1e-21));
    assert_eq!(doc["k"], json!("00"));
    assert_eq!(doc["l"], json!(1));
}

#[test]
fn decimals_match_the_standard_parser() {
    for token in [
        "0.1",
        "0.3",
        "2.675",
        "-7.05",
        "123456.789012",
        "9.999999999999999",
        "0.000001",
        "4503599627370495.5",
        "1.7976931348623157e308",
        "5e-324",
    ] {
        let expected: f64 = token.parse().unwrap();
        let value = ok(&format!("v: {token}"));
        assert_eq!(value["v"].as_f64(), Some(expected), "{token}");
    }
}

#[test]
fn prototype_like_keys_are_plain_keys() {
    let doc = ok("__proto__:\n  admin: true\nconstructor: 1\nrows[1]{prototype}:\n  x");
    assert_eq!(
        doc,
        json!({"__proto__": {"admin": true}, "constructor": 1, "rows": [{"prototype": "x"}]})
    );
}

/// Asserts the error's line, column and message in both modes.
fn assert_error_in_both_modes(input: &str, line: usize, column: usize, message: &str) {
    for options in [strict(), lenient()] {
        let err = decode(input, &options).expect_err(input);
        assert_eq!(
            (err.line(), err.column(), err.message()),
            (line, column, message),
            "{input:?}, strict: {}",
            options.strict
        );
    }
}

#[test]
fn lenient_mode_keeps_its_recoveries() {
    // Depth jumps, tabs in indentation, counts and repeated keys.
    let doc = decode("a:\n    b: 1\nc: 2", &lenient()).unwrap();
    assert_eq!(doc, json!({"a": {"b": 1}, "c": 2}));
    let doc = decode("a:\n\tb: 1", &lenient()).unwrap();
    assert_eq!(doc, json!({"a": {"b": 1}}));
    let doc = decode("xs[3]: 1,2\nt[2]{a}:\n  1\nk: 1\nk: 2", &lenient()).unwrap();
    assert_eq!(doc, json!({"xs": [1, 2], "t": [{"a": 1}], "k": 2}));
    let doc = decode("xs[2]:\n  - 1\n\n  - 2", &lenient()).unwrap();
    assert_eq!(doc, json!({"xs": [1, 2]}));
}

#[test]
fn row_width_mismatches_error_in_both_modes() {
    // Unreleased after 4.3: non-strict mode no longer pads or cuts rows.
    assert_error_in_both_modes(
        "t[2]{a,b}:\n  1\n  2,3",
        2,
        3,
        "expected 2 values in this row, found 1",
    );
    assert_error_in_both_modes(
        "t[1]{a,b}:\n  2,3,4",
        2,
        3,
        "expected 2 values in this row, found 3",
    );
}

#[test]
fn over_indented_lines_error_in_both_modes() {
    // Unreleased after 4.3: a line under one that opens no block is an
    // error, never skipped.
    assert_error_in_both_modes(
        "a: 1\n    stray: 2\nb: 3",
        2,
        5,
        "unexpected indentation: the line above does not open a block",
    );
}

#[test]
fn trailing_content_after_a_root_array_errors_in_both_modes() {
    assert_error_in_both_modes(
        "[2]: 1,2\nb: 1",
        2,
        1,
        "unexpected content after the end of the root array",
    );
}

#[test]
fn malformed_headers_error_in_both_modes() {
    // 4.3: a `[` before the first colon must open a valid header; the
    // unreleased entry after it drops the non-strict key-value reading.
    assert_error_in_both_modes(
        "a[2:]{x}: 1",
        1,
        10,
        "a table header takes no values after its `:`; rows go on the following lines",
    );
    assert_error_in_both_modes(
        "a[2]x: 1",
        1,
        5,
        "expected `:` right after the array header",
    );
    assert_error_in_both_modes(
        "a[x]: 1",
        1,
        3,
        "invalid array length: expected a number like `[3]`",
    );
    assert_error_in_both_modes(
        "n: 1\nfoo [2]: a,b",
        2,
        4,
        "space between a key and its `[` array length",
    );
}

#[test]
fn strict_mode_rejects_tabs_on_blank_lines() {
    // 4.2: a tabs-only line is an error in strict mode; non-strict mode
    // treats it as blank.
    assert_error(
        "a:\n  b: 1\n\t\n  c: 2",
        3,
        1,
        "tab on a blank line; indent with spaces only",
    );
    assert_error(
        "a: 1\n  \t",
        2,
        3,
        "tab on a blank line; indent with spaces only",
    );
    let doc = decode("a:\n  b: 1\n\t\n  c: 2", &lenient()).unwrap();
    assert_eq!(doc, json!({"a": {"b": 1, "c": 2}}));
}

#[test]
fn later_whitespace_and_blank_line_rules_hold() {
    // Unreleased after 4.3: NBSP is content, blank lines and a trailing
    // newline are ignored, extra spaces may follow a list-item hyphen.
    assert_eq!(ok("a: \u{a0}x\u{a0}"), json!({"a": "\u{a0}x\u{a0}"}));
    assert_eq!(ok("\u{a0}a: 1"), json!({"\u{a0}a": 1}));
    assert_eq!(ok("a: 1\n\n\nb: 2\n"), json!({"a": 1, "b": 2}));
    assert_eq!(
        ok("xs[2]:\n  -   1\n  -  a: 2"),
        json!({"xs": [1, {"a": 2}]})
    );
    assert_error(
        "xs[1]:\n  -  a: 1\n     b: 2",
        3,
        6,
        "indentation of 5 spaces is not a multiple of 2",
    );
}

#[test]
fn zero_indent_size_is_an_error() {
    let options = DecodeOptions {
        indent_size: 0,
        ..DecodeOptions::default()
    };
    let err = decode("a: 1", &options).unwrap_err();
    assert_eq!(err.message(), "indent size must be at least 1");
}

#[test]
fn huge_declared_lengths_do_not_reserve_memory() {
    assert_error(
        "x[99999999999999]: 1",
        1,
        3,
        "expected 99999999999999 values, found 1",
    );
    let err = err("x[99999999999999999999999]: 1");
    assert_eq!(err.message(), "invalid array length: too large");
}

/// Nested objects `a:` one level per line, `levels` deep, indent 1.
fn nested_keys(levels: usize) -> String {
    let mut doc = String::new();
    for level in 0..levels {
        doc.push_str(&" ".repeat(level));
        doc.push_str("a:\n");
    }
    doc.push_str(&" ".repeat(levels));
    doc.push_str("leaf: 1");
    doc
}

/// Lists nested `levels` deep: `- [1]:` items, indent 1.
fn nested_lists(levels: usize) -> String {
    let mut doc = String::from("[1]:\n");
    for level in 1..levels {
        doc.push_str(&" ".repeat(level));
        doc.push_str("- [1]:\n");
    }
    doc.push_str(&" ".repeat(levels));
    doc.push_str("- x");
    doc
}

fn indent_one() -> DecodeOptions {
    DecodeOptions {
        indent_size: 1,
        ..DecodeOptions::default()
    }
}

#[test]
fn nesting_up_to_the_limit_decodes() {
    let doc = decode(&nested_keys(MAX_DEPTH), &indent_one()).unwrap();
    let mut inner = &doc;
    for _ in 0..MAX_DEPTH {
        inner = &inner["a"];
    }
    assert_eq!(inner, &json!({"leaf": 1}));
    assert!(decode(&nested_lists(MAX_DEPTH), &indent_one()).is_ok());
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // The decoder keeps its levels on the heap; the values of the deepest
    // documents it lets through drop recursively in `serde_json`, in
    // 256 KiB in release builds (an eighth of the usual size for spawned
    // threads) and 2 MiB in debug builds, whose frames are several times
    // larger. (The same on 64 KiB, values taken apart by hand: below.)
    let stack = if cfg!(debug_assertions) {
        2 << 20
    } else {
        256 * 1024
    };
    let handle = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(|| {
            for options in [
                indent_one(),
                DecodeOptions {
                    strict: false,
                    ..indent_one()
                },
            ] {
                assert!(decode(&nested_keys(MAX_DEPTH), &options).is_ok());
                assert!(decode(&nested_lists(MAX_DEPTH), &options).is_ok());
            }

            let too_deep = format!("nesting deeper than {MAX_DEPTH} levels");
            let err = decode(&nested_keys(2_000), &indent_one()).unwrap_err();
            assert_eq!(err.message(), too_deep);
            assert_eq!(err.line(), MAX_DEPTH + 1);

            let err = decode(&nested_lists(2_000), &indent_one()).unwrap_err();
            assert_eq!(err.message(), too_deep);

            // 100 000 nested field groups on one header line.
            let depth = 100_000;
            let header = format!("x[1]{}{}:\n  1", "{a".repeat(depth), "}".repeat(depth));
            let err = decode(&header, &strict()).unwrap_err();
            assert_eq!(
                err.message(),
                format!("field groups nested deeper than {MAX_DEPTH} levels")
            );
            let err = decode(&header, &lenient()).unwrap_err();
            assert_eq!(err.line(), 1);

            // 100 000 list markers on one line are one string, not 100 000 levels.
            let dashes = format!("xs[1]:\n  {}", "- ".repeat(100_000));
            assert!(decode(&dashes, &strict()).is_ok());
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn nesting_far_past_the_limit_is_an_error_on_a_small_stack() {
    // Objects and lists 2 000 levels deep (eight times the limit) on a
    // 64 KiB stack: the decoder's open levels are on the heap, so it stops
    // at the limit with its error, in debug builds too. (Field groups of a
    // header line are read by a recursion bounded by the same limit, whose
    // small frames fit there too.) The deepest
    // documents it takes decode there as well; their values are taken
    // apart level by level, since dropping a deep `Value` recurses.
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(|| {
            for options in [indent_one(), lenient_indent_one()] {
                let too_deep = format!("nesting deeper than {MAX_DEPTH} levels");
                let err = decode(&nested_keys(2_000), &options).unwrap_err();
                assert_eq!(
                    (err.message(), err.line()),
                    (too_deep.as_str(), MAX_DEPTH + 1)
                );
                let err = decode(&nested_lists(2_000), &options).unwrap_err();
                assert_eq!(
                    (err.message(), err.line()),
                    (too_deep.as_str(), MAX_DEPTH + 1)
                );

                for doc in [nested_keys(MAX_DEPTH), nested_lists(MAX_DEPTH)] {
                    let mut value = decode(&doc, &options).unwrap();
                    let mut levels = 0;
                    loop {
                        value = match value {
                            Value::Object(mut map) if map.contains_key("a") => {
                                map.remove("a").unwrap()
                            }
                            Value::Array(mut items) if items.len() == 1 => items.pop().unwrap(),
                            leaf => {
                                assert!(leaf == json!({"leaf": 1}) || leaf == json!("x"), "{leaf}");
                                break;
                            }
                        };
                        levels += 1;
                    }
                    assert_eq!(levels, MAX_DEPTH);
                }
            }
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
}

fn lenient_indent_one() -> DecodeOptions {
    DecodeOptions {
        strict: false,
        ..indent_one()
    }
}

#[test]
fn mangled_documents_never_panic() {
    let doc = "# c\nusers[2]{id,name,geo{lat,lon}}:\n  1,\"A\\u00e9\",1.5,-2\n  2,Bob,0,1e3\n\
               m[2:|]{v}:\n  a: x|\n  \"b\": 2\nlist[3\t]:\n  - [2\t]: a\tb\n  - k: v\n    n:\n      deep: \"q\"\n  -\n\
               root: [] \r\nend: \"\\\\\"";
    let specials = [
        b'\n', b' ', b'\t', b'"', b'\\', b':', b',', b'|', b'[', b']', b'{', b'}', b'-', b'#',
        b'0', b'\r', 0xff, 0xc3,
    ];
    let bytes = doc.as_bytes();
    for options in [strict(), lenient()] {
        for end in 0..=bytes.len() {
            let _ = decode_slice(&bytes[..end], &options);
        }
        for at in 0..bytes.len() {
            for &special in &specials {
                let mut mutated = bytes.to_vec();
                mutated[at] = special;
                let _ = decode_slice(&mutated, &options);
                mutated.insert(at, special);
                let _ = decode_slice(&mutated, &options);
            }
        }
    }
}

#[test]
fn repeated_table_headers_decode_alike() {
    let doc = ok(
        "orders[2]:\n  - items[2]{sku,qty}:\n      a,1\n      b,2\n    n: 1\n  \
                  - items[1]{sku,qty}:\n      c,3\n\
                  p[1|]{k}:\n  \"x|y\"\nq[1]{k}:\n  x|y",
    );
    assert_eq!(
        doc,
        json!({
            "orders": [
                {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}], "n": 1},
                {"items": [{"sku": "c", "qty": 3}]},
            ],
            "p": [{"k": "x|y"}],
            "q": [{"k": "x|y"}],
        })
    );
    // The same field-list text means different fields under another delimiter.
    let doc = decode("p[1|]{a|b}:\n  1|2\nq[1]{a|b}:\n  3", &lenient()).unwrap();
    assert_eq!(doc, json!({"p": [{"a": 1, "b": 2}], "q": [{"a|b": 3}]}));
    // More distinct headers than the cache holds, each used twice.
    let mut text = String::new();
    let mut expected = serde_json::Map::new();
    for round in 0..2 {
        for table in 0..12 {
            let key = format!("t{round}_{table}");
            text.push_str(&format!("{key}[1]{{f{table},g}}:\n  {table},{round}\n"));
            expected.insert(key, json!([{format!("f{table}"): table, "g": round}]));
        }
    }
    assert_eq!(ok(&text), Value::Object(expected));
}

#[test]
fn misplaced_items_say_where_they_belong() {
    assert_error(
        "xs[1]:\n    - a",
        2,
        5,
        "unexpected indentation: the items of this array are indented 2 spaces",
    );
}

/// `decode_to_json` as the tree would have it: `serde_json`'s text of
/// `decode`'s value (for documents whose numbers an `f64` holds).
fn tree_json(input: &str, options: &DecodeOptions) -> Result<Vec<u8>, String> {
    decode(input, options)
        .map(|value| serde_json::to_vec(&value).unwrap())
        .map_err(|err| err.to_string())
}

fn written_json(input: &str, options: &DecodeOptions, limit: usize) -> Result<Vec<u8>, String> {
    crate::decode_to_json(input.as_bytes(), options, limit).map_err(|err| err.to_string())
}

#[test]
fn the_writer_writes_what_the_tree_holds() {
    for input in [
        "",
        "[]",
        "7",
        "\"a\\tb\"",
        "a: 1\nb:\n  c: [2]: x,\"y,z\"\n",
        "a:\n  b:\n    c: \"\\u0001\\\\\"",
        "users[2]{id,name,geo{lat,lon}}:\n  1,Ada,1.5,-2\n  2,\"B, ob\",0,1e3",
        "m[2:]{v,w{x}}:\n  a: 1,2\n  \"b c\": 3,4",
        "[3]:\n  - a: 1\n    b[1]: x\n  - [2]: 1,2\n  - \n  - []\n  - t[1]{k}:\n      v\n    z: -0",
        "x[2|]{a|b}:\n  1|\"p|q\"\n  2|null",
        "k: true\nl: false\nm: null\nn: trueish\no: 01\np: -\nq: 1.",
        "e: \u{1}\u{7f}é",
    ] {
        for options in [strict(), lenient()] {
            let want = tree_json(input, &options);
            assert_eq!(written_json(input, &options, usize::MAX), want, "{input:?}");
        }
    }
}

#[test]
fn the_writer_refuses_with_the_trees_error() {
    for input in [
        "a: 1\na: 2",
        "a:\n  b: 1\n  b: [1]: x\n",
        "m[2:]{v}:\n  a: 1\n  a: 2",
        "t[1]{a,a}:\n  1,2",
        "xs[2]: a",
        "t[2]{a,b}:\n  1,2\n  3",
        "a: \"open",
        "a:\n    b: 1",
        "[1]:\n  - 1\nextra: 2",
        "a: \"x\"y",
    ] {
        let want = tree_json(input, &strict()).unwrap_err();
        assert_eq!(
            written_json(input, &strict(), usize::MAX),
            Err(want),
            "{input:?}"
        );
    }
}

#[test]
fn lenient_repeats_keep_the_first_place_and_the_last_value() {
    for input in [
        "a: 1\nb: 2\na: 3",
        "a:\n  x: 1\n  y: 2\n  x:\n    z: 3\nb: 4\na: 5",
        "m[3:]{v}:\n  p: 1\n  q: 2\n  p: 3",
        "t[2]{a,b,a}:\n  1,2,3\n  4,5,6",
        "t[1]{a,b{c,c},a{d}}:\n  1,2,3,4",
        "[2]:\n  - k: 1\n    k: 2\n  - k: 3",
    ] {
        let want = tree_json(input, &lenient()).unwrap();
        assert_eq!(
            written_json(input, &lenient(), usize::MAX),
            Ok(want.clone()),
            "{input:?}"
        );
        // The bound is for the text once rewritten.
        assert_eq!(
            written_json(input, &lenient(), want.len()),
            Ok(want.clone()),
            "{input:?}"
        );
        assert!(written_json(input, &lenient(), want.len() - 1).is_err());
    }
}

#[test]
fn the_writer_keeps_the_digits_no_float_holds() {
    let input = "a: 12345678901234567890123\nb: 0.30000000000000001\nc: 1.50\nd: 1e400\n\
                 e: -0\nf: 18446744073709551616\ng[2]: -12345678901234567890123.5e-3,1e3";
    let json = written_json(input, &strict(), usize::MAX).unwrap();
    assert_eq!(
        String::from_utf8(json).unwrap(),
        r#"{"a":12345678901234567890123,"b":0.30000000000000001,"c":1.5,"d":"1e400","e":0,"f":18446744073709551616,"g":[-12345678901234567890.1235,1000]}"#
    );
}

#[test]
fn the_output_bound_is_exact_and_errors_come_first() {
    let input = "xs[3]: 1,2,3\nname: Ada";
    let want = tree_json(input, &strict()).unwrap();
    assert_eq!(written_json(input, &strict(), want.len()), Ok(want.clone()));
    assert_eq!(
        written_json(input, &strict(), want.len() - 1),
        Err(format!(
            "the JSON would be longer than {} bytes",
            want.len() - 1
        ))
    );
    // A document that does not decode is a decode error whatever the bound.
    let broken = format!("{input}\nname: again");
    assert!(
        written_json(&broken, &strict(), 3)
            .unwrap_err()
            .starts_with("line 3")
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    #[test]
    fn the_writer_agrees_with_the_tree_on_any_json(json in crate::json_strategies::json_text()) {
        // The generator also makes numbers past `f64` (`0.1e310`), which
        // `serde_json` refuses: those documents have nothing to compare.
        let Ok(value) = serde_json::from_str::<Value>(&json) else {
            return Ok(());
        };
        let toon = crate::encode(&value, &Default::default());
        let written = written_json(&toon, &strict(), usize::MAX).unwrap();
        let back: Value = serde_json::from_slice(&written).unwrap();
        let tree = decode(&toon, &strict()).unwrap();
        if !crate::has_inexact_number(json.as_bytes()) {
            proptest::prop_assert_eq!(written, serde_json::to_vec(&tree).unwrap());
        } else {
            // Digits kept where the tree rounds: the same data as
            // `serde_json` reads them.
            let reread: Value = serde_json::from_slice(&serde_json::to_vec(&tree).unwrap()).unwrap();
            proptest::prop_assert_eq!(back, reread);
        }
    }
}
