//! Proptest strategies for JSON documents shaped like API responses, with
//! the TOON spec's corner cases mixed in: uniform lists (tables), nested
//! field groups, keyed tables, semi-uniform rows, lists of lists, and every
//! kind of string, key and number that changes how TOON writes a value.
//!
//! Two things are left out because JavaScript, where the reference
//! implementation runs, cannot carry them: integer-like keys (its objects
//! put them first, in numeric order) and integers beyond 2^53 (its numbers
//! are doubles).

use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// A key: identifiers that stay bare and every kind that needs quotes.
pub fn key() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        "",
        " ",
        "a b",
        " lead",
        "trail ",
        "a-b",
        "-x",
        "1a",
        "a:b",
        "a,b",
        "a|b",
        "a\tb",
        "new\nline",
        "quo\"te",
        "back\\slash",
        "[x]",
        "{y}",
        "#k",
        "é",
        "🚀",
        "a.b.c",
        "true",
        "null",
        "1e5",
        "\u{feff}k",
        "\u{a0}",
        "__proto__x",
        "a\u{1}b",
        "01",
    ]);
    prop_oneof![
        3 => "[a-z_][a-zA-Z0-9_]{0,8}",
        1 => "[a-z][a-z0-9_.]{0,6}",
        2 => tricky.prop_map(str::to_owned),
    ]
}

/// A string value: plain words, and pieces that force quotes anywhere.
pub fn string() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a", "word", " ", ",", "|", "\t", ":", "-", "- ", "#", "[", "]", "{", "}", "\"", "\\",
        "\n", "\r", "\u{1}", "\u{1f}", "\u{7f}", "true", "false", "null", "42", "-7", "3.14",
        "1e5", "1E-3", "05", "+1", "é", "🚀", "\u{a0}", "\u{feff}", "\u{2028}", "x y", "0.", ".5",
    ]);
    prop_oneof![
        3 => "[a-zA-Z][a-zA-Z0-9 ._@/-]{0,16}",
        3 => prop::collection::vec(piece, 0..4).prop_map(|pieces| pieces.concat()),
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
}

/// A number across the whole double range, and integers up to 2^53.
pub fn number() -> impl Strategy<Value = Number> {
    const SAFE: i64 = 1 << 53;
    let float = |f: f64| Number::from_f64(f).unwrap_or_else(|| Number::from(0));
    prop_oneof![
        3 => (0i64..1000).prop_map(Number::from),
        2 => (-SAFE..=SAFE).prop_map(Number::from),
        2 => any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(float),
        3 => (-999_999i64..999_999, -30i32..30)
            .prop_map(move |(m, e)| float(m as f64 * 10f64.powi(e))),
        1 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -3.0, 0.5, 1e-6, 1e-7, 9.99e-7, 1e20, 1e21, 1.5e21,
            123456789012345680000.0, 5e-324, f64::MAX, f64::MIN_POSITIVE,
            9007199254740993.0, 0.1 + 0.2,
        ])
        .prop_map(float),
    ]
}

/// Null, a boolean, a number or a string.
pub fn primitive() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        3 => number().prop_map(Value::Number),
        4 => string().prop_map(Value::String),
    ]
}

fn object(entries: Vec<(String, Value)>) -> Value {
    Value::Object(entries.into_iter().collect::<Map<_, _>>())
}

/// Distinct keys, `range` of them.
fn keys(range: std::ops::Range<usize>) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(key(), range).prop_map(|mut keys| {
        let mut seen = std::collections::HashSet::new();
        keys.retain(|key| seen.insert(key.clone()));
        keys
    })
}

