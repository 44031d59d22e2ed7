//! Values equal as the spec (§2) compares them, shared by the targets that
//! hold numbers to their digits.

use serde_json::Value;

/// The spec's equality of numbers (§2): by value, whatever `serde_json`'s
/// representation (the exact digits of a long decimal read back as a
/// float, its nearest float may have been an integer).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}
