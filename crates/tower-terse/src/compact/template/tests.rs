use serde_json::{Value, json};

use super::Template;
use crate::compact::RenderContext;

/// 2025-03-01T12:00:00Z
const NOW: i64 = 1_740_830_400;

fn render(template: &str, record: Value) -> String {
    Template::parse(template)
        .unwrap_or_else(|e| panic!("{template}: {e}"))
        .render(&record, &RenderContext::at_unix(NOW))
}

#[test]
fn values_render_as_text() {
    let record = json!({
        "s": "text", "n": 42, "f": 1.5, "t": true, "no": false, "null": null,
        "tags": ["a", "b", 3], "nested": {"inner": {"x": "deep"}}, "obj": {"k": [1]},
    });
    assert_eq!(
        render(
            "{s}|{n}|{f}|{t}|{no}|{null}|{missing}|{tags}",
            record.clone()
        ),
        "text|42|1.5|true|false|||a, b, 3"
    );
    assert_eq!(
        render("{nested.inner.x} {tags.1} {tags.9} {s.x}", record.clone()),
        "deep b  "
    );
    assert_eq!(render("{obj}", record), r#"{"k":[1]}"#);
}

#[test]
fn literal_braces() {
    assert_eq!(render("{{{n}}} {{}}", json!({"n": 1})), "{1} {}");
}

#[test]
fn time_and_date() {
    let record = json!({"at": "2025-03-01T09:05:59+02:00", "day": "2025-03-01", "unix": 1_740_821_415, "bad": "soon"});
    assert_eq!(
        render("{at|time} {at|date}", record.clone()),
        "09:05 2025-03-01"
    );
    assert_eq!(
        render("{unix|time} {unix|date}", record.clone()),
        "09:30 2025-03-01"
    );
    assert_eq!(
        render("{day|date} [{day|time}]", record.clone()),
        "2025-03-01 [2025-03-01]"
    );
    assert_eq!(
        render("{bad|time} {bad|date} {missing|time}", record),
        "soon soon "
    );
}

#[test]
fn ago_is_relative_to_the_render_time() {
    let record = json!({
        "a": "2025-03-01T11:55:00Z", "b": "2025-03-01T09:00:00Z", "c": "2025-02-15T12:00:00Z",
        "d": "2025-03-03T12:00:00Z", "e": NOW - 30, "f": "2025-03-01T12:00:00Z",
        "g": "2024-01-01T00:00:00Z", "h": "2025-01-01", "bad": "yesterday",
    });
    assert_eq!(
        render(
            "{a|ago}|{b|ago}|{c|ago}|{d|ago}|{e|ago}|{f|ago}|{g|ago}|{h|ago}|{bad|ago}",
            record
        ),
        "5m ago|3h ago|2w ago|in 2d|30s ago|now|1y ago|1mo ago|yesterday"
    );
}

#[test]
fn bytes() {
    let record =
        json!({"a": 512, "b": 1000, "c": 2_345_678, "d": "1536", "e": -5, "f": "big", "g": 1.5e9});
    assert_eq!(
        render(
            "{a|bytes} {b|bytes} {c|bytes} {d|bytes} {e|bytes} {f|bytes} {g|bytes}",
            record
        ),
        "512B 1.0KB 2.3MB 1.5KB -5 big 1.5GB"
    );
}

#[test]
fn short_and_trunc() {
    let record = json!({"id": "0f8e2b7c-1d2e-4f00-9abc-0123456789ab", "n": 1_234_567_890_123u64, "t": "héllo wörld", "few": "abc"});
    assert_eq!(
        render("{id|short} {n|short} {few|short}", record.clone()),
        "0f8e2b7c 12345678 abc"
    );
    assert_eq!(
        render("{t|trunc(5)} {few|trunc(3)} {few|trunc(0)}", record),
        "héllo… abc …"
    );
}

#[test]
fn case_filters() {
    let record = json!({"s": "Straße Ünïcode", "n": 5, "list": ["a", "B"]});
    assert_eq!(
        render("{s|upper} {s|lower} {n|upper}", record.clone()),
        "STRASSE ÜNÏCODE straße ünïcode 5"
    );
    assert_eq!(render("{list|upper}", record), "A, B");
}

#[test]
fn join() {
    let record = json!({"tags": ["x", 1, true], "empty": [], "s": "not a list"});
    assert_eq!(
        render(
            "{tags|join(/)} [{empty|join(;)}] {s|join(,)}",
            record.clone()
        ),
        "x/1/true [] not a list"
    );
    assert_eq!(
        render("{tags|join(, )}|{tags|join(\" | \")}", record.clone()),
        "x, 1, true|x | 1 | true"
    );
    assert_eq!(render("{tags|upper|join(+)}", record), "X+1+true");
}

#[test]
fn default_applies_to_null_missing_and_empty() {
    let record =
        json!({"null": null, "empty": "", "list": [], "obj": {}, "zero": 0, "no": false, "s": "x"});
    assert_eq!(
        render(
            "{null|default(-)} {missing|default(-)} {empty|default(-)} {list|default(-)} {obj|default(-)} {zero|default(-)} {no|default(-)} {s|default(-)}",
            record
        ),
        "- - - - - 0 false x"
    );
}

#[test]
fn flag_shows_text_only_when_truthy() {
    let record = json!({"t": true, "f": false, "n": 2, "z": 0, "s": "x", "e": "", "l": [1], "el": [], "null": null});
    assert_eq!(
        render(
            "{t|flag(T)}{f|flag(F)}{n|flag(N)}{z|flag(Z)}{s|flag(S)}{e|flag(E)}{l|flag(L)}{el|flag(EL)}{null|flag(0)}{missing|flag(M)}",
            record
        ),
        "TNSL"
    );
}

#[test]
fn optional_groups_drop_on_null_missing_empty_and_false() {
    let t = "{title}{? [{location}]}{? {recurring|flag(🔁)}}";
    let full = json!({"title": "Standup", "location": "Room 1", "recurring": true});
    assert_eq!(render(t, full), "Standup [Room 1] 🔁");
    for location in [json!(null), json!(""), json!([]), json!({}), json!(false)] {
        let record = json!({"title": "Standup", "location": location, "recurring": false});
        assert_eq!(render(t, record), "Standup", "location {location}");
    }
    assert_eq!(render(t, json!({"title": "Standup"})), "Standup");
    // Zero is a value, not an absence.
    assert_eq!(render("{? n={n}}", json!({"n": 0})), " n=0");
    // Filters run before the check: `default` fills a group in.
    assert_eq!(render("{? @{room|default(tbd)}}", json!({})), " @tbd");
    // Any one absent value drops the whole group.
    assert_eq!(render("{? {a}-{b}}", json!({"a": 1})), "");
    // An inner group that drops leaves the outer one alone.
    assert_eq!(render("{?({a}{? {b}})}", json!({"a": 1})), "(1)");
    assert_eq!(render("{?({a}{? {b}})}", json!({"b": 1})), "");
}

#[test]
fn values_never_break_the_line() {
    let record = json!({"s": "one\ntwo\r\tthree\u{1b}[0m\u{7f}\u{85}\u{2028}end", "list": ["a\nb"], "obj": {"k": "x\ny"}});
    let line = render("{s} {list} {obj} {s|upper|trunc(3)}", record);
    assert_eq!(
        line,
        r#"one\ntwo\r\tthree\u{1b}[0m\u{7f}\u{85}\u{2028}end a\nb {"k":"x\ny"} ONE…"#
    );
    assert!(!line.chars().any(char::is_control));
}

#[test]
fn parse_errors_say_where() {
    let err = Template::parse("{title} {start|tme}").unwrap_err();
    assert_eq!((err.offset(), err.column()), (15, 16));
    assert!(err.message().contains("did you mean `time`"), "{err}");
    let err = Template::parse("ü {? {a}").unwrap_err();
    assert_eq!((err.offset(), err.column()), (3, 3));
    assert_eq!(
        err.to_string(),
        "template error at column 3 (byte 3): optional group `{?` is never closed; end it with `}`"
    );
}

#[test]
fn template_accessors() {
    let t: Template = "{a.b|upper} {? {c}}".parse().unwrap();
    assert_eq!(t.source(), "{a.b|upper} {? {c}}");
    assert_eq!(t.to_string(), t.source());
    assert_eq!(t.field_names().collect::<Vec<_>>(), ["a", "c"]);
}

#[test]
fn a_field_formatted_twice_and_fields_alike_read_their_own_time() {
    let record = json!({
        "a": "2025-03-01T09:30:00Z",
        "b": "2024-12-24T18:05:00Z",
        "c": "2025-03-01T09:30:00Z",
    });
    assert_eq!(
        render(
            "{a|date} {a|time} {b|date} {b|time} {c|time} {a|time}",
            record.clone()
        ),
        "2025-03-01 09:30 2024-12-24 18:05 09:30 09:30"
    );
    // Text a filter wrote is read afresh each time, even when a later
    // string lands where an earlier one was.
    assert_eq!(
        render(
            "{a|lower|date} {b|lower|date} {a|lower|time} {b|lower|time}",
            record
        ),
        "2025-03-01 2024-12-24 09:30 18:05"
    );
}

#[test]
fn flag_default_and_join_read_the_same_inside_a_chain_as_at_its_end() {
    let record = json!({"t": true, "f": false, "tags": ["x", 1], "empty": [], "s": "a\tb"});
    // The last filter of a placeholder writes straight into the line; a
    // filter before another one makes a value. Both must agree.
    assert_eq!(render("{t|flag(yes)|upper}", record.clone()), "YES");
    assert_eq!(render("{f|flag(yes)|default(no)}", record.clone()), "no");
    assert_eq!(
        render("{missing|default(x y)|upper}", record.clone()),
        "X Y"
    );
    assert_eq!(render("{tags|join(/)|upper}", record.clone()), "X/1");
    assert_eq!(
        render("{empty|join(/)|default(none)}", record.clone()),
        "none"
    );
    assert_eq!(render("{? [{f|flag(F)|upper}]}.", record.clone()), ".");
    assert_eq!(render("{? [{empty|join(/)|upper}]}.", record.clone()), ".");
    assert_eq!(
        render("{s|default(-)|upper} {s|upper}", record),
        "A\\tB A\\tB"
    );
}

#[test]
fn one_template_reads_records_of_any_key_order() {
    // One template over many records, as the layer renders a list: where a
    // field stood in the last record is only a guess for the next one.
    let template = Template::parse("{id} {title}{? [{room.name}]}{? {tags|join(/)}}").unwrap();
    let records = json!([
        {"id": 1, "title": "a", "room": {"name": "r1"}, "tags": ["x"]},
        {"title": "b", "id": 2, "tags": [], "room": null},
        {"room": {"title": "nested", "id": 9, "name": "r3"}, "id": 3, "title": "c"},
        {"tags": ["y", "z"], "id": 4},
        {"id": 5, "title": "e", "room": {"name": "r5"}, "tags": ["x"]},
        [],
    ]);
    let cx = RenderContext::at_unix(NOW);
    let lines: Vec<String> = records
        .as_array()
        .unwrap()
        .iter()
        .map(|record| template.render(record, &cx))
        .collect();
    assert_eq!(
        lines,
        ["1 a [r1] x", "2 b", "3 c [r3]", "4  y/z", "5 e [r5] x", " "]
    );
    // The same lines as templates that never saw another record.
    for (record, line) in records.as_array().unwrap().iter().zip(&lines) {
        assert_eq!(&template.clone().render(record, &cx), line);
    }
}

/// `depth` groups, each `{?<name>:{<name>} ... }`, the innermost holding `{v}`.
fn nested(depth: usize) -> String {
    let mut template = String::new();
    for level in 0..depth {
        template.push_str(&format!("{{?<{{l{level}}}"));
    }
    template.push_str("{v}");
    for _ in 0..depth {
        template.push_str(">}");
    }
    template
}

#[test]
fn groups_nested_past_the_inline_stack_render_as_shallow_ones_do() {
    // Six levels: more than the render keeps without allocating.
    let template = Template::parse(&nested(6)).unwrap();
    let cx = RenderContext::at_unix(NOW);
    let all = json!({"l0": 0, "l1": 1, "l2": 2, "l3": 3, "l4": 4, "l5": 5, "v": "x"});
    assert_eq!(template.render(&all, &cx), "<0<1<2<3<4<5x>>>>>>");
    // A missing value drops its own group and everything inside it, not
    // the groups around it.
    let mut record = all.clone();
    record["l4"] = Value::Null;
    assert_eq!(template.render(&record, &cx), "<0<1<2<3>>>>");
    let mut record = all.clone();
    record["v"] = Value::Null;
    assert_eq!(template.render(&record, &cx), "<0<1<2<3<4>>>>>");
    record["l0"] = Value::Null;
    assert_eq!(template.render(&record, &cx), "");
}

#[test]
fn templates_nested_too_deep_or_too_long_are_refused_where_the_bound_is_passed() {
    let at_bound = nested(terse_template::MAX_NESTING);
    assert!(Template::parse(&at_bound).is_ok());
    let err = Template::parse(&nested(terse_template::MAX_NESTING + 1)).unwrap_err();
    let opening = nested(terse_template::MAX_NESTING).find("{v}").unwrap();
    assert_eq!(err.offset(), opening);
    assert!(err.message().contains("nested more than 32 deep"), "{err}");
    // 10 000 deep: refused (by length, the first bound it passes), and no
    // stack overflow on the way.
    let err = Template::parse(&"{?".repeat(10_000)).unwrap_err();
    assert_eq!(err.column(), terse_template::MAX_TEMPLATE_BYTES + 1);
    assert!(err.message().contains("at most 4096 bytes"), "{err}");
    // 2 000 deep fits the length bound: refused for its depth.
    let err = Template::parse(&"{?".repeat(2_000)).unwrap_err();
    assert_eq!(err.column(), 2 * terse_template::MAX_NESTING + 1);
}

#[test]
fn a_hand_built_template_nested_10_000_deep_renders_on_a_small_stack() {
    use terse_template::{Ast, Placeholder, Segment};
    const DEPTH: usize = 10_000;
    let value = || {
        Segment::Value(Placeholder {
            path: vec!["v".to_owned()],
            span: 0..1,
            filters: Vec::new(),
        })
    };
    // Built from the inside out, so building it recurses nowhere.
    let mut segments = vec![value()];
    for _ in 0..DEPTH {
        segments = vec![Segment::Text("(".to_owned()), Segment::Optional(segments)];
    }
    let mut template = Template::__from_checked("{v}", Ast { segments });
    let line = std::thread::scope(|scope| {
        std::thread::Builder::new()
            // A recursive walk needs far more than this for 10 000 levels.
            .stack_size(64 * 1024)
            .spawn_scoped(scope, || {
                let cx = RenderContext::at_unix(NOW);
                let present = template.render(&json!({"v": 1}), &cx);
                let missing = template.render(&json!({}), &cx);
                (present, missing)
            })
            .unwrap()
            .join()
            .unwrap()
    });
    assert_eq!(line.0, "(".repeat(DEPTH) + "1");
    // Only the innermost group drops: each outer one holds text only.
    assert_eq!(line.1, "(".repeat(DEPTH));
    // Taken apart level by level: dropping it whole would recurse.
    let mut segments = std::mem::take(&mut template.ast.segments);
    while let Some(Segment::Optional(inner)) = segments.pop() {
        segments = inner;
    }
}

#[test]
fn an_object_value_with_controls_json_leaves_alone_stays_on_one_line() {
    // serde_json escapes C0 controls, not DEL, C1 controls or U+2028.
    let line = render("{a}", json!({"a": {"b": "x\u{7f}\u{85}\u{2028}y"}}));
    assert!(
        !line
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}'),
        "{line:?}"
    );
    assert!(line.starts_with("{\"b\":\"x"), "{line}");
}