/// A record with the fields `keys`: primitives, or (when `nested`) a
/// nested object of fixed sub-keys, the same for every record of a list.
fn record(keys: Vec<String>, nested: Option<(usize, Vec<String>)>) -> BoxedStrategy<Value> {
    let fields: Vec<BoxedStrategy<(String, Value)>> = keys
        .into_iter()
        .enumerate()
        .map(|(i, key)| match &nested {
            Some((at, sub)) if *at == i => {
                let sub = sub.clone();
                prop::collection::vec(primitive(), sub.len())
                    .prop_map(move |values| {
                        (
                            key.clone(),
                            object(sub.iter().cloned().zip(values).collect()),
                        )
                    })
                    .boxed()
            }
            _ => primitive()
                .prop_map(move |value| (key.clone(), value))
                .boxed(),
        })
        .collect();
    fields.prop_map(object).boxed()
}

/// A uniform list of records, some with a nested field group: a table.
pub fn uniform_list() -> impl Strategy<Value = Value> {
    (
        keys(1..6),
        keys(1..4),
        any::<prop::sample::Index>(),
        any::<bool>(),
        1usize..6,
    )
        .prop_flat_map(|(keys, sub, at, nested, rows)| {
            let nested = (nested && !sub.is_empty()).then(|| (at.index(keys.len()), sub));
            prop::collection::vec(record(keys, nested), rows)
        })
        .prop_map(Value::Array)
}

/// An object of two or more records of one shape: a keyed table.
pub fn keyed_table() -> impl Strategy<Value = Value> {
    (keys(2..5), keys(1..4), keys(1..3), any::<bool>())
        .prop_flat_map(|(entry_keys, fields, sub, nested)| {
            let nested = nested.then_some((0, sub));
            let n = entry_keys.len();
            (
                Just(entry_keys),
                prop::collection::vec(record(fields, nested), n),
            )
        })
        .prop_map(|(entry_keys, records)| object(entry_keys.into_iter().zip(records).collect()))
}

/// Records that mostly share fields but not all: list form.
pub fn semi_uniform_rows() -> impl Strategy<Value = Value> {
    (keys(2..6), 2usize..5)
        .prop_flat_map(|(keys, rows)| {
            let row = prop::collection::vec((any::<bool>(), primitive()), keys.len()).prop_map(
                move |cells| {
                    let entries = keys
                        .iter()
                        .cloned()
                        .zip(cells)
                        .filter(|(_, (keep, _))| *keep)
                        .map(|(key, (_, value))| (key, value))
                        .collect();
                    object(entries)
                },
            );
            prop::collection::vec(row, rows)
        })
        .prop_map(Value::Array)
}

/// Lists of lists of primitives, and lists mixing lists, records and primitives.
pub fn list_of_lists() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::collection::vec(
            prop::collection::vec(primitive(), 0..4).prop_map(Value::Array),
            1..4
        )
        .prop_map(Value::Array),
        prop::collection::vec(
            prop_oneof![
                prop::collection::vec(primitive(), 0..3).prop_map(Value::Array),
                uniform_list(),
                primitive(),
                keys(0..3).prop_flat_map(|keys| record(keys, None)),
            ],
            1..4,
        )
        .prop_map(Value::Array),
    ]
}

/// Any JSON value, a few levels deep.
pub fn any_value() -> impl Strategy<Value = Value> {
    primitive().prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..5).prop_map(object),
        ]
    })
}

/// A whole document: one of the API shapes, alone, in an envelope, or
/// beside other fields; or any value at all.
pub fn document() -> impl Strategy<Value = Value> {
    let shape = prop_oneof![
        uniform_list(),
        keyed_table(),
        semi_uniform_rows(),
        list_of_lists(),
        any_value(),
    ];
    prop_oneof![
        2 => shape.clone(),
        2 => (shape.clone(), keys(0..3), prop::collection::vec(primitive(), 3)).prop_map(
            |(data, extra, values)| {
                let mut entries = vec![("data".to_owned(), data)];
                entries.extend(extra.into_iter().filter(|k| k != "data").zip(values));
                object(entries)
            }
        ),
        1 => prop::collection::vec((key(), shape), 1..4).prop_map(object),
        1 => primitive(),
    ]
}
