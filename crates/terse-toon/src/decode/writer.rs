//! The decoder's JSON writer: each value, key and row is written as JSON
//! text as the parser reads it, with no tree in between. The output is
//! what `serde_json` writes for the tree [`Tree`](super::build::Tree)
//! builds, byte for byte, except that a number no `f64` holds as written
//! keeps its digits.
//!
//! It holds the output, a small state per open object or array on the
//! parser's stack, and the keys of the open objects (to find a repeated
//! one). A key repeated in lenient mode keeps its first place and its last
//! value, as in the tree: the object's text is rewritten when it closes.

use super::build::Build;
use super::fail::{Fail, PResult};
use super::json::write_str;
use super::scalar;
use super::table::{Piece, Table};
use std::collections::{HashMap, HashSet};

/// Objects with more keys than this look repeats up in a hash set.
const LINEAR_KEYS: usize = 16;

/// Writes JSON text (see the module documentation).
pub(super) struct Writer {
    pub out: Vec<u8>,
    limit: usize,
    /// The output passed `limit` at some point: it is dropped as it grows
    /// (the parser reads on, for errors that come first), and the result
    /// is an output-limit error.
    pub over: bool,
    strict: bool,
    /// The fields of the open objects, innermost last: key, where its
    /// `"key":` starts in `out`, and where its value starts.
    keys: Vec<(String, usize, usize)>,
    /// Reused cell state for rows.
    cells: Cells,
}

/// An object being written.
pub(super) struct Object {
    /// Where its `{` is in `out`.
    start: usize,
    /// Its fields' first entry in `Writer::keys`.
    base: usize,
    /// Where the field being read starts: its `"key":`, and its value.
    field: (usize, usize),
    /// Its keys, once it has more than [`LINEAR_KEYS`].
    set: Option<HashSet<String>>,
    /// A key repeated (lenient mode): rewritten when it closes.
    repeated: bool,
}

/// An array being written: its items so far.
pub(super) struct Items(usize);

/// The cells of a row being written.
#[derive(Default)]
pub(super) struct Cells {
    count: usize,
    /// Where the row's text starts in `out`.
    start: usize,
    /// For a table whose field names repeat: where each cell's value is
    /// in `out`, to be laid out when the row ends.
    spans: Vec<(usize, usize)>,
}

impl Writer {
    pub fn new(strict: bool, limit: usize, capacity: usize) -> Self {
        Writer {
            out: Vec::with_capacity(capacity.min(limit.saturating_add(1))),
            limit,
            over: false,
            strict,
            keys: Vec::new(),
            cells: Cells::default(),
        }
    }

    /// Past the bound, the text so far is dropped: it will not be used, and
    /// the bound holds the memory too. In lenient mode a key repeated later
    /// can shrink any object the text holds (its first value goes), so the
    /// bound is for the text once rewritten, checked at the end; until then
    /// the text is at most what the document writes without the rewrites.
    #[inline]
    fn check(&mut self) {
        if self.strict && self.out.len() > self.limit {
            self.over = true;
            self.out.clear();
        }
    }

    /// The quoted string token `start..end` (from its `"`).
    fn quoted(&mut self, text: &str, start: usize, end: usize) -> PResult<()> {
        let bytes = text.as_bytes();
        let body = start + 1;
        // No escape: the text is one span of the input.
        if let Some(close) = bytes[body..end]
            .iter()
            .position(|&b| b == b'"' || b == b'\\')
            .map(|at| body + at)
            .filter(|&at| bytes[at] == b'"')
        {
            if close + 1 != end {
                return Err(after_quote(close + 1));
            }
            write_str(&mut self.out, &text[body..close]);
            return Ok(());
        }
        let (unescaped, after) = scalar::quoted(text, start, end)?;
        if after != end {
            return Err(after_quote(after));
        }
        write_str(&mut self.out, &unescaped);
        Ok(())
    }

    /// The number-like token: its JSON text as the tree's value writes,
    /// or the digits as written when no `f64` holds them; a string when
    /// it is not a number.
    fn number(&mut self, token: &str) {
        let b = token.as_bytes();
        let digits = b.strip_prefix(b"-").unwrap_or(b);
        // An integer of up to 18 digits without a leading zero is its own
        // text (an `i64` written back), but for `-0`.
        if (1..=18).contains(&digits.len())
            && (digits.len() == 1 || digits[0] != b'0')
            && digits.iter().all(u8::is_ascii_digit)
        {
            if b == b"-0" {
                self.out.push(b'0');
            } else {
                self.out.extend_from_slice(b);
            }
            return;
        }
        let Some(value) = scalar::number(token) else {
            write_str(&mut self.out, token);
            return;
        };
        let long = token.len() > 15 || token.contains(['.', 'e', 'E']);
        if long && !crate::exact::number_is_exact(token) {
            if let Some(digits) = crate::exact::exact_canonical(token) {
                self.out.extend_from_slice(digits.as_bytes());
                return;
            }
        }
        // Writing a number into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut self.out, &value);
    }

    /// Whether `object` has a field `key` already.
    fn seen(&self, object: &Object, key: &str) -> bool {
        match &object.set {
            Some(set) => set.contains(key),
            None => self.keys[object.base..]
                .iter()
                .any(|(seen, _, _)| seen == key),
        }
    }

