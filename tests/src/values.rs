//! Comparing JSON values the way TOON round trips them.
//!
//! TOON writes numbers in canonical decimal form, so the float `1.0` comes
//! back as the integer `1`, `-0.0` as `0`, and `2.1470551995252997e18` as the
//! integer `2147055199525299700`, which reads back as that same double.
//! Everything else must match exactly: key order, strings byte for byte, and
//! integers of any size (an integer that comes back as a rounded float is a
//! difference).

use serde_json::{Number, Value};

/// Whether `actual` is the JSON value `expected`, with numbers compared as
/// described in the module documentation.
///
/// ```
/// use serde_json::json;
/// use terse_tests::values::same_value;
///
/// assert!(same_value(&json!({"a": 1, "b": 0}), &json!({"a": 1.0, "b": -0.0})));
/// assert!(!same_value(&json!({"b": 2, "a": 1}), &json!({"a": 1, "b": 2})));
/// assert!(!same_value(&json!(u64::MAX as f64), &json!(u64::MAX)));
/// ```
pub fn same_value(actual: &Value, expected: &Value) -> bool {
    difference(actual, expected).is_none()
}

/// The first place where `actual` differs from `expected`, as a path and both
/// sides, or `None` when it is the same value (see [`same_value`]).
pub fn difference(actual: &Value, expected: &Value) -> Option<String> {
    diff_at("$", actual, expected, true)
}

/// [`difference`], with objects compared as sets of entries: TOON tables
/// decode every row in the header's key order (spec §9.3, §9.5).
///
/// ```
/// use serde_json::json;
/// use terse_tests::values::difference_in_any_key_order;
///
/// assert!(difference_in_any_key_order(&json!({"b": 2, "a": 1}), &json!({"a": 1, "b": 2})).is_none());
/// assert!(difference_in_any_key_order(&json!({"a": 1}), &json!({"a": 1, "b": 2})).is_some());
/// ```
pub fn difference_in_any_key_order(actual: &Value, expected: &Value) -> Option<String> {
    diff_at("$", actual, expected, false)
}

fn diff_at(path: &str, a: &Value, b: &Value, ordered: bool) -> Option<String> {
    let differs = || Some(format!("at {path}: {} vs {}", short(a), short(b)));
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if same_number(x, y) => None,
        (Value::Number(_), Value::Number(_)) => differs(),
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("at {path}: {} items vs {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (a, b))| diff_at(&format!("{path}[{i}]"), a, b, ordered))
        }
        (Value::Object(x), Value::Object(y)) if !ordered => {
            if x.len() != y.len() || x.keys().any(|key| !y.contains_key(key)) {
                let keys_x: Vec<&String> = x.keys().collect();
                let keys_y: Vec<&String> = y.keys().collect();
                return Some(format!("at {path}: keys {keys_x:?} vs {keys_y:?}"));
            }
            x.iter()
                .find_map(|(key, a)| diff_at(&format!("{path}.{key:?}"), a, &y[key], ordered))
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys_x: Vec<&String> = x.keys().collect();
            let keys_y: Vec<&String> = y.keys().collect();
            if keys_x != keys_y {
                return Some(format!("at {path}: keys {keys_x:?} vs {keys_y:?}"));
            }
            x.iter()
                .zip(y.values())
                .find_map(|((key, a), b)| diff_at(&format!("{path}.{key:?}"), a, b, ordered))
        }
        _ if a == b => None,
        _ => differs(),
    }
}

fn same_number(actual: &Number, expected: &Number) -> bool {
    match (actual.is_f64(), expected.is_f64()) {
        (true, true) => actual.as_f64() == expected.as_f64(),
        // An integer that stands for the expected double: reading it as a
        // double must give that double back.
        (false, true) => actual.as_f64() == expected.as_f64(),
        // A float in place of an integer must not have lost anything.
        (true, false) => actual
            .as_f64()
            .is_some_and(|f| exactly_integer(f, expected)),
        (false, false) => actual == expected,
    }
}

/// The float is integral and exactly the integer `n` (no rounding either way).
fn exactly_integer(f: f64, n: &Number) -> bool {
    let int = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from));
    int.is_some_and(|i| f.fract() == 0.0 && f as i128 == i && i as f64 == f)
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_exact_value() {
        assert!(same_value(&json!(3), &json!(3.0)));
        assert!(same_value(&json!(3.0), &json!(3)));
        assert!(same_value(&json!(0), &json!(-0.0)));
        assert!(same_value(
            &json!(2147055199525299700_u64),
            &json!(2.1470551995252997e18)
        ));
        assert!(!same_value(
            &json!(2.1470551995252997e18),
            &json!(2147055199525299700_u64)
        ));
        assert!(same_value(&json!(0.1), &json!(0.1)));
        assert!(!same_value(&json!(0.1), &json!(0.10000000000000002)));
        assert!(!same_value(&json!(3.5), &json!(3)));
        assert!(!same_value(&json!(3), &json!(3.5)));
        assert!(!same_value(&json!(1), &json!("1")));
        assert!(same_value(&json!(i64::MIN), &json!(i64::MIN)));
        // An integer may not come back as a rounded float...
        assert!(!same_value(
            &json!(18446744073709551615.0),
            &json!(u64::MAX)
        ));
        assert!(!same_value(
            &json!(9007199254740992.0),
            &json!(9007199254740993_u64)
        ));
        // ...but a float may come back as an integer that reads as the same double.
        assert!(same_value(&json!(u64::MAX), &json!(18446744073709551615.0)));
        assert!(!same_value(
            &json!(9007199254740995_u64),
            &json!(9007199254740992.0)
        ));
    }

    #[test]
    fn difference_names_the_path() {
        let a = json!({"a": [1, {"b": "x"}]});
        let b = json!({"a": [1, {"b": "y"}]});
        assert_eq!(
            difference(&a, &b).unwrap(),
            r#"at $."a"[1]."b": "x" vs "y""#
        );
        assert!(difference(&a, &a).is_none());
    }
}
