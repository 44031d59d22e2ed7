//! Lines copied into the envelope without escaping (what a template tells
//! [`LineArray::finish`](super::lines::LineArray::finish) needs none) are exactly
//! the JSON `serde_json` writes for them, whatever the values hold: quotes,
//! backslashes and controls at the edges of eight-byte words, DEL, C1
//! controls, U+2028, other Unicode, long values, nested and missing fields,
//! filters and groups.

use proptest::prelude::*;
use serde_json::{Value, json};
use terse_toon::document::Document;

use super::envelope::Envelope;
use super::{CompactResource, RenderContext, Template};

/// Templates over the records [`records`] makes: plain fields, a nested
/// path, a missing field, arrays, objects, filters, groups, and literal
/// text that JSON escapes.
const TEMPLATES: &[&str] = &[
    "{a} <{b.c}> n {n}, since {t}",
    "{a}",
    "{missing}{a}{b.missing}",
    "{b}",
    "{a|upper} {b.c|trunc(3)} {missing|default(none)} {t|join(/)}",
    "{a}{? [{b.c}]}{? ({missing})} {n}",
    "say \"{a}\" \\ {b.c}",
    "{t.0}|{t.1}|{f}",
];

/// The envelope's text for `body` under `template`, and the text
/// `serde_json` writes for the lines the template renders one by one.
fn both(body: &str, template: &str) -> (String, String) {
    let cx = RenderContext::at_unix(0);
    let resource = CompactResource::new("item", Template::parse(template).unwrap());
    let document = Document::parse(body).unwrap();
    let envelope = Envelope::build(document.root(), &["data"], &resource, &cx).unwrap();
    let text = envelope.into_json();
    let value: Value = serde_json::from_str(body).unwrap();
    let template = Template::parse(template).unwrap();
    let lines: Vec<String> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|record| template.render(record, &cx))
        .collect();
    let expected = serde_json::to_string(&lines).unwrap();
    let start = text.find(",\"lines\":").unwrap() + ",\"lines\":".len();
    let end = text.find(",\"ids\":").unwrap();
    (text[start..end].to_owned(), expected)
}

fn records(values: &[(String, String, String)]) -> String {
    let records: Vec<Value> = values
        .iter()
        .enumerate()
        .map(|(i, (a, c, t))| {
            json!({"id": i, "a": a, "b": {"c": c, "d": [1, "x\"y"]}, "n": i as f64 / 4.0, "t": [t, a], "f": i % 2 == 0})
        })
        .collect();
    serde_json::to_string(&records).unwrap()
}

#[test]
fn escapes_at_the_edges_of_words_and_runs() {
    let values: Vec<(String, String, String)> = [
        "\"starts",
        "ends\"",
        "seven..\"eight...",
        "eight...\"nine",
        "back\\slash",
        "tab\there",
        "del\u{7f}",
        "0123456\u{7f}",
        "c1\u{85}",
        "sep\u{2028}",
        "caf\u{e9}",
        "",
        "a long plain value that runs over many words of eight bytes each",
    ]
    .iter()
    .map(|s| (s.to_string(), s.chars().rev().collect(), format!("{s}{s}")))
    .collect();
    let body = records(&values);
    for template in TEMPLATES {
        let (got, expected) = both(&body, template);
        assert_eq!(got, expected, "template {template}");
    }
}

#[test]
fn plain_records_are_copied_whole() {
    let body =
        r#"[{"id":1,"a":"orbit beta","b":{"c":"user0@example.com"},"n":84.49,"t":["2025-05-03"]}]"#;
    let (got, expected) = both(body, TEMPLATES[0]);
    assert_eq!(got, expected);
    assert_eq!(
        got,
        r#"["orbit beta <user0@example.com> n 84.49, since 2025-05-03"]"#
    );

    // Which lines the template says need no escape.
    let document = Document::parse(
        r#"[{"a":"plain","b":{"c":"x"},"n":1,"t":["y"]},{"a":"q\"uote","n":2},{"a":"café"},{"a":"del"}]"#,
    )
    .unwrap();
    let cx = RenderContext::at_unix(0);
    let verbatim = |template: &str| -> Vec<bool> {
        let template = Template::parse(template).unwrap();
        document
            .root()
            .items()
            .map(|record| template.write_node(record, &cx, &mut String::new()))
            .collect()
    };
    assert_eq!(verbatim(TEMPLATES[0]), [true, false, true, false]);
    // Non-ASCII text that breaks no line is looked at, and needs no escape.
    assert_eq!(verbatim("{a|upper} {n}"), [true, false, true, false]);
    assert_eq!(verbatim("say \"{n}\""), [false; 4]);
    assert_eq!(verbatim("{b}"), [false, true, true, true]);
}

proptest! {
    #[test]
    fn envelope_lines_are_serde_json_text(
        values in proptest::collection::vec(
            (
                "(\\PC|[\"\\\\\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{2028}\\u{2029}]){0,24}",
                "(\\PC|[\"\\\\\\x00-\\x1f\\x7f\\u{2028}]){0,12}",
                "[a-z\"\\\\\\n]{0,40}",
            ),
            1..6,
        ),
        template in proptest::sample::select(TEMPLATES),
    ) {
        let (got, expected) = both(&records(&values), template);
        prop_assert_eq!(got, expected);
    }
}
