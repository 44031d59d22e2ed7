//! A document must read as the `serde_json::Value` of the same text: the same
//! data, the same JSON written back, the same typed values and errors.

use std::collections::HashMap;

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use super::{Document, Kind};
use crate::json_strategies::{json_text, number_token};

/// Checks every view of the document against `serde_json` for one text.
fn check(json: &str) {
    let expected = serde_json::from_str::<Value>(json);
    let document = Document::parse(json);
    let (expected, document) = match (expected, document) {
        (Ok(value), Ok(document)) => (value, document),
        (Err(_), Err(_)) => return,
        (expected, document) => {
            panic!("json: {json}\nserde_json: {expected:?}\ndocument: {document:?}")
        }
    };
    let root = document.root();
    let written = serde_json::to_string(&expected).unwrap();
    assert_eq!(
        serde_json::to_string(&root).unwrap(),
        written,
        "json: {json}"
    );
    assert_eq!(root.to_value(), expected, "json: {json}");
    assert_eq!(Value::deserialize(root).unwrap(), expected, "json: {json}");
    let copied = Document::from_value(&expected);
    assert_eq!(serde_json::to_string(&copied.root()).unwrap(), written);
    assert_same_typed::<Record>(json, root, &expected);
    assert_same_typed::<Vec<Record>>(json, root, &expected);
    assert_same_typed::<HashMap<String, Option<f64>>>(json, root, &expected);
    assert_same_typed::<(u8, i64, String)>(json, root, &expected);
    unescaped_strings_are_their_own_json(root);
    entries_are_found_by_position(root);
    objects_of_one_key_id_have_one_key_list(root);
    entries_of_one_place_have_one_key(root);
    assert!(all_strings(copied.root()).all(|s| s.as_unescaped_str().is_none()));
}

/// Every object under `node` (itself included) gives each entry by its
/// position, and its position by its key.
fn entries_are_found_by_position(node: super::Node<'_>) {
    let json = |node: super::Node<'_>| serde_json::to_string(&node).unwrap();
    let entries: Vec<_> = node.entries().collect();
    for (position, &(key, value)) in entries.iter().enumerate() {
        let (at_key, at_value) = node.entry(position).unwrap();
        assert_eq!((at_key, json(at_value)), (key, json(value)));
        let (found, found_value) = node.find(key).unwrap();
        assert_eq!((found, json(found_value)), (position, json(value)));
        for guess in [position, position + 1, 0, usize::MAX] {
            let (from, from_value) = node.find_from(key, guess).unwrap();
            assert_eq!((from, json(from_value)), (position, json(value)));
        }
        entries_are_found_by_position(value);
    }
    assert!(node.entry(entries.len()).is_none());
    for item in node.items() {
        entries_are_found_by_position(item);
    }
}

/// The id the parser gave the keys of the object `node` (0 for none, and
/// for any other node).
fn keys_id(node: super::Node<'_>) -> u16 {
    match node.slot() {
        super::Slot::Object { keys, .. } => keys,
        _ => 0,
    }
}

/// Every object under `node` (itself included), in document order.
fn all_objects<'t>(node: super::Node<'t>, objects: &mut Vec<super::Node<'t>>) {
    if node.is_object() {
        objects.push(node);
    }
    for item in node.items() {
        all_objects(item, objects);
    }
    for (_, value) in node.entries() {
        all_objects(value, objects);
    }
}

