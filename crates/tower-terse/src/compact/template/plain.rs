//! Templates without groups or filters, compiled for rendering: each
//! placeholder with the text before it, so a line is one short loop of
//! text, then value.
//!
//! Such a template has no clock to read, no timestamp read twice and no
//! group to drop, so a line keeps what it needs in locals rather than in
//! the cells of a [`LineContext`](super::line::LineContext), in one small
//! loop apart from the general walk's.

use terse_template::{Ast, Segment};
use terse_toon::document::Node;

use super::hints::Hint;
use super::line::Line;
use super::value::push_plain;
use crate::compact::lines::{ShortText, push_short};

/// A template of text and placeholders alone, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plain {
    pieces: Box<[Piece]>,
    /// The text after the last placeholder.
    tail: Text,
    /// No literal text that JSON escapes (`"`, `\`, a control byte).
    json_text: bool,
}

/// A placeholder and the text before it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    text: Text,
    path: Box<[String]>,
    /// The number of the path's first step among the steps of all paths,
    /// in order: the index of its hint, as the general walk counts them.
    step: usize,
    /// How many first steps the path shares with the one before it
    /// (`customer.address.city` after `customer.name`: one), short of
    /// either's last step: steps the line took already, whose node the
    /// path before kept.
    shared: usize,
    /// How many first steps of the path the next one shares: the node
    /// they reach is kept for it.
    keep: usize,
    /// Where the key of a path of one step stood in the last record.
    hint: Hint,
}

impl Plain {
    /// `ast` compiled, when it has no group and no filter; `json_text` when
    /// its text needs no JSON escape.
    pub(super) fn of(ast: &Ast, json_text: bool) -> Option<Self> {
        let mut pieces: Vec<Piece> = Vec::new();
        let mut text = String::new();
        let mut step = 0;
        for segment in &ast.segments {
            match segment {
                Segment::Text(more) => text.push_str(more),
                Segment::Value(placeholder) if placeholder.filters.is_empty() => {
                    let path = placeholder.path.as_slice();
                    let mut shared = 0;
                    if let Some(last) = pieces.last_mut() {
                        let most = last.path.len().min(path.len()).saturating_sub(1);
                        let same = last.path.iter().zip(path).take_while(|(a, b)| a == b);
                        shared = same.count().min(most);
                        // The path before keeps the node past its own
                        // shared steps only: it never reached one short
                        // of them.
                        if shared < last.shared {
                            shared = 0;
                        }
                        last.keep = shared;
                    }
                    pieces.push(Piece {
                        text: Text::new(std::mem::take(&mut text)),
                        path: path.into(),
                        step,
                        shared,
                        keep: 0,
                        hint: Hint::new(),
                    });
                    step += path.len();
                }
                Segment::Value(_) | Segment::Optional(_) => return None,
            }
        }
        Some(Plain {
            pieces: pieces.into_boxed_slice(),
            tail: Text::new(text),
            json_text,
        })
    }

    /// Renders the line for `record` onto the end of `out`; returns whether
    /// what it wrote is JSON string text as it stands.
    pub(super) fn render(&self, template: Line<'_>, record: Node<'_>, out: &mut String) -> bool {
        let mut verbatim = self.json_text;
        // The node the last path kept for the next (see `Piece::keep`).
        let mut kept = None;
        for piece in &self.pieces {
            piece.text.push_onto(out);
            verbatim &= value(template, piece, record, &mut kept, out);
        }
        self.tail.push_onto(out);
        verbatim
    }
}

/// A template's text between two placeholders (or before the first, or
/// after the last): most are a few bytes, held so as to be written with
/// one move.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Text {
    Short(ShortText),
    Long(Box<str>),
}

impl Text {
    fn new(text: String) -> Self {
        match ShortText::new(&text) {
            Some(short) => Text::Short(short),
            None => Text::Long(text.into_boxed_str()),
        }
    }

    #[inline(always)]
    fn push_onto(&self, out: &mut String) {
        match self {
            Text::Short(short) => short.push_onto(out),
            Text::Long(text) => push_short(out, text),
        }
    }
}

/// Writes the value of `piece`'s placeholder in `record`; returns whether
/// what it wrote is JSON string text as it stands. The common case, one key
/// found where the hint says, is read without a call. A longer path starts
/// from the node the path before it `kept` when they start the same way,
/// and keeps the node the next path starts from. Inlined into the line's
/// loop, which then keeps what it needs across values in registers
/// (measured: a call per value cost the flat rows some 3k instructions a
/// rendering more).
#[inline(always)]
fn value<'t>(
    template: Line<'_>,
    piece: &Piece,
    record: Node<'t>,
    kept: &mut Option<Node<'t>>,
    out: &mut String,
) -> bool {
    let (path, step) = (&*piece.path, piece.step);
    let found = match path {
        [key] => match piece.hint.get(record, key) {
            Some(node) => Some(node),
            // Missing (reported once), or a step into an array: the walk
            // that knows both.
            None => template.lookup(step, record, path),
        },
        _ => {
            // Shared steps that reached nothing are taken again from the
            // record, so a missing key is reported for this path too.
            let (start, from) = match *kept {
                Some(node) if piece.shared > 0 => (node, piece.shared),
                _ => (record, 0),
            };
            if piece.keep > from {
                *kept = template.walk(step, start, path, from..piece.keep);
                kept.and_then(|node| template.walk(step, node, path, piece.keep..path.len()))
            } else {
                if piece.keep < from {
                    *kept = None;
                }
                template.walk(step, start, path, from..path.len())
            }
        }
    };
    match found {
        Some(node) => push_plain(node, out),
        None => true,
    }
}
