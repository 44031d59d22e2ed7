//! Checking JSON text with `serde_json` without building it.
//!
//! Text the one-pass parser refuses is handed to `serde_json` for its
//! error message. Building a `serde_json::Value` to get that message would
//! first build everything before the error: a `Value` takes up to ninety
//! times the bytes of JSON it holds (a list of `[0]`), so a large body that
//! is broken at its end would cost that much memory to refuse. [`check`]
//! walks the text the way deserializing a `Value` does (every number read
//! as `serde_json` reads it, the same depth limit) and keeps nothing, so its
//! error is the one the `Value` would give.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

/// `Ok` exactly when `serde_json::from_str::<Value>(json)` is, with the
/// same error otherwise.
pub(crate) fn check(json: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<Checked>(json).map(|Checked| ())
}

/// Any JSON value, read and dropped.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Checking)
    }
}

struct Checking;

impl<'de> Visitor<'de> for Checking {
    type Value = Checked;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_none<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Checked, D::Error> {
        Checked::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Checked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn same_as_value(json: &str) {
        let value = serde_json::from_str::<Value>(json).map(|_| ());
        let checked = check(json);
        assert_eq!(
            value.map_err(|e| e.to_string()),
            checked.map_err(|e| e.to_string()),
            "{json}"
        );
    }

    #[test]
    fn errors_are_the_ones_a_value_gives() {
        for json in [
            "",
            "[1, 2",
            "{oops",
            "1e400",
            "[1e400]",
            "-",
            "\"\\ud800\"",
            "[1,]",
            "{\"a\" 1}",
            "nul",
            "[[[[",
            "1 2",
            "\"a\\x\"",
            "{\"a\":1,}",
            "[-0.0]",
            "18446744073709551616",
            "-9223372036854775809",
        ] {
            same_as_value(json);
        }
        same_as_value(&format!("{}1{}", "[".repeat(200), "]".repeat(200)));
        same_as_value(&format!("{}1{}", "[".repeat(127), "]".repeat(127)));
    }

    proptest! {
        #[test]
        fn any_text_checks_as_a_value_parses(
            json in crate::json_strategies::json_text(),
            cut in 0usize..64,
        ) {
            same_as_value(&json);
            let mut end = json.len().saturating_sub(cut);
            while !json.is_char_boundary(end) {
                end -= 1;
            }
            same_as_value(&json[..end]);
        }
    }
}
