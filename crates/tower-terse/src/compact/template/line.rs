//! What rendering one line needs besides the template and the record.

use std::cell::Cell;
use std::ops::Range;

use terse_toon::document::Node;

use super::hints::Hints;
use super::missing::Missing;
use crate::compact::RenderContext;
use crate::compact::lines::find_json_special;
use crate::rfc3339::{self, DateTime, Leniency};

/// What a template keeps for rendering besides its segments.
#[derive(Clone, Copy)]
pub(super) struct Line<'c> {
    pub(super) hints: &'c Hints,
    /// The template as written, for the warning of a missing path.
    pub(super) source: &'c str,
    pub(super) missing: &'c Missing,
}

impl Line<'_> {
    /// The value at `path` in `record`, the path's steps numbered from
    /// `first` (the hints count every step of every path, in order). Each
    /// step into an object tries where its key stood in the last record
    /// first.
    #[inline(always)]
    pub(super) fn lookup<'t>(
        self,
        first: usize,
        record: Node<'t>,
        path: &[String],
    ) -> Option<Node<'t>> {
        self.walk(first, record, path, 0..path.len())
    }

    /// The steps `steps` of `path` from `node`, which the steps before them
    /// reached, as [`lookup`](Self::lookup) takes them.
    #[inline(always)]
    pub(super) fn walk<'t>(
        self,
        first: usize,
        mut node: Node<'t>,
        path: &[String],
        steps: Range<usize>,
    ) -> Option<Node<'t>> {
        for i in steps {
            let key = path.get(i)?;
            // The lookup finds nothing in a node that is not an object, so
            // the node's kind is looked at only when it found nothing:
            // one read of the node's slot per step, not two.
            node = match self.hints.get(first + i, node, key) {
                Some(found) => found,
                None if node.is_object() => {
                    self.missing.report(self.source, path, i, node);
                    return None;
                }
                None => node.item(key.parse::<usize>().ok()?)?,
            };
        }
        Some(node)
    }
}

/// What rendering one line needs besides the record: the request's clock,
/// where the template's fields stood in the last record, and the last
/// timestamp read from the record, since templates often format one field
/// twice (`{start|date} {start|time}`).
pub(super) struct LineContext<'c> {
    pub(super) cx: &'c RenderContext,
    template: Line<'c>,
    /// The number of the next step of a placeholder's path, counted over
    /// the placeholders in the order they render (every placeholder
    /// renders, optional groups included, so the numbers hold from line to
    /// line).
    step: Cell<usize>,
    /// The address and length of a string of the record, and what it read
    /// as. The record outlives the line, so its strings keep their address.
    last_timestamp: Cell<Option<(usize, usize, Option<DateTime>)>>,
    /// Whether the line written so far is JSON string text as it stands
    /// (no `"`, `\` or control byte), so the envelope can copy it whole.
    /// Only ever cleared; a group cut from the line leaves it as it was,
    /// which errs on the side of escaping.
    verbatim: Cell<bool>,
}

impl<'c> LineContext<'c> {
    /// A line rendered at `cx`'s clock, with the template's `hints`;
    /// `json_text` when the template's own text needs no JSON escape.
    pub(super) fn new(cx: &'c RenderContext, template: Line<'c>, json_text: bool) -> Self {
        LineContext {
            cx,
            template,
            step: Cell::new(0),
            last_timestamp: Cell::new(None),
            verbatim: Cell::new(json_text),
        }
    }

    /// Whether the line is JSON string text as it stands.
    pub(super) fn verbatim(&self) -> bool {
        self.verbatim.get()
    }

    /// Notes whether what a placeholder wrote is JSON string text.
    #[inline]
    pub(super) fn wrote(&self, verbatim: bool) {
        if !verbatim {
            self.verbatim.set(false);
        }
    }

    /// Notes what a placeholder wrote to `out` from `mark` on, looking at
    /// it only while the line is still verbatim.
    pub(super) fn wrote_from(&self, mark: usize, out: &str) {
        if self.verbatim.get() {
            self.wrote(find_json_special(&out.as_bytes()[mark..]).is_none());
        }
    }

    /// The value at the next placeholder's `path` in `record`, as
    /// [`Line::lookup`] finds it; the steps are counted here.
    // Always inlined into the one caller that renders each placeholder: a
    // call per placeholder cost as much as the lookup of a one-step path.
    #[inline(always)]
    pub(super) fn lookup<'t>(&self, record: Node<'t>, path: &[String]) -> Option<Node<'t>> {
        let first = self.step.get();
        // Past the whole path even when a step finds nothing, so that the
        // numbers hold from line to line.
        self.step.set(first + path.len());
        self.template.lookup(first, record, path)
    }

    /// `text`, a string of the record, read as a timestamp.
    pub(super) fn record_timestamp(&self, text: &str) -> Option<DateTime> {
        let (at, len) = (text.as_ptr() as usize, text.len());
        if let Some((last_at, last_len, timestamp)) = self.last_timestamp.get() {
            if (last_at, last_len) == (at, len) {
                return timestamp;
            }
        }
        let timestamp = rfc3339::parse(text, Leniency::LENIENT).ok();
        self.last_timestamp.set(Some((at, len, timestamp)));
        timestamp
    }
}
