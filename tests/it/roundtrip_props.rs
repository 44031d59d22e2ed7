//! Property tests of the TOON codec.
//!
//! - `decode(encode(v))` is `v` for arbitrary JSON values, for each delimiter
//!   and indentation 2 and 4 (numbers compared by exact value: TOON writes the
//!   float `1.0` as `1`).
//! - `encode_json` of the JSON text of `v` is exactly `encode(v)`.
//! - Decoding never panics, whatever the bytes.

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Map, Number, Value};
use terse_tests::values::difference;
use terse_toon::{DecodeOptions, Delimiter, EncodeOptions};

const DELIMITERS: [Delimiter; 3] = [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe];
const INDENTS: [usize; 2] = [2, 4];

/// Strings that collide with TOON syntax or with other JSON types.
const TRICKY: &[&str] = &[
    "",
    " ",
    "  ",
    "a b",
    " lead",
    "trail ",
    "\tx",
    "x\t",
    ",",
    "|",
    "\t",
    "a,b",
    "a|b",
    "a\tb",
    ":",
    "a:b",
    "a: b",
    "key:",
    "\"",
    "\"q\"",
    "'",
    "\\",
    "a\\b",
    "#",
    "# c",
    "a#b",
    "-",
    "--",
    "- x",
    "-a",
    "-1",
    "-0",
    "0",
    "00",
    "007",
    "1",
    "1.0",
    "1.5",
    "1e3",
    "1E3",
    "1e-7",
    "-1e+3",
    ".5",
    "5.",
    "+1",
    "0x10",
    "1_000",
    "NaN",
    "Infinity",
    "-Infinity",
    "true",
    "false",
    "null",
    "True",
    "NULL",
    "[",
    "]",
    "[2]",
    "[2]:",
    "a[2]",
    "{",
    "}",
    "{a}",
    "{a,b}",
    "[1]{x}:",
    "\n",
    "a\nb",
    "\r\n",
    "\u{0}",
    "\u{1}",
    "\u{7}",
    "\u{1b}[31m",
    "\u{1f}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}",
    "\u{feff}x",
    "é",
    "日本語",
    "ключ",
    "🎉",
    "👩\u{200d}💻",
    "e\u{301}",
    "עברית",
    "𝔘𝔫𝔦",
];

/// Characters that exercise quoting, escaping and delimiters when mixed.
const ALPHABET: &[char] = &[
    'a', 'b', 'z', 'A', '0', '1', '9', ' ', ' ', ',', '|', '\t', ':', '"', '\\', '#', '-', '.',
    '+', 'e', 'E', '[', ']', '{', '}', '\n', '\r', '\u{0}', '\u{1f}', 'é', '日', '🎉', '\'', '/',
];

fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(TRICKY).prop_map(str::to_owned),
        3 => prop::collection::vec(prop::sample::select(ALPHABET), 0..12)
            .prop_map(|chars| chars.into_iter().collect()),
        2 => "[a-z_][a-z0-9_]{0,10}",
        1 => any::<String>(),
        1 => (prop::sample::select(TRICKY), prop::sample::select(TRICKY), "[a-z]{0,3}")
            .prop_map(|(a, b, c)| format!("{a}{c}{b}")),
        1 => (any::<i64>(), prop::sample::select(&["", " ", ".0", "e2", "-"][..]))
            .prop_map(|(n, suffix)| format!("{n}{suffix}")),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    let special_floats = prop::sample::select(
        &[
            0.0,
            -0.0,
            0.1,
            -1.5,
            1e-7,
            1.5e-10,
            5e-324,
            2.2250738585072014e-308,
            1e21,
            1.7976931348623157e308,
            -1.7976931348623157e308,
            123456789.125,
            9007199254740993.0,
            0.30000000000000004,
            1e300,
            -1e-300,
        ][..],
    );
    prop_oneof![
        3 => any::<i64>().prop_map(Value::from),
        2 => any::<u64>().prop_map(Value::from),
        2 => (-1000i64..1000).prop_map(Value::from),
        2 => (prop::num::f64::POSITIVE | prop::num::f64::NEGATIVE | prop::num::f64::NORMAL)
            .prop_map(float),
        1 => (prop::num::f64::POSITIVE | prop::num::f64::NEGATIVE | prop::num::f64::SUBNORMAL)
            .prop_map(float),
        1 => special_floats.prop_map(float),
        1 => (-1_000_000i64..1_000_000, 1u32..7).prop_map(|(n, scale)| {
            float(n as f64 / 10f64.powi(scale as i32))
        }),
        1 => Just(Value::from(i64::MIN)),
        1 => Just(Value::from(u64::MAX)),
    ]
}

