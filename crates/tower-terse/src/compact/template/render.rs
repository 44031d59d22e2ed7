//! Walks a parsed template over one JSON record.
//!
//! Optional groups nest, and a hand-built [`Ast`] may nest them deeper than
//! the parser allows, so the walk keeps its open groups in a stack of its
//! own instead of recursing: its depth costs heap (a few words per group),
//! never call stack. The first [`INLINE_GROUPS`] levels live in a small
//! array, so the templates people write render without allocating for
//! their groups.

use terse_template::{Ast, Filter, Placeholder, Segment};
use terse_toon::document::Node;

use super::filters;
use super::line::{Line, LineContext};
use super::value::{Val, push_node_verbatim, push_plain};
use crate::compact::RenderContext;
use crate::compact::lines::find_json_special;

/// Open groups kept without allocating. Real templates nest groups two or
/// three deep; a larger array would cost its initialisation on every line.
const INLINE_GROUPS: usize = 4;

/// What rendering needs to know of a template besides its segments,
/// worked out once when it is parsed rather than on every line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Traits {
    /// No optional group: the segments render in one plain loop.
    flat: bool,
    /// Flat, and no placeholder has a filter: every value is the record's
    /// own, written as it is, which [`render_plain`] does without the
    /// bookkeeping filters need.
    plain: bool,
    /// No literal text that JSON escapes (`"`, `\`, a control byte).
    json_text: bool,
}

impl Traits {
    /// The traits of `ast`, its groups walked with a stack of their own.
    pub(super) fn of(ast: &Ast) -> Self {
        let mut traits = Traits {
            flat: true,
            plain: true,
            json_text: true,
        };
        let mut pending: Vec<&[Segment]> = vec![&ast.segments];
        while let Some(segments) = pending.pop() {
            for segment in segments {
                match segment {
                    Segment::Text(text) => {
                        if find_json_special(text.as_bytes()).is_some() {
                            traits.json_text = false;
                        }
                    }
                    Segment::Value(placeholder) => {
                        if !placeholder.filters.is_empty() {
                            traits.plain = false;
                        }
                    }
                    Segment::Optional(inner) => {
                        traits.flat = false;
                        traits.plain = false;
                        pending.push(inner);
                    }
                }
            }
        }
        traits
    }
}

/// Renders one line onto the end of `out`; returns whether what it wrote
/// is JSON string text as it stands (no `"`, `\` or control byte), which
/// the envelope then copies without escaping.
pub(super) fn render(
    ast: &Ast,
    traits: Traits,
    template: Line<'_>,
    record: Node<'_>,
    cx: &RenderContext,
    out: &mut String,
) -> bool {
    if traits.plain {
        return render_plain(&ast.segments, template, traits.json_text, record, out);
    }
    let line = LineContext::new(cx, template, traits.json_text);
    if traits.flat {
        // Nothing to drop: no frames to keep.
        for segment in &ast.segments {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Value(placeholder) => {
                    evaluate_into(placeholder, record, &line, out);
                }
                // Not in a flat template.
                Segment::Optional(_) => {}
            }
        }
    } else {
        render_segments(&ast.segments, record, &line, out);
    }
    line.verbatim()
}

/// [`render`] of a plain template (no group, no filter): each value is
/// looked up and written as it stands, and whether the line is JSON string
/// text is kept in a local rather than in a [`LineContext`]'s cells, which
/// a plain line does not need (no clock, no timestamp read twice).
fn render_plain(
    segments: &[Segment],
    template: Line<'_>,
    json_text: bool,
    record: Node<'_>,
    out: &mut String,
) -> bool {
    let mut verbatim = json_text;
    // The number of the next step of a path, as `LineContext::lookup`
    // counts them: the hints are the template's, whichever way it renders.
    let mut step = 0;
    for segment in segments {
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Value(placeholder) => {
                let path = placeholder.path.as_slice();
                verbatim &= plain_value(template, step, record, path, out);
                step += path.len();
            }
            // Not in a plain template.
            Segment::Optional(_) => {}
        }
    }
    verbatim
}

/// Writes the value at `path` (its steps numbered from `step`) of a plain
/// template's placeholder; returns whether what it wrote is JSON string
/// text as it stands.
///
/// A function of its own, and a small one: called from the line's loop it
/// keeps few values live across the lookup, where the general
/// [`evaluate_into`] (filters, groups, a clock) saves and restores many.
/// The common case, one key found where the hint says, is read inline.
#[inline(never)]
fn plain_value(
    template: Line<'_>,
    step: usize,
    record: Node<'_>,
    path: &[String],
    out: &mut String,
) -> bool {
    let found = match path {
        [key] => match template.hints.get(step, record, key) {
            Some(node) => Some(node),
            // Missing (reported once), or a step into an array: the walk
            // that knows both.
            None => template.lookup(step, record, path),
        },
        _ => template.lookup(step, record, path),
    };
    match found {
        Some(node) => push_plain(node, out),
        None => true,
    }
}

/// A sequence of segments being rendered: the segments, the next one, where
/// its text started in the line (to drop it), and whether every value
/// directly inside was present (null, missing, empty or false drops a
/// group).
#[derive(Clone, Copy)]
struct Frame<'t> {
    segments: &'t [Segment],
    next: usize,
    mark: usize,
    complete: bool,
}

impl<'t> Frame<'t> {
    fn new(segments: &'t [Segment], mark: usize) -> Self {
        Frame {
            segments,
            next: 0,
            mark,
            complete: true,
        }
    }
}