/// Objects the parser gave one key id (not 0) and one length have the
/// same keys in the same order.
fn objects_of_one_key_id_have_one_key_list(root: super::Node<'_>) {
    let mut objects = Vec::new();
    all_objects(root, &mut objects);
    let mut lists: HashMap<(u16, usize), (Vec<&str>, super::Node<'_>)> = HashMap::new();
    for object in objects {
        let id = keys_id(object);
        if id == 0 {
            continue;
        }
        let keys: Vec<&str> = object.entries().map(|(key, _)| key).collect();
        let (first, seen) = lists
            .entry((id, keys.len()))
            .or_insert_with(|| (keys.clone(), object));
        assert_eq!(&keys, first, "{object:?} and {seen:?} have one id");
    }
}

/// Entries the emitter finds by their place (from their object's
/// [`Node::places`] and their position) have one key per place.
fn entries_of_one_place_have_one_key(root: super::Node<'_>) {
    let mut objects = Vec::new();
    all_objects(root, &mut objects);
    let mut keys: HashMap<u32, &str> = HashMap::new();
    for object in objects {
        let places = object.places();
        if places == 0 {
            continue;
        }
        let mut entries = object.raw_entries();
        for (key, _) in object.entries() {
            entries.next();
            let place = entries.last_place(places);
            assert_ne!(place, 0);
            let first = keys.entry(place).or_insert(key);
            assert_eq!(*first, key, "{object:?}: place {place}");
        }
    }
}

#[test]
fn records_of_one_key_list_are_given_one_id() {
    // (JSON, pairs of elements of the root array that are given one id,
    // elements given none.) Ids are given only as far as the heads the
    // parser keeps tell (an object after one of other keys in its place
    // may get an id of its own); `check` holds every id to one key list.
    type Case = (&'static str, &'static [(usize, usize)], &'static [usize]);
    let cases: [Case; 10] = [
        (
            r#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6}]"#,
            &[(0, 1), (1, 2)],
            &[],
        ),
        (
            r#"[{"a":1, "b":2}, 7, {"a":3, "b":{"c":4}}]"#,
            &[(0, 2)],
            &[],
        ),
        (
            r#"[{"a":1,"b":2},{"b":3,"a":4},{"b":5,"a":6}]"#,
            &[(1, 2)],
            &[],
        ),
        (r#"[{"a":1,"b":2},{"a":3},{"a":5,"b":6}]"#, &[(0, 2)], &[]),
        (r#"[{"a":1,"b":2},{"a":3,"b":4,"a":5}]"#, &[], &[1]),
        (
            r#"[{"a":1,"b":2,"a":3},{"a":3,"b":4},{"a":3,"b":4}]"#,
            &[(1, 2)],
            &[0],
        ),
        (r#"[{"ab":1},{"a\u0062":2},{"ab":3}]"#, &[(0, 2)], &[]),
        (r#"[{"a":1},{},{"a":2}]"#, &[(0, 2)], &[1]),
        (r#"[{"a":{"b":1}},{"a":{"b":2}}]"#, &[(0, 1)], &[]),
        (r#"[{"a":1,"b":2},{"a":3,"c":4},{"a":5,"c":6}]"#, &[], &[1]),
    ];
    for (json, same, none) in cases {
        // Heads are compared where 16 bytes follow: the text is padded.
        let json = &format!("{json}{}", " ".repeat(16));
        let document = Document::parse(json).unwrap();
        let ids: Vec<u16> = document.root().items().map(keys_id).collect();
        for &(a, b) in same {
            assert!(ids[a] != 0 && ids[a] == ids[b], "{json}: {ids:?}");
        }
        for &at in none {
            assert_eq!(ids[at], 0, "{json}: {ids:?}");
        }
        check(json);
    }
    // Records of other lists, and objects within records, of one key list.
    let json = r#"[[{"a":1}],[{"a":2},{"a":3}],{"x":{"b":1},"y":[{"x":{"b":2}}]}]"#;
    let json = format!("{json}{}", " ".repeat(16));
    let document = Document::parse(&json).unwrap();
    let root = document.root();
    let inner: Vec<u16> = (root.items().take(2))
        .flat_map(|list| list.items().map(keys_id))
        .collect();
    assert!(
        inner[0] != 0 && inner.iter().all(|&id| id == inner[0]),
        "{inner:?}"
    );
    let third = root.item(2).unwrap();
    assert_ne!(keys_id(third.get("x").unwrap()), 0);
}

/// Every string of the tree under `node`, keys aside.
fn all_strings(node: super::Node<'_>) -> Box<dyn Iterator<Item = super::Node<'_>> + '_> {
    match node.kind() {
        Kind::String(_) => Box::new(std::iter::once(node)),
        Kind::Array(_) => Box::new(node.items().flat_map(all_strings)),
        Kind::Object(_) => Box::new(node.entries().flat_map(|(_, value)| all_strings(value))),
        _ => Box::new(std::iter::empty()),
    }
}

/// A string read without an escape, put between quotes, is the JSON
/// serde_json writes for it.
fn unescaped_strings_are_their_own_json(root: super::Node<'_>) {
    for string in all_strings(root) {
        if let Some(text) = string.as_unescaped_str() {
            assert_eq!(Some(text), string.as_str());
            assert_eq!(format!("\"{text}\""), serde_json::to_string(text).unwrap());
        }
    }
}

fn assert_same_typed<'t, T>(json: &str, node: super::Node<'t>, value: &'t Value)
where
    T: Deserialize<'t> + PartialEq + std::fmt::Debug,
{
    let from_node = T::deserialize(node).map_err(|e| e.to_string());
    let from_value = T::deserialize(value).map_err(|e| e.to_string());
    assert_eq!(from_node, from_value, "json: {json}");
}

/// A record with the field types services use, over the strategy's keys.
#[derive(Debug, PartialEq, Deserialize)]
struct Record {
    id: Option<u32>,
    name: Option<String>,
    a: Option<Vec<i64>>,
    #[serde(default)]
    b: Option<Shape>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Shape {
    Dot,
    Line(f64),
    Box { w: u8, h: u8 },
    Pair(bool, bool),
}

#[test]
fn typed_values_and_errors_match_serde_json() {
    for json in [
        r#"{"id": 7, "name": "Ada", "a": [1, -2], "b": "dot"}"#,
        r#"{"id": 7, "b": {"line": 1.5}}"#,
        r#"{"id": 7, "b": {"box": {"w": 1, "h": 2}}}"#,
        r#"{"id": 7, "b": {"pair": [true, false]}}"#,
        r#"{"id": 7, "b": {"box": {"w": 1}}}"#,
        r#"{"id": 7, "b": {"dot": null, "line": 1}}"#,
        r#"{"id": 7, "b": "circle"}"#,
        r#"{"id": 7, "b": 3}"#,
        r#"{"id": "7"}"#,
        r#"{"id": -7}"#,
        r#"{"id": 7.0}"#,
        r#"{"id": 4294967296}"#,
        r#"{"name": 1}"#,
        r#"{"a": [1, 2.5]}"#,
        r#"{"a": {"x": 1}}"#,
        r#"[7, "Ada", [1], "dot"]"#,
        r#"[7, "Ada", [1], "dot", 5]"#,
        r#"[{"id": 1}, {"id": null}, {"id": true}]"#,
        r#"[255, -9223372036854775808, "x"]"#,
        r#"[256, 0, "x"]"#,
        r#"{"x": 1, "y": null, "z": -0.0}"#,
        r#"{"x": "1"}"#,
        "null",
        "\"text\"",
    ] {
        check(json);
    }
}

#[test]
fn keys_read_as_numbers_like_serde_json() {
    let json = r#"{"7": "a", "12": "b"}"#;
    let value: Value = serde_json::from_str(json).unwrap();
    let document = Document::parse(json).unwrap();
    assert_same_typed::<HashMap<u32, String>>(json, document.root(), &value);
    let bad = r#"{"x": "a"}"#;
    let value: Value = serde_json::from_str(bad).unwrap();
    let document = Document::parse(bad).unwrap();
    assert_same_typed::<HashMap<u32, String>>(bad, document.root(), &value);
}

#[test]
fn strings_borrow_from_the_text() {
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        name: &'a str,
    }
    let json = r#"{"name": "Ada"}"#;
    let document = Document::parse(json).unwrap();
    let record = Borrowed::deserialize(document.root()).unwrap();
    assert_eq!(record.name, "Ada");
    let name = document.root().get("name").unwrap();
    assert_eq!(name.as_unescaped_str(), Some("Ada"));
    let escaped = Document::parse(r#"["A\u0064a", "\"", ""]"#).unwrap();
    let texts: Vec<_> = escaped
        .root()
        .items()
        .map(|s| s.as_unescaped_str())
        .collect();
    assert_eq!(texts, [None, None, Some("")]);
}

/// An object of `keys` distinct keys, then `extra` more entries.
fn wide_object(keys: usize, extra: &str) -> String {
    let entries: Vec<String> = (0..keys).map(|k| format!("\"k{k}\":{k}")).collect();
    format!("{{{}{extra}}}", entries.join(","))
}

#[test]
fn a_wide_object_is_checked_for_repeated_keys_in_linear_work() {
    // Each key of a wide object used to be compared with every earlier
    // key once the 128-bit filter was full: an 80 000-key object (1 MB)
    // took 13 s. Now a key is compared with the earlier ones only when its
    // hash was seen before.
    let json = wide_object(100_000, "");
    super::parse::KEY_SCANS.with(|scans| scans.set(0));
    let document = Document::parse(&json).unwrap();
    let scans = super::parse::KEY_SCANS.with(std::cell::Cell::get);
    assert!(scans < 100, "{scans} full scans for 100 000 distinct keys");
    assert_eq!(document.root().entries().count(), 100_000);
}

#[test]
fn repeated_keys_of_wide_objects_are_found_wherever_they_are() {
    for (keys, extra) in [
        // Past the filter, repeating an early key, the last one, a middle one.
        (100, r#","k0":"last""#),
        (100, r#","k99":"last""#),
        (40, r#","k33":"last""#),
        // At the switch from the filter to the set.
        (32, r#","k31":"last""#),
        (33, r#","k32":"last""#),
        // Repeated twice.
        (64, r#","k5":"again","k5":"last""#),
    ] {
        let json = wide_object(keys, extra);
        check(&json);
        let value: Value = serde_json::from_str(&json).unwrap();
        let document = Document::parse(&json).unwrap();
        assert_eq!(
            document.root().to_value(),
            value,
            "{keys} keys then {extra}"
        );
        assert_eq!(
            document.root().entries().count(),
            keys,
            "{keys} keys then {extra}"
        );
    }
    // Distinct keys past the switch stay on the one-pass path.
    check(&wide_object(200, r#","other":true"#));
}

#[test]
fn repeated_keys_with_nested_values_keep_the_last_one_in_place() {
    for json in [
        r#"{"a":{"x":[1,{"y":2}]},"b":[3],"a":{"z":{"w":[4,5]}},"c":1}"#,
        r#"[{"a":[1,[2,[3]]],"a":[],"b":{"a":1,"a":{"a":2,"a":[3]}}},{"a":0}]"#,
        r#"{"k":1,"k":2,"k":3,"j":{"k":[{"k":1,"k":{}}]},"k":[[]]}"#,
    ] {
        check(json);
    }
}

#[test]
fn repeated_keys_read_as_serde_json_reads_them_and_errors_are_its_own() {
    let document = Document::parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&document.root()).unwrap(),
        r#"{"a":3,"b":2}"#
    );
    let err = Document::parse("[1, 2").unwrap_err();
    let expected = serde_json::from_str::<Value>("[1, 2").unwrap_err();
    assert!(matches!(&err, crate::Error::Json(e) if e.to_string() == expected.to_string()));
}

#[test]
fn navigation() {
    let document = Document::parse(r#"{"a": [10, {"b": "x"}], "c": true}"#).unwrap();
    let root = document.root();
    let a = root.get("a").unwrap();
    assert_eq!(
        a.item(0)
            .and_then(|n| n.as_number())
            .and_then(|n| n.as_u64()),
        Some(10)
    );
    assert_eq!(
        a.item(1).and_then(|n| n.get("b")).and_then(|n| n.as_str()),
        Some("x")
    );
    assert!(a.item(2).is_none());
    assert_eq!(root.get("c").and_then(|n| n.as_bool()), Some(true));
    assert!(root.get("d").is_none());
    assert!(a.get("b").is_none());
    assert_eq!(root.entries().len(), 2);
    assert!(matches!(a.kind(), Kind::Array(2)));
    assert_eq!(format!("{root:?}"), r#"{"a":[10,{"b":"x"}],"c":true}"#);
    // By position: past a nested value, and in a flat object.
    assert_eq!(
        root.entry(1).map(|(k, v)| (k, v.as_bool())),
        Some(("c", Some(true)))
    );
    assert_eq!(root.find("c").map(|(at, _)| at), Some(1));
    assert!(root.entry(2).is_none() && a.entry(0).is_none() && root.find("b").is_none());
    let flat = Document::parse(r#"{"x": 1, "y": "z"}"#).unwrap();
    assert_eq!(
        flat.root().entry(1).map(|(k, v)| (k, v.as_str())),
        Some(("y", Some("z")))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn documents_read_like_values(json in json_text()) {
        check(&json);
    }

    #[test]
    fn numbers_read_like_serde_json(token in number_token()) {
        check(&token);
        let Ok(value) = serde_json::from_str::<Value>(&token) else { return Ok(()) };
        let expected = value.as_number().unwrap();
        let document = Document::parse(&token).unwrap();
        let number = document.root().as_number().unwrap();
        prop_assert_eq!(number.to_string(), expected.to_string());
        let mut pushed = String::from(">");
        number.push_json_text(&mut pushed);
        prop_assert_eq!(&pushed[1..], expected.to_string());
        prop_assert_eq!(number.as_u64(), expected.as_u64());
        prop_assert_eq!(number.as_i64(), expected.as_i64());
        prop_assert_eq!(number.as_f64().to_bits(), expected.as_f64().unwrap().to_bits());
        prop_assert_eq!(number.is_f64(), expected.is_f64());
    }

    /// Decimals around where a float's text is written as read (15
    /// significant digits, 1e-4) and where it is not.
    #[test]
    fn decimals_write_like_serde_json(
        negative in any::<bool>(),
        int in "(0|[1-9][0-9]{0,17})",
        zeros in "0{0,7}",
        frac in "[0-9]{0,17}[1-9]",
    ) {
        let token = format!("{}{int}.{zeros}{frac}", if negative { "-" } else { "" });
        let value: Value = serde_json::from_str(&token).unwrap();
        let document = Document::parse(&token).unwrap();
        let number = document.root().as_number().unwrap();
        prop_assert_eq!(number.to_string(), value.to_string(), "{}", token);
        let mut pushed = String::new();
        number.push_json_text(&mut pushed);
        prop_assert_eq!(pushed, value.to_string(), "{}", token);
    }
}

#[test]
fn keys_of_every_length_are_found() {
    // Keys that differ from the one asked for in any one byte, of every
    // length the word-at-a-time comparison treats apart.
    for len in 0..40 {
        let key: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for at in 0..len {
            let mut other = key.clone().into_bytes();
            other[at] = if other[at] == b'z' { b'y' } else { b'z' };
            let other = String::from_utf8(other).unwrap();
            let json = serde_json::json!({ &other: 1, &key: 2 }).to_string();
            let document = Document::parse(&json).unwrap();
            let number = |key: &str| document.root().get(key)?.as_number()?.as_u64();
            assert_eq!(number(&key), Some(2), "{key} beside {other}");
            assert_eq!(number(&other), Some(1), "{other} beside {key}");
            assert_eq!(
                document.root().find_from(&key, 0).map(|(at, _)| at),
                Some(1)
            );
        }
        let json = serde_json::json!({ &key: 2 }).to_string();
        let document = Document::parse(&json).unwrap();
        assert!(document.root().get(&key).is_some(), "{key}");
        assert!(document.root().get(&format!("{key}a")).is_none(), "{key}");
    }
}

/// `depth` arrays, or objects under key `"a"`, around a `1`.
fn nested(depth: usize, object: bool) -> String {
    let (open, close) = if object {
        (r#"{"a":"#, "}")
    } else {
        ("[", "]")
    };
    format!("{}1{}", open.repeat(depth), close.repeat(depth))
}

/// `parsed` failed with `serde_json`'s own error.
fn assert_serde_json_error(
    parsed: Result<Document<'_>, crate::Error>,
    expected: &serde_json::Error,
) {
    match parsed {
        Err(crate::Error::Json(err)) => assert_eq!(err.to_string(), expected.to_string()),
        other => panic!("expected {expected}, got {other:?}"),
    }
}

#[test]
fn nesting_is_taken_up_to_serde_jsons_limit_and_refused_past_it() {
    for object in [false, true] {
        for depth in [126, 127] {
            let json = nested(depth, object);
            assert!(super::parse::parse(&json).is_ok(), "depth {depth}");
            check(&json);
        }
        let json = nested(128, object);
        assert!(super::parse::parse(&json).is_err());
        let expected = serde_json::from_str::<Value>(&json).unwrap_err();
        assert_serde_json_error(Document::parse(&json), &expected);
    }
    // Closed containers free their level: siblings at the limit are taken.
    let deep = nested(126, false);
    let under_key = nested(125, false);
    let json = format!("[{deep},{deep},{{\"k\":{under_key}}}]");
    check(&json);
    assert!(Document::parse(&json).is_ok());
}

#[test]
fn very_deep_nesting_is_refused_on_a_small_stack() {
    // The parser holds open containers on the heap, not the call stack:
    // a 100 000-level document is refused by the one-pass parser on a
    // 64 KiB stack, and the error then comes from serde_json.
    for object in [false, true] {
        let json = nested(100_000, object);
        let refused = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn({
                let json = json.clone();
                move || super::parse::parse(&json).is_err()
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(refused);
        let expected = serde_json::from_str::<Value>(&json).unwrap_err();
        assert_serde_json_error(Document::parse(&json), &expected);
    }
}

#[test]
fn to_value_builds_documents_deeper_than_any_parser_on_a_small_stack() {
    // A document built in code (`Document::from_value`) may be nested far
    // deeper than the parser allows: `to_value` keeps what it builds on
    // the heap. 100 000 levels, arrays and objects in turn, on 64 KiB.
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(|| {
            let depth = 100_000;
            let mut value = Value::from("leaf");
            for level in 0..depth {
                value = if level % 2 == 0 {
                    Value::Array(vec![Value::Null, value])
                } else {
                    let mut map = serde_json::Map::new();
                    map.insert("n".to_owned(), Value::from(level));
                    map.insert("k".to_owned(), value);
                    Value::Object(map)
                };
            }
            let document = Document::from_value(&value);
            let built = document.root().to_value();
            // Both walked down side by side, level by level, and taken
            // apart as they go: comparing or dropping a deep `Value`
            // recurses in `serde_json`.
            let (mut expected, mut built) = (value, built);
            for _ in 0..depth {
                let (next_expected, next_built) = match (&mut expected, &mut built) {
                    (Value::Array(a), Value::Array(b)) => {
                        assert_eq!((a.len(), &a[0]), (b.len(), &b[0]));
                        (a.pop().unwrap(), b.pop().unwrap())
                    }
                    (Value::Object(a), Value::Object(b)) => {
                        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
                        assert_eq!(a["n"], b["n"]);
                        (a.remove("k").unwrap(), b.remove("k").unwrap())
                    }
                    (a, b) => panic!("{a:?} built as {b:?}"),
                };
                (expected, built) = (next_expected, next_built);
            }
            assert_eq!(
                (expected, built),
                (Value::from("leaf"), Value::from("leaf"))
            );
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
}

#[test]
fn strings_read_alike_wherever_their_special_bytes_fall() {
    // The string scan reads 8 bytes at a time: a quote, backslash, control
    // or non-ASCII byte at every offset of a word (and past it), with the
    // string's end at every offset too, and at the end of the input.
    let specials = [
        "\\\"",
        "\\\\",
        "\\n",
        "\\u00e9",
        "\u{1}",
        "é",
        "€",
        "😀",
        "\\ud83d\\ude00",
    ];
    for len in 0..34 {
        let plain = "abcdefghijklmnopqrstuvwxyz0123456789";
        check(&format!("\"{}\"", &plain[..len]));
        check(&format!("[\"{}\"]", &plain[..len]));
        // Unterminated at the input's end.
        check(&format!("\"{}", &plain[..len]));
        check(&format!("[\"{}\\", &plain[..len]));
        for special in specials {
            for at in 0..=len {
                let text = format!("{}{special}{}", &plain[..at], &plain[at..len]);
                check(&format!("\"{text}\""));
                check(&format!("{{\"{text}\":\"{text}\"}}"));
                check(&format!("\"{text}"));
            }
        }
    }
}

#[test]
fn numbers_at_their_edges_read_like_serde_json() {
    let tokens = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "-0.000",
        "1",
        "-1",
        "01",
        "-01",
        "00",
        "1.",
        ".5",
        "-",
        "+1",
        "1e",
        "1e+",
        "1E5",
        "1e-5",
        "-1.5e+300",
        "1e400",
        "-1e400",
        "2.",
        "0.5",
        "9223372036854775807",
        "9223372036854775808",
        "9223372036854775809",
        "-9223372036854775807",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551615",
        "99999999999999999999",
        "1000000000000000000",
        "10000000000000000000",
        "9999999999999999999",
        "-9999999999999999999",
        "0.000001",
        "0.0000001",
        "-0.000001",
        "-0.0000001",
        "0.00000100",
        "123456789012345.6",
        "12345678901234.56",
        "1234567890123456.7",
        "0.1234567890123456789",
        "0.12345678901234567890",
        "1.0000000000000000000",
        "999999999999999.0",
        "999999999999999.9",
        "100000000000000.5",
        "1.10",
        "1.100000",
        "10.0",
        "100",
        "-100.00",
        "0.30000000000000004",
        "123456789012345678901234567890",
        "-0.0e0",
        "5e-324",
        "1.7976931348623157e308",
    ];
    for token in tokens {
        for json in [
            token.to_string(),
            format!("[{token}]"),
            format!("{{\"n\": {token} }}"),
            format!("[{token},{token}]"),
        ] {
            check(&json);
            if let (Ok(value), Ok(document)) =
                (serde_json::from_str::<Value>(&json), Document::parse(&json))
            {
                assert_eq!(
                    serde_json::to_string(&document.root()).unwrap(),
                    serde_json::to_string(&value).unwrap(),
                    "{json}"
                );
            }
        }
    }
}

#[test]
fn whitespace_of_every_kind_and_length_reads_alike() {
    for space in [
        "", " ", "  ", "\n", "\r\n", "\t", " \n\t ", "\u{b}", "\u{c}",
    ] {
        let json = format!(
            "{space}{{{space}\"a\"{space}:{space}[{space}1{space},{space}\"x\"{space}]{space},{space}\"b\"{space}:{space}{{{space}}}{space}}}{space}"
        );
        check(&json);
    }
}

#[test]
fn the_parser_notes_whitespace_and_inexact_numbers_as_the_scans_find_them() {
    for json in [
        r#"{"a":[1,"b c"]}"#,
        r#"{"a": [1]}"#,
        "[1]\n",
        " [1]",
        r#"{"id":12345678901234567890123}"#,
        r#"{"id":"12345678901234567890123","n":[1.5,-2e3]}"#,
        "[0.30000000000000001,1]",
        "[-9223372036854775809]",
        "[18446744073709551615,-9223372036854775808,123456789012345.5]",
        r#"["a\"b", 1.25e-3, {"k" :0.1}]"#,
    ] {
        let document = Document::parse(json).unwrap();
        assert_eq!(
            document.has_inexact_number(),
            crate::has_inexact_number(json.as_bytes()),
            "{json}"
        );
        let blank = json.bytes().any(|b| b.is_ascii_whitespace()) && !json.contains("b c");
        assert_eq!(document.may_have_whitespace(), blank, "{json}");
    }
}

#[test]
fn numbers_of_every_length_are_read_in_one_pass_like_serde_json() {
    // Integers and decimals of 1 to 22 digits, on both sides of where the
    // one-pass parser stops taking them on its word-at-a-time path (18
    // digits for integers, 15 for decimals) and of its word boundaries.
    let mut tokens = Vec::new();
    for digits in 1..=22 {
        for lead in ["1", "9", "0"] {
            let int: String = lead
                .chars()
                .chain((1..digits).map(|i| char::from(b'0' + (i % 10) as u8)))
                .collect();
            if digits > 1 && lead == "0" {
                continue;
            }
            tokens.push(int.clone());
            for frac_digits in [1, 2, 7, 8, 9, 15, 16] {
                for frac in ["1", "0", "5"] {
                    let frac: String = std::iter::repeat_n('0', frac_digits - 1)
                        .chain(frac.chars())
                        .collect();
                    tokens.push(format!("{int}.{frac}"));
                }
            }
        }
    }
    tokens.extend(["0.0000000", "0.0000005", "0.000001", "0.00000100", "10.000"].map(String::from));
    for token in tokens {
        for token in [token.clone(), format!("-{token}")] {
            for json in [
                token.clone(),
                format!("[{token}]"),
                format!("{{\"n\":{token},\"m\":1}}"),
            ] {
                assert!(super::parse::parse(&json).is_ok(), "{json}");
                check(&json);
            }
        }
    }
}

#[test]
fn escaped_and_plain_spellings_of_a_key_are_one_key_at_every_length() {
    // The filter hashes a plain key from the word its scan read and an
    // escaped one from its unescaped text: both must agree.
    for len in 0..24 {
        let key: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for at in 0..len.max(1) {
            let escaped: String = key
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i == at {
                        format!("\\u{:04x}", c as u32)
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            for json in [
                format!(r#"{{"{key}":1,"{escaped}":2}}"#),
                format!(r#"{{"{escaped}":1,"x":0,"{key}":2}}"#),
                format!(r#"[{{"{key}":1,"{key}":2}}]"#),
                // A key in the input's last eight bytes.
                format!(r#"{{"{key}":1,"{key}":2}}"#),
            ] {
                assert!(super::parse::parse(&json).is_ok(), "{json}");
                check(&json);
                let document = Document::parse(&json).unwrap();
                let object = match document.root().kind() {
                    super::Kind::Array(_) => document.root().item(0).unwrap(),
                    _ => document.root(),
                };
                let value = object
                    .get(&key)
                    .and_then(|n| n.as_number())
                    .and_then(|n| n.as_u64());
                assert_eq!(value, Some(2), "{json}");
            }
        }
    }
}

#[test]
fn records_that_repeat_change_or_escape_their_keys_read_like_serde_json() {
    // The parser compares each short key with the key at its position in
    // the last object read in the same place: a key that is a prefix of
    // that one, has it as a prefix, repeats within its record, is written
    // with an escape or with space before its colon is its own.
    let records = [
        r#"{"id":1,"name":"a","tags":{"x":1,"y":2}}"#,
        r#"{"id":2,"name":"b","tags":{"x":3,"y":4}}"#,
        r#"{"i":3,"name":"c","tags":{"y":5,"x":6}}"#,
        r#"{"idx":4,"nam":"d","tags":{"x":7,"x":8}}"#,
        r#"{"id":5,"id":6,"name":"e"}"#,
        r#"{"\u0069d":7,"name" :"f","n\u0061me":"g"}"#,
        r#"{"id":8,"name":"h","tags":[{"x":9},{"x":10,"x":11}]}"#,
        r#"{"id" : 9, "name": "i"}"#,
        r#"{"":1,"":2}"#,
        r#"{"abcdef":1,"abcdefg":2,"abcdef":3}"#,
    ];
    for window in 1..=records.len() {
        for start in 0..=records.len() - window {
            let json = format!("[{}]", records[start..start + window].join(","));
            assert!(super::parse::parse(&json).is_ok(), "{json}");
            check(&json);
            let wrapped = format!(r#"{{"data":{json},"more":{json}}}"#);
            assert!(super::parse::parse(&wrapped).is_ok(), "{wrapped}");
            check(&wrapped);
        }
    }
}

#[test]
fn indents_of_every_length_read_alike() {
    // Line breaks and indents are compared eight bytes at a time: runs
    // of every length, broken by other whitespace or by text that is not
    // JSON, on both sides of each word.
    for indent in 0..20 {
        for line in ["\n", "\r\n", "\n\t", "\n\n", "\n \t", "\n\u{b}"] {
            let pad = format!("{line}{}", " ".repeat(indent));
            let json =
                format!(r#"{{{pad}"a":{pad}[{pad}1,{pad}"x"{pad}],{pad}"b":{{}}{pad}}}{pad}"#);
            check(&json);
            if !line.contains('\u{b}') {
                assert!(super::parse::parse(&json).is_ok(), "{json:?}");
                let document = Document::parse(&json).unwrap();
                assert!(document.may_have_whitespace() || pad.is_empty(), "{json:?}");
            }
        }
    }
}

#[test]
fn wide_objects_within_wide_objects_keep_their_own_keys() {
    // Past the filter's keys an object's key hashes go in a set of its
    // own: one inside another, each finds its own repeats only.
    let keys = |prefix: &str, n: usize| -> Vec<String> {
        (0..n).map(|k| format!("\"{prefix}{k}\":{k}")).collect()
    };
    let inner = format!(
        "{{{},\"k3\":\"inner\",\"i5\":\"again\"}}",
        keys("i", 40).join(",")
    );
    let mut outer = keys("k", 36);
    outer.push(format!("\"nested\":{inner}"));
    outer.push(format!("\"more\":[{inner},{inner}]"));
    outer.push("\"k7\":\"outer\"".to_string());
    outer.push("\"i5\":\"outer\"".to_string());
    let json = format!("{{{}}}", outer.join(","));
    assert!(super::parse::parse(&json).is_ok());
    check(&json);
    let document = Document::parse(&json).unwrap();
    let root = document.root();
    assert_eq!(root.get("k7").and_then(|n| n.as_str()), Some("outer"));
    let nested = root.get("nested").unwrap();
    assert_eq!(nested.get("i5").and_then(|n| n.as_str()), Some("again"));
    assert_eq!(nested.get("k3").and_then(|n| n.as_str()), Some("inner"));
    assert_eq!(nested.entries().count(), 41);
    assert_eq!(root.entries().count(), 39);
}

/// A list of records from few keys, separators and spacings, some of them
/// broken (a comma missing, doubled or leading, a colon missing, a key
/// escaped or repeated), so that entry heads repeat, change and break
/// after the parser has kept them.
fn record_list() -> impl Strategy<Value = String> {
    let keys = prop::sample::select(vec![
        "id",
        "i",
        "idx",
        "name",
        "nam",
        "status",
        "customer",
        "address_line_1",
        "a\\u0062",
        "",
    ]);
    let space = prop::sample::select(vec!["", "", "", " ", "  ", "\n  ", "\t"]);
    let comma = prop::sample::select(vec![",", ",", ",", ",", ",", ",", ",", "", ",,"]);
    let colon = prop::sample::select(vec![":", ":", ":", ":", ":", ":", ":", ""]);
    let value = prop::sample::select(vec!["1", "\"v\"", "null", "{\"x\":2}", "[3]", "{}"]);
    let entry = (
        space.clone(),
        keys,
        space.clone(),
        colon,
        space.clone(),
        value,
        space.clone(),
    );
    let record = (
        prop::sample::select(vec!["{", "{", "{", "{", "{,"]),
        prop::collection::vec((comma.clone(), entry), 0..5),
    );
    prop::collection::vec((comma, record), 1..12).prop_map(|records| {
        let mut json = String::from("[");
        for (n, (comma, (open, entries))) in records.into_iter().enumerate() {
            if n > 0 {
                json.push_str(comma);
            }
            json.push_str(open);
            for (m, (comma, (s1, key, s2, colon, s3, value, s4))) in entries.into_iter().enumerate()
            {
                if m > 0 {
                    json.push_str(comma);
                }
                json.push_str(&format!("{s1}\"{key}\"{s2}{colon}{s3}{value}{s4}"));
            }
            json.push('}');
        }
        json.push(']');
        json
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Entry heads read in one compare, as they were read before, take
    /// exactly what the general reading takes.
    #[test]
    fn kept_entry_heads_read_like_the_general_path(json in record_list()) {
        let valid = serde_json::from_str::<Value>(&json).is_ok();
        prop_assert_eq!(super::parse::parse(&json).is_ok(), valid, "{}", json);
        check(&json);
        let wrapped = format!(r#"{{"data":{json},"more":{json}}}"#);
        prop_assert_eq!(super::parse::parse(&wrapped).is_ok(), valid, "{}", wrapped);
        check(&wrapped);
    }
}

#[test]
fn a_kept_entry_head_is_not_taken_for_a_first_key_or_after_a_missing_comma() {
    // The heads of first keys and of later keys are kept apart: each
    // record teaches the parser its heads, then a broken one follows.
    let records = r#"{"a":1,"b":{"a":1,"b":2}}"#;
    for broken in [
        r#"{"a":1{"a":1,"b":2}}"#,
        r#"{"a":1,"b":{,"b":2}}"#,
        r#"{,"b":1,"b":{"a":1,"b":2}}"#,
        r#"{"a":1"b":{"a":1,"b":2}}"#,
        r#"{"a":1,"b":{"a":1"b":2}}"#,
    ] {
        let json = format!("[{records},{records},{broken}]");
        assert!(super::parse::parse(&json).is_err(), "{json}");
        check(&json);
    }
    // Objects whose slots meet: the fourth key of an object three deep in
    // arrays and the first key of one two deep share a slot number (heads
    // are compared where 16 bytes follow: the text is padded).
    for json in [
        r#"[[[{"a":1,"b":1,"c":1,"d":1}],{,"d":1}]]"#,
        r#"[[{"d":1},[{"a":1,"b":1,"c":1"d":1}]]]"#,
    ] {
        let json = format!("{json}{}", " ".repeat(16));
        assert!(super::parse::parse(&json).is_err(), "{json}");
        check(&json);
    }
}

#[test]
fn records_found_in_the_heads_of_one_before_them_still_find_their_repeated_keys() {
    // Records chain on the heads the first one kept (no repeat filter);
    // a record that leaves the chain at any position, by a repeated key,
    // a new one, a nested object in the slot, or 40 keys, is checked for
    // repeats with all its keys so far.
    let base = r#"{"a":1,"b":2,"c":3,"d":4}"#;
    let wide = (0..40)
        .map(|i| format!(r#""k{i}":{i}"#))
        .collect::<Vec<_>>();
    let wide_repeat = format!("{{{},\"k3\":0}}", wide.join(","));
    let wide = format!("{{{}}}", wide.join(","));
    let leaving = [
        r#"{"a":1,"b":2,"a":3,"d":4}"#,
        r#"{"a":1,"b":2,"c":3,"d":4,"b":5}"#,
        r#"{"a":1,"b":2,"x":3,"a":4}"#,
        r#"{"a":1,"b":{"b":1,"c":2,"d":3},"c":3,"b":4}"#,
        r#"{"a":1,"b":2,"c":3,"d":4,"\u0061":5}"#,
        r#"{"b":1,"a":2,"c":3,"d":4}"#,
        r#"{"a":1,"b":2,"c":3,"c":4}"#,
        &wide,
        &wide_repeat,
    ];
    for other in leaving {
        for json in [
            format!("[{base},{base},{other},{other},{base},{other}]"),
            format!("[{other},{base},{base},{other}]"),
        ] {
            assert!(super::parse::parse(&json).is_ok(), "{json}");
            check(&json);
        }
    }
}

#[test]
fn keys_that_differ_from_object_to_object_stop_the_keeping_of_heads_and_it_resumes() {
    // Objects keyed by ids miss their heads: past enough misses, objects
    // stop looking for them, and look again once the document has grown;
    // the records that follow, repeated keys among them, read alike
    // whichever way their heads are read.
    let ids = (0..300)
        .map(|i| format!(r#"{{"id{i}":{i},"n{i}":"x","{i}":[{i}]}}"#))
        .collect::<Vec<_>>()
        .join(",");
    let records = (0..2000)
        .map(|i| match i % 97 {
            0 => format!(r#"{{"a":{i},"b":"y","a":{i}}}"#),
            1 => format!(r#"{{"b":{i},"a":"y","c":{{"a":1,"a":2}}}}"#),
            _ => format!(r#"{{"a":{i},"b":"y","c":{{"a":1,"b":2}}}}"#),
        })
        .collect::<Vec<_>>()
        .join(",");
    for json in [
        format!("[{ids},{records}]"),
        format!("[{records},{ids},{records},{ids}]"),
    ] {
        assert!(super::parse::parse(&json).is_ok());
        check(&json);
    }
}