fn float(f: f64) -> Value {
    Value::Number(Number::from_f64(f).expect("finite float"))
}

fn primitive() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        3 => number(),
        4 => tricky_string().prop_map(Value::String),
    ]
}

fn object_of(entries: Vec<(String, Value)>) -> Value {
    let mut map = Map::new();
    for (key, value) in entries {
        map.insert(key, value);
    }
    Value::Object(map)
}

/// Uniform records (the tabular form): the same keys in the same order, with
/// primitive values, sometimes one nested object of primitives per record (a
/// nested field group). `keyed` makes an object of such records instead of an
/// array (the keyed tabular form).
fn records(keyed: bool) -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(tricky_string(), 1..5),
        prop::option::of(prop::collection::vec(tricky_string(), 1..3)),
        1usize..7,
    )
        .prop_flat_map(move |(keys, nested_keys, rows)| {
            let fields = keys.len();
            let nested = nested_keys.as_ref().map_or(0, Vec::len);
            let row = (
                prop::collection::vec(primitive(), fields),
                prop::collection::vec(primitive(), nested),
            );
            (
                Just((keys, nested_keys)),
                prop::collection::vec(row, rows),
                prop::collection::vec(tricky_string(), rows),
            )
        })
        .prop_map(move |((keys, nested_keys), rows, names)| {
            let records: Vec<Value> = rows
                .into_iter()
                .map(|(values, nested_values)| {
                    let mut entries: Vec<(String, Value)> =
                        keys.iter().cloned().zip(values).collect();
                    if let Some(nested_keys) = &nested_keys {
                        let inner = nested_keys.iter().cloned().zip(nested_values).collect();
                        entries.insert(entries.len() / 2, ("nested".to_owned(), object_of(inner)));
                    }
                    object_of(entries)
                })
                .collect();
            if keyed {
                object_of(names.into_iter().zip(records).collect())
            } else {
                Value::Array(records)
            }
        })
}

/// Arbitrary JSON, deep and wide, weighted towards the shapes TOON treats
/// specially.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        6 => primitive(),
        1 => records(false),
        1 => records(true),
    ];
    leaf.prop_recursive(8, 256, 10, |inner| {
        prop_oneof![
            2 => prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
            1 => prop::collection::vec(primitive(), 0..12).prop_map(Value::Array),
            3 => prop::collection::vec((tricky_string(), inner), 0..10).prop_map(object_of),
        ]
    })
}

fn encode_options(delimiter: Delimiter, indent_size: usize) -> EncodeOptions {
    EncodeOptions::new()
        .with_delimiter(delimiter)
        .with_indent_size(indent_size)
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn decode_of_encode_is_identity(value in json_value()) {
        for delimiter in DELIMITERS {
            for indent_size in INDENTS {
                let text = terse_toon::encode(&value, &encode_options(delimiter, indent_size));
                let decoded = terse_toon::decode(&text, &DecodeOptions::new().with_indent_size(indent_size).with_strict(true));
                let decoded = match decoded {
                    Ok(decoded) => decoded,
                    Err(err) => {
                        return Err(TestCaseError::fail(format!(
                            "{delimiter:?}, indent {indent_size}: our output does not decode: {err}\n{text}"
                        )));
                    }
                };
                if let Some(diff) = difference(&decoded, &value) {
                    return Err(TestCaseError::fail(format!(
                        "{delimiter:?}, indent {indent_size}: {diff}\n{text}"
                    )));
                }
            }
        }
    }

    #[test]
    fn encode_json_agrees_with_encode(value in json_value()) {
        let json = serde_json::to_string(&value).unwrap();
        for delimiter in DELIMITERS {
            for indent_size in INDENTS {
                let options = encode_options(delimiter, indent_size);
                let from_text = terse_toon::encode_json(&json, &options);
                prop_assert!(from_text.is_ok(), "valid JSON refused: {:?}", from_text.err());
                prop_assert_eq!(from_text.unwrap(), terse_toon::encode(&value, &options));
            }
        }
    }
}