    /// Rewrites the object opened at `object.start`, whose fields are
    /// `keys[object.base..]`, with each key once at its first place and
    /// its last value (lenient mode's reading of a repeated key).
    #[cold]
    fn rewrite(&mut self, object: &Object) {
        let fields = &self.keys[object.base..];
        let mut last: HashMap<&str, usize> = HashMap::with_capacity(fields.len());
        for (i, (key, _, _)) in fields.iter().enumerate() {
            last.insert(key.as_str(), i);
        }
        let end_of = |i: usize| match fields.get(i + 1) {
            // Before the next field's comma.
            Some(&(_, next, _)) => next - 1,
            None => self.out.len(),
        };
        let mut text = vec![b'{'];
        let mut written = HashSet::with_capacity(fields.len());
        for (key, field, value) in fields {
            if !written.insert(key.as_str()) {
                continue;
            }
            if text.len() > 1 {
                text.push(b',');
            }
            let at = last[key.as_str()];
            text.extend_from_slice(&self.out[*field..*value]);
            text.extend_from_slice(&self.out[fields[at].2..end_of(at)]);
        }
        self.out.truncate(object.start);
        self.out.extend_from_slice(&text);
    }
}

fn after_quote(pos: usize) -> Fail {
    Fail::new(pos, "unexpected characters after the closing quote")
}

impl Build for Writer {
    type Value = ();
    type Object = Object;
    type Items = Items;
    type Cells = Cells;

    #[inline]
    fn primitive(&mut self, text: &str, start: usize, end: usize) -> PResult<()> {
        let bytes = &text.as_bytes()[start..end];
        match bytes.first() {
            Some(b'"') => self.quoted(text, start, end)?,
            Some(b't') if bytes == b"true" => self.out.extend_from_slice(b"true"),
            Some(b'f') if bytes == b"false" => self.out.extend_from_slice(b"false"),
            Some(b'n') if bytes == b"null" => self.out.extend_from_slice(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(&text[start..end]),
            _ => write_str(&mut self.out, &text[start..end]),
        }
        self.check();
        Ok(())
    }

    fn empty_object(&mut self) {
        self.out.extend_from_slice(b"{}");
        self.check();
    }

    fn empty_array(&mut self) {
        self.out.extend_from_slice(b"[]");
        self.check();
    }

    fn object(&mut self, _: usize) -> Object {
        self.out.push(b'{');
        Object {
            start: self.out.len() - 1,
            base: self.keys.len(),
            field: (0, 0),
            set: None,
            repeated: false,
        }
    }

    fn object_len(_: &Object) -> usize {
        0
    }

    #[inline]
    fn key(&mut self, object: &mut Object, key: &str) {
        if self.keys.len() > object.base {
            self.out.push(b',');
        }
        let field = self.out.len();
        write_str(&mut self.out, key);
        self.out.push(b':');
        object.field = (field, self.out.len());
        if !self.strict && !object.repeated && self.seen(object, key) {
            object.repeated = true;
        }
    }

    fn insert(&mut self, object: &mut Object, key: String, pos: usize, (): ()) -> PResult<()> {
        if self.strict && self.seen(object, &key) {
            return Err(Fail::new(pos, format!("duplicate key `{key}`")));
        }
        let fields = &self.keys[object.base..];
        if object.set.is_none() && fields.len() >= LINEAR_KEYS {
            object.set = Some(fields.iter().map(|(seen, _, _)| seen.clone()).collect());
        }
        if let Some(set) = &mut object.set {
            set.insert(key.clone());
        }
        self.keys.push((key, object.field.0, object.field.1));
        Ok(())
    }

    fn end_object(&mut self, object: Object) {
        if object.repeated && !self.over {
            self.rewrite(&object);
        }
        self.keys.truncate(object.base);
        self.out.push(b'}');
        self.check();
    }

    fn array(&mut self, _: usize) -> Items {
        self.out.push(b'[');
        Items(0)
    }

    #[inline]
    fn item(&mut self, items: &mut Items) {
        if items.0 > 0 {
            self.out.push(b',');
        }
    }

    #[inline]
    fn push(&mut self, items: &mut Items, (): ()) {
        items.0 += 1;
    }

    fn len(items: &Items) -> usize {
        items.0
    }

    fn hint(_: &Items) -> usize {
        0
    }

    fn end_array(&mut self, _: Items) {
        self.out.push(b']');
        self.check();
    }

    fn take_cells(&mut self) -> Cells {
        std::mem::take(&mut self.cells)
    }

    fn put_cells(&mut self, cells: Cells) {
        self.cells = cells;
    }

    fn clear_cells(cells: &mut Cells) {
        cells.count = 0;
        cells.spans.clear();
    }

    #[inline]
    fn cell(
        &mut self,
        cells: &mut Cells,
        table: &Table,
        text: &str,
        start: usize,
        end: usize,
    ) -> PResult<()> {
        if cells.count == 0 {
            cells.start = self.out.len();
        }
        if table.duplicates {
            let at = self.out.len();
            self.primitive(text, start, end)?;
            cells.spans.push((at, self.out.len()));
        } else {
            // Cells past the table's width are an error once the row is
            // read; they are still read, for errors that come first.
            if let Some(prefix) = table.text().prefixes.get(cells.count) {
                self.out.extend_from_slice(prefix);
            }
            self.primitive(text, start, end)?;
        }
        cells.count += 1;
        Ok(())
    }

    fn cell_count(cells: &Cells) -> usize {
        cells.count
    }

    fn row(&mut self, cells: &mut Cells, table: &Table) {
        if !table.duplicates {
            self.out.extend_from_slice(&table.text().suffix);
        } else if !self.over && cells.spans.len() == table.leaves {
            let mut text = Vec::new();
            for piece in &table.text().layout {
                match piece {
                    Piece::Text(bytes) => text.extend_from_slice(bytes),
                    Piece::Cell(i) => {
                        let (from, to) = cells.spans[*i];
                        text.extend_from_slice(&self.out[from..to]);
                    }
                }
            }
            self.out.truncate(cells.start);
            self.out.extend_from_slice(&text);
        }
        self.check();
    }
}