#[test]
fn nested_paths_follow_keys_wherever_they_stand_from_record_to_record() {
    // One template over records whose nested keys move, go missing, turn
    // into arrays or scalars: each step is looked up afresh when the last
    // record's position does not hold.
    let template = Template::parse("{a.b.c}|{a.x}|{? {a.b.c}}|{a.b.0}|{z}").unwrap();
    let cx = RenderContext::at_unix(NOW);
    let records = [
        json!({"a": {"b": {"c": 1}, "x": "p"}, "z": 0}),
        json!({"z": 1, "a": {"x": "q", "y": 0, "b": {"d": 2, "c": 3}}}),
        json!({"a": {"b": [7, 8], "x": null}}),
        json!({"a": {"b": {"c": 4}, "x": "r"}, "z": 2}),
        json!({"a": "flat"}),
        json!({"a": {"x": "s", "b": {"c": "\"q\""}}, "z": [3]}),
    ];
    let lines: Vec<String> = records.iter().map(|r| template.render(r, &cx)).collect();
    assert_eq!(
        lines,
        [
            "1|p| 1||0",
            "3|q| 3||1",
            "|||7|",
            "4|r| 4||2",
            "||||",
            "\"q\"|s| \"q\"||3",
        ]
    );
}

/// The warnings logged while `f` runs, on this thread only (a scoped
/// subscriber: tests running beside it log elsewhere).
fn warnings_of(f: impl FnOnce()) -> Vec<String> {
    use std::fmt::Write as _;
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};

    struct Message(String);
    impl Visit for Message {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            let _ = write!(self.0, " {}={:?}", field.name(), value);
        }
    }
    struct Capture(Arc<Mutex<Vec<String>>>);
    impl tracing::Subscriber for Capture {
        fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
            *metadata.level() <= tracing::Level::WARN
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            let mut message = Message(event.metadata().level().to_string());
            event.record(&mut message);
            self.0.lock().unwrap().push(message.0);
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }
    let logged = Arc::new(Mutex::new(Vec::new()));
    tracing::subscriber::with_default(Capture(logged.clone()), f);
    logged.lock().unwrap().clone()
}

