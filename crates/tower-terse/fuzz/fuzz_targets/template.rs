//! Fuzz target: arbitrary line templates, parsed and rendered over
//! arbitrary records.
//!
//! Whatever the bytes, parsing must finish with a template or an error that
//! points inside the text (on character boundaries, with the column of its
//! offset), never accept a template past the length or nesting bounds, and
//! rendering must give one line: no control character, no line separator,
//! the same text from a fresh copy of the template as from one that has
//! rendered other records (its field position hints are only a guess).
//!
//! Layout: the template's bytes (lossily UTF-8) up to the first NUL, then a
//! JSON record (a fixed one when the rest is not JSON).

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use terse_template::{MAX_NESTING, MAX_TEMPLATE_BYTES, Segment};
use tower_terse::compact::{RenderContext, Template};

fuzz_target!(|data: &[u8]| {
    let (source, record) = match data.iter().position(|&byte| byte == 0) {
        Some(nul) => (&data[..nul], &data[nul + 1..]),
        None => (data, &[][..]),
    };
    let source = String::from_utf8_lossy(source);
    let template = match Template::parse(&source) {
        Ok(template) => template,
        Err(err) => {
            let span = err.span();
            assert!(
                span.start <= span.end && span.end <= source.len(),
                "{err}: span out of the text"
            );
            assert!(
                source.is_char_boundary(span.start) && source.is_char_boundary(span.end),
                "{err}: span cuts a character"
            );
            assert_eq!(
                err.column(),
                source[..span.start].chars().count() + 1,
                "{err}"
            );
            assert!(!err.message().is_empty());
            if source.len() > MAX_TEMPLATE_BYTES {
                assert!(
                    err.message().contains("bytes long"),
                    "a long template refused for another reason: {err}"
                );
            }
            return;
        }
    };
    assert!(
        source.len() <= MAX_TEMPLATE_BYTES,
        "a template past the length bound parsed"
    );
    let ast = terse_template::parse(&source).expect("the same text parses the same way");
    assert!(
        depth(&ast.segments) <= MAX_NESTING,
        "groups past the nesting bound parsed"
    );
    assert_eq!(template.source(), source);

    let record = serde_json::from_slice::<Value>(record).unwrap_or_else(|_| {
        json!({"id": 7, "title": "Plan\nreview", "start": "2025-03-01T09:30:00Z", "tags": ["a", "b"], "room": null})
    });
    let cx = RenderContext::at_unix(1_740_830_400);
    let other = json!({"title": 1, "id": [{"a": "\u{2028}"}], "zzz": {}});
    let first = template.render(&record, &cx);
    template.render(&other, &cx);
    let again = template.render(&record, &cx);
    assert_eq!(
        first, again,
        "a template renders a record differently after another one"
    );
    assert_eq!(template.clone().render(&record, &cx), first);
    assert!(
        !first
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}'),
        "a rendered line that breaks: {first:?}"
    );
});

/// How deep the optional groups nest, counted without recursion.
fn depth(segments: &[Segment]) -> usize {
    let mut deepest = 0;
    let mut open = vec![segments.iter()];
    while let Some(top) = open.last_mut() {
        match top.next() {
            Some(Segment::Optional(inner)) => {
                open.push(inner.iter());
                deepest = deepest.max(open.len() - 1);
            }
            Some(_) => {}
            None => {
                open.pop();
            }
        }
    }
    deepest
}
