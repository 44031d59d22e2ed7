//! Tabular detection (spec §9.3, §9.5): whether a list of objects shares one
//! field structure, the header fields that describe it, and the cells of
//! each row in header order.
//!
//! The fields are a flat pre-order list: each field records where its
//! subtree ends, so a leaf is a field whose subtree is empty and a nested
//! field group is a field with descendants. Detection builds the fields
//! from the first object and then checks every other object against them,
//! row by row, without collecting columns.
//!
//! Nested field groups may nest as deep as the data does (the spec sets no
//! bound), so every walk here keeps its open levels in a vector instead of
//! on the call stack; the vectors live in [`Table`] and are reused for every
//! row and every table of a document.

use super::out::{Out, Sink};
use super::primitive::write_cell;
use super::tree::{Kind, Tree, next_or_get};
use crate::document::same_bytes;
use crate::quoting::write_key;

/// One header field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'t> {
    pub(crate) name: &'t str,
    /// Index just past this field's nested fields.
    pub(crate) end: usize,
}

impl Field<'_> {
    /// Whether the field at `index` (this one) has no nested field group.
    fn is_leaf(&self, index: usize) -> bool {
        self.end == index + 1
    }
}

/// One open object of a row walk: the object, its entries not read yet, the
/// field index just past its group, and how many of its entries matched.
struct Level<'t, T: Tree<'t>> {
    row: T,
    entries: T::Entries,
    end: usize,
    matched: usize,
    len: usize,
}

impl<'t, T: Tree<'t>> Level<'t, T> {
    fn new(row: T, end: usize, len: usize) -> Self {
        Level {
            row,
            entries: row.entries(),
            end,
            matched: 0,
            len,
        }
    }

    /// The value of field `name`.
    #[inline(always)]
    fn value(&mut self, name: &str) -> Option<T> {
        next_or_get(self.row, &mut self.entries, name)
    }
}

/// The header of the table being written, and the scratch space of its
/// walks. Rows hold only primitives, so one `Table` serves every table of a
/// document in turn.
pub(crate) struct Table<'t, T: Tree<'t>> {
    fields: Vec<Field<'t>>,
    /// Whether every field is a leaf (no nested field group): the common
    /// case, walked without the level stack.
    flat: bool,
    levels: Vec<Level<'t, T>>,
    groups: Vec<usize>,
    /// The text of the last header written (`{...}:`) and the fields it was
    /// written for: lists of records often hold many tables of one shape
    /// (each order's items), whose header is then a copy.
    header: String,
    header_fields: Vec<Field<'t>>,
    /// Whether `fields` are unchanged since `header` was written for them:
    /// the header is then copied without comparing the fields.
    header_current: bool,
    /// The [`Tree::keys_id`] of the row `fields` were built from, when
    /// they are leaves only; 0 otherwise. A row of that id and as many
    /// keys holds the fields' keys in their order.
    keys: u16,
}