#[test]
fn a_path_into_an_object_without_its_key_warns_once_per_template_and_path() {
    let template = Template::parse("{title} by {reporter.nme}{? ({reporter.team.nam})}").unwrap();
    let cx = RenderContext::at_unix(NOW);
    let record = |n: u32| json!({"title": format!("bug {n}"), "reporter": {"name": "Ada", "team": {"name": "core"}}});
    let warnings = warnings_of(|| {
        for n in 0..3 {
            assert_eq!(template.render(&record(n), &cx), format!("bug {n} by "));
        }
        // A clone is the same resource's template: nothing new to say.
        assert_eq!(template.clone().render(&record(3), &cx), "bug 3 by ");
    });
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("WARN message=compact template `{title} by {reporter.nme}{? ({reporter.team.nam})}`: `reporter` has no key `nme`, so `{reporter.nme}` renders empty")
            && warnings[0].contains("did you mean `name`?")
            && warnings[0].contains(r#"path=reporter.nme"#),
        "{warnings:#?}"
    );
    assert!(
        warnings[1].contains("`reporter.team` has no key `nam`")
            && warnings[1].contains("did you mean `name`?"),
        "{warnings:#?}"
    );
    // Another template (another resource) reports its own paths.
    let other = Template::parse("{reporter.nme}").unwrap();
    assert_eq!(
        warnings_of(|| {
            other.render(&record(0), &cx);
        })
        .len(),
        1
    );
}

