//! Writes TOON text for any [`Tree`] straight into one bounded buffer
//! ([`Out`]); every loop stops as soon as the buffer refuses a write.
//!
//! The encoder always writes the document delimiter in every header, so the
//! active delimiter of each array equals the document delimiter and one
//! delimiter governs all delimiter-aware quoting (spec §11.1).

use super::out::{Out, Sink};
use super::shape::{self, Field};
use super::tree::{Kind, Tree};
use crate::quoting::{write_key, write_string};
use crate::{Delimiter, EncodeOptions};

/// Encodes `root` as a TOON document of at most `limit` bytes; `None` when
/// the document would be longer. `capacity` is a guess of the length.
pub(crate) fn emit<'t, T: Tree<'t>>(
    root: T,
    options: &EncodeOptions,
    capacity: usize,
    limit: usize,
) -> Option<String> {
    let mut emitter = Emitter {
        out: Out::new(capacity, limit),
        indent_size: options.indent_size,
        delimiter: options.delimiter.as_byte(),
        header_delimiter: match options.delimiter {
            Delimiter::Comma => "",
            Delimiter::Tab => "\t",
            Delimiter::Pipe => "|",
        },
        fields: Vec::new(),
    };
    emitter.root(root);
    emitter.out.finish()
}

/// Where an array is written; it decides the empty form and whether the
/// tabular form is allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// The whole document: `[]` when empty.
    Root,
    /// An object field: `key: []` when empty.
    Field,
    /// An anonymous list item: `- [0]:` when empty, never tabular (a keyless
    /// fields-bearing header is valid only at the root).
    ListItem,
}

struct Emitter<'t> {
    out: Out,
    indent_size: usize,
    delimiter: u8,
    /// The delimiter symbol inside brackets: empty for comma.
    header_delimiter: &'static str,
    /// Header fields of the table being written. Rows hold only primitives,
    /// so one buffer serves every table in the document.
    fields: Vec<Field<'t>>,
}