/// Each tricky string in every position: the root, an inline array, a
/// tabular cell, a list item, a key and a nested value.
#[test]
fn tricky_strings_round_trip_in_every_position() {
    let mut failures = Vec::new();
    for &text in TRICKY {
        let s = Value::from(text);
        let positions = [
            ("root", s.clone()),
            ("inline array", serde_json::json!([s, "x"])),
            (
                "table cell",
                serde_json::json!([{"k": s, "n": 1}, {"k": "y", "n": 2}]),
            ),
            ("list item", serde_json::json!([[1], s, {"a": 1}])),
            ("key", object_of(vec![(text.to_owned(), Value::from(1))])),
            (
                "table field",
                serde_json::json!([object_of(vec![(text.to_owned(), Value::from(1))])]),
            ),
            ("nested value", serde_json::json!({"a": {"b": s}})),
        ];
        for (position, value) in positions {
            for delimiter in DELIMITERS {
                let text_out = terse_toon::encode(&value, &encode_options(delimiter, 2));
                match terse_toon::decode(&text_out, &DecodeOptions::default()) {
                    Ok(decoded) if decoded == value => {}
                    Ok(decoded) => failures.push(format!(
                        "{text:?} as {position} ({delimiter:?}): {text_out:?} decodes to {decoded}"
                    )),
                    Err(err) => failures.push(format!(
                        "{text:?} as {position} ({delimiter:?}): {text_out:?}: {err}"
                    )),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every decoder mode, on input that must not make it panic.
fn decode_all_modes(bytes: &[u8]) {
    for strict in [true, false] {
        for indent_size in [1, 2, 4] {
            let _ = terse_toon::decode_slice(
                bytes,
                &DecodeOptions::new()
                    .with_indent_size(indent_size)
                    .with_strict(strict),
            );
        }
    }
}

/// Pieces of TOON syntax, so that random documents get past the first line.
const PIECES: &[&str] = &[
    "a", "key", "\"q\"", ":", ": ", " ", "  ", "    ", "\t", "\n", "\r\n", "-", "- ", ",", "|",
    "[", "]", "[2]", "[0]", "[3\t]", "[2|]", "[2:]", "{", "}", "{a,b}", "{a,b{c}}", "1", "-0",
    "1e3", "true", "null", "#", "# c\n", "\"", "\\", "\\u00", "\\n", "é", "🎉", "\u{0}", "\u{ff}",
];

proptest! {
    #![proptest_config(Config { cases: 1024, ..Config::default() })]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        decode_all_modes(&bytes);
    }

    #[test]
    fn decoding_toon_like_text_never_panics(
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..80),
    ) {
        decode_all_modes(pieces.concat().as_bytes());
    }

    #[test]
    fn decoding_damaged_toon_never_panics(
        value in json_value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let mut bytes = terse_toon::encode(&value, &EncodeOptions::default()).into_bytes();
        for (at, byte, kind) in edits {
            let at = at.index(bytes.len() + 1);
            match kind {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => { bytes.remove(at); }
                _ if at < bytes.len() => bytes[at] = byte,
                _ => bytes.push(byte),
            }
        }
        decode_all_modes(&bytes);
    }
}

/// Deep nesting is an error or a value, never a stack overflow (test threads
/// have small stacks, so unbounded recursion would fail here).
#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 3_000;
    let objects: String = (0..depth)
        .map(|level| format!("{}a:\n", "  ".repeat(level)))
        .collect();
    decode_all_modes(objects.as_bytes());

    let lists: String = (1..=depth)
        .map(|level| format!("{}- [1]:\n", "  ".repeat(level)))
        .collect();
    decode_all_modes(format!("[1]:\n{lists}").as_bytes());
}