#[test]
fn values_that_are_null_absent_parents_or_short_arrays_do_not_warn() {
    let template = Template::parse("{title}{? by {reporter.name}}{? {tags.3}}").unwrap();
    let cx = RenderContext::at_unix(NOW);
    let warnings = warnings_of(|| {
        for record in [
            json!({"title": "a", "reporter": null, "tags": []}),
            json!({"title": "b", "tags": ["x"]}),
            json!({"title": "c", "reporter": "someone", "tags": "x"}),
            json!({"title": "d", "reporter": {"name": null}, "tags": [1, 2, 3, 4]}),
        ] {
            template.render(&record, &cx);
        }
    });
    // `reporter` missing from record b is a top-level key of a run-time
    // template: reported; nothing else is.
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("the record has no key `reporter`"),
        "{warnings:#?}"
    );
}

#[test]
fn a_checked_template_reports_only_the_paths_below_its_fields() {
    let ast = terse_template::parse("{title}{? {due}} by {reporter.nme}").unwrap();
    let template = Template::__from_checked("{title}{? {due}} by {reporter.nme}", ast);
    let cx = RenderContext::at_unix(NOW);
    let warnings = warnings_of(|| {
        // `due` is skipped by serde when empty: the derive checked the field
        // exists, so its absence is no typo.
        template.render(&json!({"title": "a", "reporter": {"name": "Ada"}}), &cx);
    });
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("`reporter` has no key `nme`"),
        "{warnings:#?}"
    );
}

