//! Values nested far deeper than `serde_json`'s parser allows (only code can
//! build them) encode without overflowing the stack: the emitter and the
//! table walks keep their levels on the heap.
//!
//! Every test runs on a thread with a 256 KiB stack, and takes its values
//! apart level by level: dropping a deep `Value` recurses in `serde_json`.

use crate::{EncodeOptions, encode, encode_limited};
use serde_json::{Map, Value, json};

const DEPTH: usize = 100_000;
const SMALL_STACK: usize = 256 * 1024;

fn on_small_stack(test: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(test)
        .expect("spawn a test thread")
        .join()
        .expect("no stack overflow");
}

/// `[[[...[leaf]...]]]`, `depth` arrays deep.
fn nested_arrays(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, _| Value::Array(vec![inner]))
}

/// `{"a":{"a":...{"a":leaf}}}`, `depth` objects deep.
fn nested_objects(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, _| {
        let mut map = Map::new();
        map.insert("a".to_owned(), inner);
        Value::Object(map)
    })
}

/// Drops `value` one level at a time.
fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Value::Array(items) => stack.append(items),
            Value::Object(map) => stack.extend(std::mem::take(map).into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Indent 0 keeps the text of a deep value linear in its depth.
fn flat() -> EncodeOptions {
    EncodeOptions {
        indent_size: 0,
        ..EncodeOptions::default()
    }
}

#[test]
fn deep_arrays_encode_without_overflow() {
    on_small_stack(|| {
        let value = nested_arrays(DEPTH, json!(1));
        let text = encode(&value, &flat());
        assert_eq!(text.lines().count(), DEPTH);
        assert!(text.starts_with("[1]:\n- [1]:\n"));
        assert!(text.ends_with("\n- [1]: 1"));
        let err = encode_limited(&value, &EncodeOptions::default(), 1 << 20).unwrap_err();
        assert!(err.is_output_limit());
        dispose(value);
    });
}

#[test]
fn deep_objects_encode_without_overflow() {
    on_small_stack(|| {
        let value = nested_objects(DEPTH, json!([]));
        let text = encode(&value, &flat());
        assert_eq!(text.lines().count(), DEPTH);
        assert!(text.ends_with("\na: []"));
        let err = encode_limited(&value, &EncodeOptions::default(), 1 << 20).unwrap_err();
        assert!(err.is_output_limit());
        dispose(value);
    });
}

#[test]
fn deep_list_items_encode_without_overflow() {
    // A list of objects whose first field opens the next list: every level
    // is a hyphen line with a field on it.
    on_small_stack(|| {
        // Not `json!`: it would serialize `inner`, recursively.
        let value = (0..DEPTH).fold(json!(null), |inner, _| {
            let mut map = Map::new();
            map.insert("a".to_owned(), inner);
            map.insert("b".to_owned(), json!(1));
            Value::Array(vec![Value::Object(map)])
        });
        let text = encode(&value, &flat());
        assert_eq!(text.lines().count(), 2 * DEPTH);
        assert!(text.starts_with("[1]:\n- a[1]:\n- a[1]:\n"));
        dispose(value);
    });
}

#[test]
fn deep_field_groups_encode_without_overflow() {
    // Two rows of one nested-uniform column, 100 000 groups deep: a table
    // header of 100 000 nested groups, and a keyed table of the same.
    on_small_stack(|| {
        let value = Value::Array(vec![
            nested_objects(DEPTH, json!(1)),
            nested_objects(DEPTH, json!(2)),
        ]);
        let text = encode(&value, &EncodeOptions::default());
        let header = format!("[2]{}{}:", "{a".repeat(DEPTH), "}".repeat(DEPTH));
        assert_eq!(text, format!("{header}\n  1\n  2"));
        dispose(value);

        let mut map = Map::new();
        map.insert("x".to_owned(), nested_objects(DEPTH, json!(1)));
        map.insert("y".to_owned(), nested_objects(DEPTH, json!(2)));
        let value = Value::Object(map);
        let text = encode(&value, &EncodeOptions::default());
        let header = format!("[2:]{}{}:", "{a".repeat(DEPTH), "}".repeat(DEPTH));
        assert_eq!(text, format!("{header}\n  x: 1\n  y: 2"));
        dispose(value);
    });
}

#[test]
fn deep_rows_that_differ_at_the_bottom_are_not_a_table() {
    on_small_stack(|| {
        let items = vec![
            nested_objects(DEPTH, json!(1)),
            nested_objects(DEPTH, json!({"b": 2})),
        ];
        let value = Value::Array(items);
        let err = encode_limited(&value, &flat(), 4096).unwrap_err();
        assert!(err.is_output_limit());
        let text = encode(&value, &flat());
        assert!(text.starts_with("[2]:\n- a:\na:\n"));
        dispose(value);
    });
}

#[test]
fn deep_values_flatten_into_a_document_without_overflow() {
    on_small_stack(|| {
        let value = nested_objects(DEPTH, nested_arrays(DEPTH, json!("x")));
        let document = crate::document::Document::from_value(&value);
        let mut node = document.root();
        for _ in 0..DEPTH {
            node = node.get("a").expect("a nested object");
        }
        for _ in 0..DEPTH {
            node = node.item(0).expect("a nested array");
        }
        assert_eq!(node.as_str(), Some("x"));
        dispose(value);
    });
}
