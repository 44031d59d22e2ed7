//! Proptest strategies for JSON text, shared by the encoder's and the
//! document's tests.

use proptest::prelude::*;

/// A JSON number token in any of the grammar's forms.
pub(crate) fn number_token() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        (
            any::<bool>(),
            "(0|[1-9][0-9]{0,24})",
            proptest::option::of("[0-9]{1,25}"),
            proptest::option::of(("[eE]", "[+-]?", "[0-9]{1,3}")),
        )
            .prop_map(|(negative, int, frac, exp)| {
                let mut token = String::new();
                if negative {
                    token.push('-');
                }
                token.push_str(&int);
                if let Some(frac) = frac {
                    token.push('.');
                    token.push_str(&frac);
                }
                if let Some((e, sign, digits)) = exp {
                    token.push_str(&e);
                    token.push_str(&sign);
                    token.push_str(&digits);
                }
                token
            }),
    ]
}

/// A JSON string token with TOON-tricky content and JSON escapes.
pub(crate) fn string_token() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("a".to_string()),
        Just("id".to_string()),
        Just(" ".to_string()),
        Just(",".to_string()),
        Just("|".to_string()),
        Just(":".to_string()),
        Just("-".to_string()),
        Just("#".to_string()),
        Just("[".to_string()),
        Just("{".to_string()),
        Just("true".to_string()),
        Just("42".to_string()),
        Just("1e5".to_string()),
        Just("é".to_string()),
        Just("🚀".to_string()),
        Just("\\\"".to_string()),
        Just("\\\\".to_string()),
        Just("\\n".to_string()),
        Just("\\t".to_string()),
        Just("\\u0001".to_string()),
        Just("\\u00e9".to_string()),
        Just("\\ud83d\\ude80".to_string()),
        Just("\\/".to_string()),
        "[a-z]{1,12}",
    ];
    proptest::collection::vec(piece, 0..5).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

/// Insignificant whitespace.
pub(crate) fn space() -> impl Strategy<Value = &'static str> {
    prop_oneof![4 => Just(""), 1 => Just(" "), 1 => Just("\n  "), 1 => Just("\t\r\n")]
}

/// JSON text: nested values, objects with keys from a small pool (so that
/// rows share shapes and keys sometimes repeat), and uniform record lists.
pub(crate) fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        number_token(),
        string_token(),
    ];
    leaf.prop_recursive(5, 96, 8, |inner| {
        let key = prop_oneof![
            4 => prop_oneof![
                Just("\"id\"".to_string()),
                Just("\"name\"".to_string()),
                Just("\"a\"".to_string()),
                Just("\"b\"".to_string()),
            ],
            1 => string_token(),
        ];
        prop_oneof![
            proptest::collection::vec((space(), inner.clone()), 0..6).prop_map(|items| {
                let items: Vec<String> =
                    items.into_iter().map(|(s, v)| format!("{s}{v}")).collect();
                format!("[{}]", items.join(","))
            }),
            proptest::collection::vec((key.clone(), space(), inner.clone()), 0..5).prop_map(
                |entries| {
                    let entries: Vec<String> = entries
                        .into_iter()
                        .map(|(k, s, v)| format!("{k}{s}:{s}{v}"))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }
            ),
            // A list of records built from one template, values varied.
            (
                proptest::collection::vec(key, 1..4),
                proptest::collection::vec(proptest::collection::vec(inner, 4), 1..5),
            )
                .prop_map(|(keys, rows)| {
                    let rows: Vec<String> = rows
                        .into_iter()
                        .map(|values| {
                            let fields: Vec<String> = keys
                                .iter()
                                .zip(values)
                                .map(|(k, v)| format!("{k}:{v}"))
                                .collect();
                            format!("{{{}}}", fields.join(","))
                        })
                        .collect();
                    format!("[{}]", rows.join(","))
                }),
        ]
    })
}