/// Compiled templates (no group, no filter) against the general walk.
mod compiled {
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use terse_toon::document::{Document, Node};

    use super::super::Template;
    use super::super::line::Line;
    use super::super::render::{Traits, render};
    use crate::compact::RenderContext;

    /// Templates without groups or filters: one-key and nested paths, a
    /// path into an array, a missing key, literal text JSON escapes, text
    /// at either end or none.
    const PLAIN: &[&str] = &[
        "{name} <{email}> score {score}, since {created}",
        "{status} for {customer.name} in {customer.address.city}, total {total}",
        "{missing}{name}{customer.missing}{tags.1}",
        "say \"{name}\" \\ {customer}",
        "{tags} {flag} {none} {customer.address}",
        "no values at all",
        "",
        // Paths that start the same way: shared steps, fewer shared steps
        // than the path before, a missing key on a shared step, steps into
        // arrays and into what is neither.
        "{customer.address.city} {customer.address.zip} {customer.name} {customer.address.city}",
        "{customer.missing.x} {customer.missing.y} {customer.address.missing} {customer.address.zip}",
        "{customer.0} {customer.1.name} {customer.1.address.city} {name.x} {name.y}",
        "{tags.0} {tags.1} {tags.9} {customer.name}",
    ];

    /// A record of the shape the templates read, its values drawn from
    /// `texts`.
    fn record(i: usize, texts: &[String], shuffled: bool) -> Value {
        let text = |n: usize| {
            texts
                .get((i + n) % texts.len().max(1))
                .cloned()
                .unwrap_or_default()
        };
        let mut record = json!({
            "name": text(0),
            "email": text(1),
            "score": i as f64 / 8.0,
            "created": text(2),
            "status": text(3),
            "customer": {"name": text(4), "address": {"city": text(5), "zip": i}},
            "tags": [text(6), i, null],
            "flag": i.is_multiple_of(2),
            "none": null,
            "total": i,
        });
        if shuffled {
            // Keys in another order and one missing: the hints miss.
            let object = record.as_object_mut().unwrap();
            let name = object.remove("name").unwrap();
            object.remove("email");
            object.insert("name".to_owned(), name);
        }
        if i % 3 == 2 {
            // The customer as an array: paths step into it by index.
            let customer = record["customer"].take();
            record["customer"] = json!([text(7), customer]);
        }
        record
    }

