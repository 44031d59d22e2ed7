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
use super::value::{Val, push_node_verbatim};
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
    /// No literal text that JSON escapes (`"`, `\`, a control byte).
    pub(super) json_text: bool,
}

impl Traits {
    /// The traits of `ast`, its groups walked with a stack of their own.
    pub(super) fn of(ast: &Ast) -> Self {
        let mut traits = Traits {
            flat: true,
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
                    Segment::Value(_) => {}
                    Segment::Optional(inner) => {
                        traits.flat = false;
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