impl<'t, T: Tree<'t>> Table<'t, T> {
    pub(crate) fn new() -> Self {
        Table {
            // Records of a list mostly have fewer fields: the vector
            // starts at that size rather than growing to it row by row.
            fields: Vec::with_capacity(16),
            flat: false,
            levels: Vec::new(),
            groups: Vec::new(),
            // Most headers fit, and a header's text would otherwise grow
            // a byte at a time to its length.
            header: String::with_capacity(64),
            header_fields: Vec::with_capacity(16),
            header_current: false,
            keys: 0,
        }
    }

    /// Takes the header of a table whose rows are `rows`, or returns `false`
    /// if the rows are not uniform.
    pub(crate) fn detect(&mut self, mut rows: impl Iterator<Item = T>) -> bool {
        let uniform = match rows.next() {
            Some(first) => self.start(first) && rows.all(|row| self.matches(row)),
            None => false,
        };
        if !uniform {
            self.fields.clear();
            self.header_current = false;
            self.keys = 0;
        }
        uniform
    }

    /// Whether the header taken last is one of leaves only, which the next
    /// table may share: [`write_row`](Self::write_row) `in_order` of that
    /// table's first row says whether it does.
    pub(crate) fn has_flat_header(&self) -> bool {
        self.flat && !self.fields.is_empty()
    }

    /// Takes the header of a table whose first row is `first`, when it is
    /// a non-empty object of primitives and non-empty objects: the other
    /// rows are still to be checked, with [`write_row`](Self::write_row)
    /// as they are written (or with [`detect`](Self::detect) from the
    /// start).
    pub(crate) fn start(&mut self, first: T) -> bool {
        self.header_current = false;
        self.fields.clear();
        let fits = matches!(first.kind(), Kind::Object(n) if n > 0) && self.build(first);
        if !fits {
            self.fields.clear();
        }
        self.flat = self
            .fields
            .iter()
            .enumerate()
            .all(|(i, field)| field.is_leaf(i));
        self.keys = match self.flat && fits {
            true => first.keys_id(),
            false => 0,
        };
        fits
    }

    /// Appends the fields of `object` (a non-empty object): primitives become
    /// leaves, non-empty objects nested groups; anything else disqualifies.
    fn build(&mut self, object: T) -> bool {
        // The entries still to read of each enclosing group, and the index
        // of that group's field.
        let mut open: Vec<(T::Entries, usize)> = Vec::new();
        let mut entries = object.entries();
        loop {
            match entries.next() {
                Some((name, value)) => {
                    let at = self.fields.len();
                    self.fields.push(Field { name, end: at + 1 });
                    match value.kind() {
                        Kind::Object(n) if n > 0 => {
                            let outer = std::mem::replace(&mut entries, value.entries());
                            open.push((outer, at));
                        }
                        Kind::Object(_) | Kind::Array(_) => return false,
                        _ => {}
                    }
                }
                None => match open.pop() {
                    Some((outer, at)) => {
                        self.fields[at].end = self.fields.len();
                        entries = outer;
                    }
                    None => return true,
                },
            }
        }
    }

    /// Whether `row` has exactly the header's fields at every level, with
    /// primitives at leaves and non-empty objects at nested groups.
    fn matches(&mut self, row: T) -> bool {
        self.walk(row, false, |_, _| {})
    }

    /// Writes `rows` below the header, each on a line `line` starts, with
    /// [`write_row`](Self::write_row) (the first `in_order` when
    /// `first_in_order`), until the output refuses a write: whether the
    /// first row that does not match is the table's first, or `None`. One call for a
    /// table's rows, not one per row, whose setup cost as much as a cell.
    ///
    /// A row the tree knows to hold the keys of the row the header was
    /// built from, in order ([`Tree::write_row_of_keys`]), is written
    /// without a comparison of its keys (and matches in order). Rows of
    /// a list share their keys' id far more often than the values of a
    /// keyed table, which are not tried so. Inlined into its one caller.
    #[inline(always)]
    pub(crate) fn write_rows(
        &mut self,
        out: &mut Out,
        rows: impl Iterator<Item = T>,
        delimiter: u8,
        first_in_order: bool,
        mut line: impl FnMut(&mut Out),
    ) -> Option<bool> {
        let mut in_order = first_in_order;
        let mut first = true;
        for row in rows {
            if out.is_over() {
                break;
            }
            line(out);
            if self.keys != 0 {
                match row.write_row_of_keys(self.keys, self.fields.len(), out, delimiter) {
                    Some(true) => {
                        in_order = false;
                        first = false;
                        continue;
                    }
                    Some(false) => return Some(first),
                    None => {}
                }
            }
            if !self.write_row(out, row, delimiter, in_order) {
                return Some(first);
            }
            in_order = false;
            first = false;
        }
        None
    }

    /// Checks `row` against the header as [`detect`](Self::detect) does
    /// and writes its leaf values in header order, joined by the
    /// delimiter, in the same walk. `false` when the row does not match;
    /// what it wrote up to there is then the caller's to take back. With
    /// `in_order` (for a header of leaves only), the row matches only with
    /// its keys in the header's order: a first row that matches so is one
    /// [`start`](Self::start) would build the same header from.
    #[inline(always)]
    pub(crate) fn write_row(
        &mut self,
        out: &mut Out,
        row: T,
        delimiter: u8,
        in_order: bool,
    ) -> bool {
        if self.flat {
            let names = self.fields.iter().map(|field| field.name);
            let written = if in_order {
                row.write_flat_row::<true>(names, out, delimiter)
            } else {
                row.write_flat_row::<false>(names, out, delimiter)
            };
            if let Some(matched) = written {
                return matched;
            }
        }
        let mut first = true;
        self.walk(row, in_order, |value, kind| {
            if !first {
                out.push_byte(delimiter);
            }
            first = false;
            write_cell(out, value, kind, delimiter);
        })
    }

    /// Walks `row` along the header, handing each leaf value (and what it
    /// is) to `leaf` in header order; `false` as soon as the row does not
    /// match it.
    #[inline]
    fn walk(&mut self, row: T, in_order: bool, mut leaf: impl FnMut(T, Kind<'t>)) -> bool {
        if self.flat {
            let names = self.fields.iter().map(|field| field.name);
            // Two walks, so that the one of every row but a first has no
            // check of the order in its loop.
            return if in_order {
                row.walk_flat::<true>(names, leaf)
            } else {
                row.walk_flat::<false>(names, leaf)
            };
        }
        // Order is checked for headers of leaves only.
        let (Kind::Object(len), false) = (row.kind(), in_order) else {
            return false;
        };
        self.levels.clear();
        self.levels.push(Level::new(row, self.fields.len(), len));
        let mut i = 0;
        while let Some(level) = self.levels.last_mut() {
            if i == level.end {
                if level.matched != level.len {
                    return false;
                }
                self.levels.pop();
                continue;
            }
            let field = self.fields[i];
            let Some(value) = level.value(field.name) else {
                return false;
            };
            level.matched += 1;
            let kind = value.kind();
            if field.is_leaf(i) {
                if !kind.is_primitive() {
                    return false;
                }
                leaf(value, kind);
            } else {
                let Kind::Object(len) = kind else {
                    return false;
                };
                self.levels.push(Level::new(value, field.end, len));
            }
            i += 1;
        }
        true
    }

    /// Writes `{f1,f2{a,b}}:`: a copy of the last header when the fields
    /// are the same (the delimiter is one per document). Inlined: one call
    /// per table, mostly a copy.
    #[inline(always)]
    pub(crate) fn write_header(&mut self, out: &mut Out, delimiter: u8) {
        let same = self.header_current
            || self.fields.len() == self.header_fields.len()
                && self
                    .fields
                    .iter()
                    .zip(&self.header_fields)
                    .all(|(a, b)| a.end == b.end && same_bytes(a.name, b.name));
        if !same {
            self.header.clear();
            self.header_fields.clear();
            self.header_fields.extend_from_slice(&self.fields);
            write_header(&mut self.header, &self.fields, &mut self.groups, delimiter);
        }
        self.header_current = true;
        out.push_str(&self.header);
    }
}

/// Writes the header of `fields` (`{f1,f2{a,b}}:`) to `out`; `groups` is
/// scratch space for the open field groups.
fn write_header(out: &mut String, fields: &[Field<'_>], groups: &mut Vec<usize>, delimiter: u8) {
    groups.clear();
    out.push('{');
    let mut first = true;
    for (i, field) in fields.iter().enumerate() {
        if !first {
            out.push(char::from(delimiter));
        }
        write_key(out, field.name);
        first = !field.is_leaf(i);
        if first {
            out.push('{');
            groups.push(field.end);
        }
        while groups.last() == Some(&(i + 1)) {
            out.push('}');
            groups.pop();
        }
    }
    out.push_str("}:");
}