    /// The line and whether it is JSON text, rendered from the compiled
    /// template or by the general walk.
    fn line(template: &Template, record: Node<'_>, compiled: bool) -> (String, bool) {
        let line = Line {
            hints: &template.hints,
            source: &template.source,
            missing: &template.missing.0,
        };
        let mut out = String::from("kept");
        let verbatim = match (&template.plain, compiled) {
            (Some(plain), true) => plain.render(line, record, &mut out),
            _ => {
                let traits = Traits::of(&template.ast);
                let cx = RenderContext::at_unix(0);
                render(&template.ast, traits, line, record, &cx, &mut out)
            }
        };
        (out, verbatim)
    }

    #[test]
    fn templates_without_groups_or_filters_are_compiled() {
        for source in PLAIN {
            assert!(Template::parse(source).unwrap().plain.is_some(), "{source}");
        }
        for source in ["{a|upper}", "{a}{? {b}}", "{? x}"] {
            assert!(Template::parse(source).unwrap().plain.is_none(), "{source}");
        }
    }

    proptest! {
        /// A compiled template writes what the general walk writes, and
        /// says the same of whether it is JSON text, record after record
        /// (hints carried from one to the next), whatever the values hold:
        /// quotes, backslashes, controls, DEL, C1 controls, U+2028, other
        /// Unicode.
        #[test]
        fn compiled_lines_are_the_general_lines(
            texts in proptest::collection::vec(
                "(\\PC|[\\x00-\\x1f\"\\\\\\x7f\\u{80}-\\u{9f}\\u{2028}\\u{2029}]){0,20}",
                1..6,
            ),
            shuffles in proptest::collection::vec(any::<bool>(), 1..8),
        ) {
            let records: Vec<Value> = shuffles
                .iter()
                .enumerate()
                .map(|(i, &shuffled)| record(i, &texts, shuffled))
                .collect();
            let body = serde_json::to_string(&records).unwrap();
            let document = Document::parse(&body).unwrap();
            for source in PLAIN {
                let compiled = Template::parse(source).unwrap();
                let general = Template::parse(source).unwrap();
                for record in document.root().items() {
                    prop_assert_eq!(line(&compiled, record, true), line(&general, record, false));
                }
                // The same paths are reported missing.
                prop_assert_eq!(compiled.missing.0.reported(), general.missing.0.reported());
            }
        }
    }
}
