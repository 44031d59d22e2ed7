//! The same JSON minified: the third candidate of every token-saving choice
//! (beside the JSON as written and TOON).
//!
//! Most services write JSON pretty-printed (`indent=2`,
//! `JSON.stringify(v, null, 2)`) or with Python's `", "` separators, and on
//! nested records TOON costs more tokens than that JSON minified, though
//! fewer than it as written. Minified here is a byte pass over the text the
//! handler wrote that drops the whitespace RFC 8259 §2 calls insignificant
//! (space, tab, line feed, carriage return outside strings) and copies every
//! other byte: keys, key order, string escapes and numbers stay exactly as
//! written (`1.0`, `1e2`, `-0`, `12345678901234567890`), which a
//! re-serialization through a parsed value would not promise.

/// Whether `byte` is whitespace JSON allows between its tokens.
const fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// `json` without its insignificant whitespace, or `None` when it has none
/// (the text is then its own minified form, and nothing is allocated).
///
/// The text is taken to be JSON already read by a parser: every byte
/// outside a string is a token's or whitespace. On text that is not JSON
/// it still only drops blanks outside what it reads as strings.
pub(crate) fn minify(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    // The start of the bytes not yet copied.
    let mut kept = 0;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' {
            at = string_end(bytes, at + 1);
        } else if is_blank(byte) {
            let run = at;
            while bytes.get(at).copied().is_some_and(is_blank) {
                at += 1;
            }
            // The allocation is the text's own size, known and already
            // held: the output never grows past it.
            let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
            out.extend_from_slice(&bytes[kept..run]);
            kept = at;
        } else {
            at += 1;
        }
    }
    let mut out = out?;
    out.extend_from_slice(&bytes[kept..]);
    // Only ASCII bytes were dropped, each a character of its own: the rest
    // is the same UTF-8.
    String::from_utf8(out).ok()
}

/// The index just past the string whose text starts at `at` (after its
/// opening quote): past its closing quote, or the end of an unterminated
/// string.
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => return at + 1,
            // An escape takes the byte after it, whatever it is.
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn only_whitespace_between_tokens_goes() {
        let pretty = "{\n  \"a b\": [1, 2],\r\n\t\"c\" : \"x \\\" y\\\\\" ,\n  \"d\": {}\n}\n";
        assert_eq!(
            minify(pretty).as_deref(),
            Some(r#"{"a b":[1,2],"c":"x \" y\\","d":{}}"#)
        );
        // Nothing to drop: nothing allocated.
        assert_eq!(minify(r#"{"a":"x y","b":[1,2]}"#), None);
        assert_eq!(minify(""), None);
        assert_eq!(minify(" ").as_deref(), Some(""));
    }

    #[test]
    fn numbers_and_escapes_are_kept_digit_for_digit() {
        let pretty = "[\n  1.0,\n  1e2,\n  -0,\n  12345678901234567890,\n  1.50E+002,\n  \
                      0.1000000000000000055511151231257827,\n  \"\\u00e9\\/\\n\",\n  \"é\"\n]";
        let minified = minify(pretty).expect("whitespace to drop");
        assert_eq!(
            minified,
            "[1.0,1e2,-0,12345678901234567890,1.50E+002,\
             0.1000000000000000055511151231257827,\"\\u00e9\\/\\n\",\"é\"]"
        );
        // A re-serialization would have written these otherwise.
        let value: Value = serde_json::from_str(pretty).expect("JSON");
        assert_ne!(value.to_string(), minified);
    }

    #[test]
    fn strings_keep_their_blanks_and_quotes() {
        let json = "[ \"  \\\\\" , \"\\\\\\\"  \" ]";
        assert_eq!(minify(json).as_deref(), Some(r#"["  \\","\\\"  "]"#));
        // Unterminated: its text is kept.
        assert_eq!(minify("[ \"a  b").as_deref(), Some("[\"a  b"));
    }

    proptest::proptest! {
        #[test]
        fn minified_json_is_the_same_value(value in json_value(), indent in 0usize..3) {
            use serde::Serialize;
            let written = match indent {
                0 => value.to_string(),
                n => {
                    let indent = b"\t  ".get(..n).unwrap_or(b" ");
                    let mut out = Vec::new();
                    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent);
                    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
                    value.serialize(&mut serializer).expect("serialize");
                    String::from_utf8(out).expect("UTF-8")
                }
            };
            let minified = minify(&written);
            let text = minified.as_deref().unwrap_or(&written);
            // serde_json writes no whitespace of its own when compact.
            proptest::prop_assert_eq!(text, value.to_string());
            if indent == 0 {
                proptest::prop_assert!(minified.is_none());
            }
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z \t\n,:\"\\\\é]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a b]{1,3}", inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }
}