/// The enclosing frames of the one being rendered: an array first, a
/// vector past it.
struct Open<'t> {
    inline: [Frame<'t>; INLINE_GROUPS],
    len: usize,
    spilled: Vec<Frame<'t>>,
}

impl<'t> Open<'t> {
    fn new() -> Self {
        Open {
            inline: [Frame::new(&[], 0); INLINE_GROUPS],
            len: 0,
            spilled: Vec::new(),
        }
    }

    fn push(&mut self, frame: Frame<'t>) {
        match self.inline.get_mut(self.len) {
            Some(slot) => {
                *slot = frame;
                self.len += 1;
            }
            None => self.spilled.push(frame),
        }
    }

    fn pop(&mut self) -> Option<Frame<'t>> {
        if let Some(frame) = self.spilled.pop() {
            return Some(frame);
        }
        self.len = self.len.checked_sub(1)?;
        Some(self.inline[self.len])
    }
}

/// Renders `segments` into `out`. A group whose values are not all present
/// is cut from `out` when it closes; an inner group that drops does not
/// drop the outer one.
fn render_segments<'t>(
    segments: &'t [Segment],
    record: Node<'t>,
    cx: &LineContext<'_>,
    out: &mut String,
) {
    let mut open = Open::new();
    let mut frame = Frame::new(segments, out.len());
    loop {
        let Some(segment) = frame.segments.get(frame.next) else {
            // The end of a group (or of the template).
            let Some(parent) = open.pop() else {
                return;
            };
            if !frame.complete {
                out.truncate(frame.mark);
            }
            frame = parent;
            continue;
        };
        frame.next += 1;
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Value(placeholder) => {
                if !evaluate_into(placeholder, record, cx, out) {
                    frame.complete = false;
                }
            }
            Segment::Optional(inner) => {
                open.push(frame);
                frame = Frame::new(inner, out.len());
            }
        }
    }
}

/// Writes one placeholder's value to `out`; returns false when the value was
/// null, missing, empty or false.
#[inline]
fn evaluate_into<'t>(
    placeholder: &'t Placeholder,
    record: Node<'t>,
    cx: &LineContext<'_>,
    out: &mut String,
) -> bool {
    let found = cx.lookup(record, &placeholder.path);
    let Some((last, filters)) = placeholder.filters.split_last() else {
        return match found {
            Some(node) => {
                let (empty, verbatim) = push_node_verbatim(node, out);
                cx.wrote(verbatim);
                !empty
            }
            None => false,
        };
    };
    let mark = out.len();
    let present = evaluate_filtered(last, filters, found, cx, out);
    cx.wrote_from(mark, out);
    present
}

/// [`evaluate_into`] for a placeholder with filters: `last` is its last
/// filter, `filters` those before it.
fn evaluate_filtered<'t>(
    last: &'t Filter,
    filters: &'t [Filter],
    found: Option<Node<'t>>,
    cx: &LineContext<'_>,
    out: &mut String,
) -> bool {
    if filters.is_empty() {
        // The common case: the value is the record's own, and nothing is
        // allocated or dropped on the way (each arm's value is of a variant
        // known to own nothing).
        return !match found {
            Some(node) => filters::apply_into(&last.kind, &Val::Node(node), cx, out),
            None => filters::apply_into(&last.kind, &Val::Null, cx, out),
        };
    }
    let mut value = found.map_or(Val::Null, Val::Node);
    for filter in filters {
        value = filters::apply(&filter.kind, value, cx);
    }
    !filters::apply_into(&last.kind, &value, cx, out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use terse_toon::document::Document;

    use super::*;
    use crate::compact::template::Template;

    /// Templates without groups or filters, which render through
    /// [`render_plain`]: one-key and nested paths, a path into an array, a
    /// missing key, literal text JSON escapes.
    const PLAIN: &[&str] = &[
        "{name} <{email}> score {score}, since {created}",
        "{status} for {customer.name} in {customer.address.city}, total {total}",
        "{missing}{name}{customer.missing}{tags.1}",
        "say \"{name}\" \\ {customer}",
        "{tags} {flag} {none} {customer.address}",
    ];

    /// A record of the shape the templates read, its values drawn from
    /// `texts` (quotes, controls, DEL, C1 controls, U+2028, other Unicode).
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
        record
    }

    /// The line and its verbatim flag, rendered plainly or through the
    /// general walk.
    fn line(template: &Template, record: Node<'_>, plain: bool) -> (String, bool) {
        let traits = Traits {
            plain: plain && template.traits.plain,
            ..template.traits
        };
        let line = Line {
            hints: &template.hints,
            source: &template.source,
            missing: &template.missing.0,
        };
        let cx = RenderContext::at_unix(0);
        let mut out = String::from("kept");
        let verbatim = render(&template.ast, traits, line, record, &cx, &mut out);
        (out, verbatim)
    }

    #[test]
    fn plain_templates_take_the_plain_path() {
        for source in PLAIN {
            assert!(Template::parse(source).unwrap().traits.plain, "{source}");
        }
        for source in ["{a|upper}", "{a}{? {b}}"] {
            assert!(!Template::parse(source).unwrap().traits.plain, "{source}");
        }
    }

    proptest! {
        /// The plain path writes what the general walk writes, and says the
        /// same of whether it is JSON text, record after record (the hints
        /// carried from one to the next).
        #[test]
        fn plain_lines_are_the_general_lines(
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
                let plain = Template::parse(source).unwrap();
                let general = Template::parse(source).unwrap();
                for record in document.root().items() {
                    prop_assert_eq!(line(&plain, record, true), line(&general, record, false));
                }
            }
        }
    }
}