impl<'t> Emitter<'t> {
    fn root<T: Tree<'t>>(&mut self, value: T) {
        match value.kind() {
            Kind::Array(len) => self.array(None, value, len, 0, Position::Root),
            Kind::Object(0) => {}
            Kind::Object(len) => {
                if self.keyed_fields(value, len) {
                    self.keyed_table(None, value, len, 0);
                } else {
                    self.object_fields(value, 0);
                }
            }
            kind => self.primitive(value, kind),
        }
    }

    /// Ends the current line (unless nothing is written yet) and indents.
    fn line(&mut self, depth: usize) {
        const SPACES: &str = "                                                                ";
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        let mut left = depth * self.indent_size;
        while left > 0 {
            let step = left.min(SPACES.len());
            self.out.push_str(&SPACES[..step]);
            left -= step;
        }
    }

    fn primitive<T: Tree<'t>>(&mut self, value: T, kind: Kind<'t>) {
        write_primitive(&mut self.out, value, kind, self.delimiter);
    }

    /// Each entry of `object` as a field line at `depth`.
    fn object_fields<T: Tree<'t>>(&mut self, object: T, depth: usize) {
        for (key, value) in object.entries() {
            if self.out.is_over() {
                return;
            }
            self.line(depth);
            self.field(key, value, depth);
        }
    }

    /// One field whose line is already started (indentation or `- `).
    /// `depth` is the field's own depth; nested content goes one deeper.
    fn field<T: Tree<'t>>(&mut self, key: &'t str, value: T, depth: usize) {
        match value.kind() {
            Kind::Array(len) => self.array(Some(key), value, len, depth, Position::Field),
            Kind::Object(len) => {
                if self.keyed_fields(value, len) {
                    self.keyed_table(Some(key), value, len, depth);
                } else {
                    write_key(&mut self.out, key);
                    self.out.push(':');
                    self.object_fields(value, depth + 1);
                }
            }
            kind => {
                write_key(&mut self.out, key);
                self.out.push_str(": ");
                self.primitive(value, kind);
            }
        }
    }

    /// `[N<delim>` plus `]` (the caller adds fields and the colon).
    fn bracket(&mut self, len: usize, keyed: bool) {
        self.out.push('[');
        self.out.push_str(itoa::Buffer::new().format(len));
        if keyed {
            self.out.push(':');
        }
        self.out.push_str(self.header_delimiter);
        self.out.push(']');
    }

    /// An array whose line is already started; writes the optional key, the
    /// header and the content below it.
    fn array<T: Tree<'t>>(
        &mut self,
        key: Option<&str>,
        array: T,
        len: usize,
        depth: usize,
        position: Position,
    ) {
        if let Some(key) = key {
            write_key(&mut self.out, key);
        }
        if len == 0 {
            match position {
                Position::Root => self.out.push_str("[]"),
                Position::Field => self.out.push_str(": []"),
                Position::ListItem => {
                    self.bracket(0, false);
                    self.out.push(':');
                }
            }
            return;
        }
        if array.items().all(|item| item.kind().is_primitive()) {
            self.bracket(len, false);
            self.out.push_str(": ");
            let mut first = true;
            for item in array.items() {
                if self.out.is_over() {
                    return;
                }
                if !first {
                    self.out.push_byte(self.delimiter);
                }
                first = false;
                self.primitive(item, item.kind());
            }
            return;
        }
        if position != Position::ListItem && shape::detect(&mut self.fields, array.items()) {
            self.bracket(len, false);
            self.header_fields();
            for row in array.items() {
                if self.out.is_over() {
                    return;
                }
                self.line(depth + 1);
                self.cells(row);
            }
            return;
        }
        self.bracket(len, false);
        self.out.push(':');
        for item in array.items() {
            if self.out.is_over() {
                return;
            }
            self.list_item(item, depth + 1);
        }
    }

    /// One element of an expanded list at `depth`.
    fn list_item<T: Tree<'t>>(&mut self, item: T, depth: usize) {
        self.line(depth);
        match item.kind() {
            Kind::Object(0) => self.out.push('-'),
            Kind::Object(_) => {
                self.out.push_str("- ");
                // The first field sits on the hyphen line at depth + 1.
                let mut first = true;
                for (key, value) in item.entries() {
                    if self.out.is_over() {
                        return;
                    }
                    if !first {
                        self.line(depth + 1);
                    }
                    first = false;
                    self.field(key, value, depth + 1);
                }
            }
            Kind::Array(len) => {
                self.out.push_str("- ");
                self.array(None, item, len, depth, Position::ListItem);
            }
            kind => {
                self.out.push_str("- ");
                self.primitive(item, kind);
            }
        }
    }

    /// Whether `object` (with `len` entries) takes the keyed tabular form;
    /// if so its header fields are in `self.fields`.
    fn keyed_fields<T: Tree<'t>>(&mut self, object: T, len: usize) -> bool {
        len >= 2 && shape::detect(&mut self.fields, object.entries().map(|(_, value)| value))
    }

    /// A keyed tabular object (fields already detected) and its entry rows.
    fn keyed_table<T: Tree<'t>>(&mut self, key: Option<&str>, object: T, len: usize, depth: usize) {
        if let Some(key) = key {
            write_key(&mut self.out, key);
        }
        self.bracket(len, true);
        self.header_fields();
        for (entry_key, value) in object.entries() {
            if self.out.is_over() {
                return;
            }
            self.line(depth + 1);
            write_key(&mut self.out, entry_key);
            self.out.push_str(": ");
            self.cells(value);
        }
    }

    /// `{f1,f2{a,b}}:` from `self.fields`.
    fn header_fields(&mut self) {
        let Emitter {
            out,
            fields,
            delimiter,
            ..
        } = self;
        write_field_group(out, fields, 0, fields.len(), *delimiter as char);
        out.push(':');
    }

    /// The leaf values of `row` in header order, joined by the delimiter.
    fn cells<T: Tree<'t>>(&mut self, row: T) {
        let Emitter {
            out,
            fields,
            delimiter,
            ..
        } = self;
        let mut first = true;
        write_cells(out, fields, 0, fields.len(), row, *delimiter, &mut first);
    }
}

fn write_primitive<'t, T: Tree<'t>>(out: &mut Out, value: T, kind: Kind<'t>, delimiter: u8) {
    match kind {
        Kind::Null => out.push_str("null"),
        Kind::Bool(true) => out.push_str("true"),
        Kind::Bool(false) => out.push_str("false"),
        Kind::Number => value.write_number(out),
        Kind::String(s) => write_string(out, s, delimiter),
        // Callers only pass primitives.
        Kind::Array(_) | Kind::Object(_) => debug_assert!(false, "not a primitive"),
    }
}

fn write_field_group(
    out: &mut Out,
    fields: &[Field<'_>],
    start: usize,
    end: usize,
    delimiter: char,
) {
    out.push('{');
    let mut i = start;
    while i < end {
        if i > start {
            out.push(delimiter);
        }
        let field = fields[i];
        write_key(out, field.name);
        if !field.is_leaf(i) {
            write_field_group(out, fields, i + 1, field.end, delimiter);
        }
        i = field.end;
    }
    out.push('}');
}

fn write_cells<'t, T: Tree<'t>>(
    out: &mut Out,
    fields: &[Field<'t>],
    start: usize,
    end: usize,
    row: T,
    delimiter: u8,
    first: &mut bool,
) {
    let mut entries = row.entries();
    let mut i = start;
    while i < end {
        if out.is_over() {
            return;
        }
        let field = fields[i];
        // Detection guarantees every field is present.
        if let Some(value) = shape::field_value(&mut entries, row, field.name) {
            if field.is_leaf(i) {
                if !*first {
                    out.push_byte(delimiter);
                }
                *first = false;
                write_primitive(out, value, value.kind(), delimiter);
            } else {
                write_cells(out, fields, i + 1, field.end, value, delimiter, first);
            }
        }
        i = field.end;
    }
}
