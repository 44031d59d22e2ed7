//! Writes TOON text for any [`Tree`] straight into one bounded buffer
//! ([`Out`]); every loop stops as soon as the buffer refuses a write.
//!
//! The walk keeps its open objects and lists in a vector of [`Frame`]s, not
//! on the call stack, so a `serde_json::Value` nested a hundred thousand
//! levels deep (which only code, not `serde_json`'s parser, can build)
//! encodes without overflowing the stack.
//!
//! The encoder always writes the document delimiter in every header, so the
//! active delimiter of each array equals the document delimiter and one
//! delimiter governs all delimiter-aware quoting (spec §11.1).

use super::out::{Out, SHORT, Sink};
use super::primitive::{write_primitive, write_scalar, write_value};
use super::shape::Table;
use super::tree::{Kind, Tree};
use crate::quoting::{PlainKeys, write_key_then, write_root_string};
use crate::{Delimiter, EncodeOptions};

/// Encodes `root` as a TOON document of at most `limit` bytes; `None` when
/// the document would be longer. `capacity` is a guess of the length.
pub(crate) fn emit<'t, T: Tree<'t>>(
    root: T,
    options: &EncodeOptions,
    capacity: usize,
    limit: usize,
) -> Option<String> {
    emit_sharing(root, options, capacity, limit, true)
}

/// [`emit`], with a table trying the last table's header first
/// (`share_headers`) or always building its own: the same text either way,
/// which the tests check.
pub(crate) fn emit_sharing<'t, T: Tree<'t>>(
    root: T,
    options: &EncodeOptions,
    capacity: usize,
    limit: usize,
    share_headers: bool,
) -> Option<String> {
    let mut emitter = Emitter {
        share_headers,
        keys: PlainKeys::new(),
        key_words: KeyWords::new(),
        out: Out::new(capacity, limit),
        indent_size: options.indent_size,
        delimiter: options.delimiter.as_byte(),
        header_delimiter: match options.delimiter {
            Delimiter::Comma => "",
            Delimiter::Tab => "\t",
            Delimiter::Pipe => "|",
        },
        table: Table::new(),
        // Deep enough for most documents without growing.
        frames: Vec::with_capacity(8),
    };
    emitter.root(root);
    emitter.run();
    emitter.out.finish()
}

/// A newline and the widest indentation written in one piece.
const NEWLINE_SPACES: &str = "\n                                                                ";

/// A newline and spaces, and spaces alone (the document's first line), as
/// words for [`Out::push_word`].
const NEWLINE_WORD: u128 = u128::from_le_bytes(*b"\n               ");
const SPACES_WORD: u128 = u128::from_le_bytes(*b"                ");

/// Ends the current line (unless nothing is written yet) and indents:
/// one store of a word of a newline and spaces for indentation narrower
/// than a word (what follows the line's bytes in the word lands past the
/// text, to be overwritten); wider indentation from a static line, a
/// line's worth at a time. Always inlined: it runs once per line, and as
/// a call it cost about as much as its body.
#[inline(always)]
fn line(out: &mut Out, indent_size: usize, depth: usize) {
    let start = usize::from(out.is_empty());
    let width = depth.saturating_mul(indent_size);
    if width < SHORT {
        let word = if start == 0 {
            NEWLINE_WORD
        } else {
            SPACES_WORD
        };
        out.push_word(word, width + 1 - start);
        return;
    }
    match NEWLINE_SPACES.get(start..=width) {
        Some(line) => out.push_str(line),
        None => wide_line(out, start, width),
    }
}

/// [`line`] after text (never the document's first line), indented by
/// `width` spaces.
#[inline(always)]
fn next_line(out: &mut Out, width: usize) {
    if width < SHORT {
        out.push_word(NEWLINE_WORD, width + 1);
        return;
    }
    match NEWLINE_SPACES.get(..=width) {
        Some(line) => out.push_str(line),
        None => wide_line(out, 0, width),
    }
}

/// [`line`] for indentation wider than the static line.
#[cold]
fn wide_line(out: &mut Out, start: usize, width: usize) {
    let spaces = NEWLINE_SPACES.len() - 1;
    out.push_str(&NEWLINE_SPACES[start..]);
    let mut left = width - spaces;
    while left > 0 && !out.is_over() {
        let step = left.min(spaces);
        out.push_str(&NEWLINE_SPACES[1..=step]);
        left -= step;
    }
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

/// An object or list whose lines are still being written.
enum Frame<'t, T: Tree<'t>> {
    /// The fields not written yet, each to go on its own line at the
    /// depth, and their object's [`Tree::places`].
    Fields(T::RawEntries, usize, u32),
    /// The list items not written yet, at the depth.
    Items(T::Items, usize),
}

/// Short plain keys with their colon, as words, by their place (an id of
/// their object's keys and their position among them, from
/// [`Tree::last_place`]): the records of a list repeat their keys
/// in order, and a key found by its place is not looked up in
/// [`PlainKeys`] (whose places are those of the keys' bytes, where two
/// keys of a record may take turns in one place).
struct KeyWords([KeyWord; 64]);

/// A key kept in [`KeyWords`].
#[derive(Clone, Copy)]
struct KeyWord {
    /// Its place; 0 for none (no place is 0).
    place: u32,
    /// The length of `word`, the key's and 2.
    len: u32,
    /// The key and `": "` after it, in the low bytes.
    word: u64,
}

impl KeyWords {
    fn new() -> Self {
        KeyWords(
            [KeyWord {
                place: 0,
                len: 0,
                word: 0,
            }; 64],
        )
    }

    /// The slot of `place`: the top six bits of a multiplicative hash.
    #[inline(always)]
    fn slot(place: u32) -> usize {
        (place.wrapping_mul(0x9E37_79B9) >> 26) as usize
    }

    /// The word and length kept for `place` (not 0), if any.
    #[inline(always)]
    fn find(&self, place: u32) -> Option<(u64, usize)> {
        match self.0.get(Self::slot(place)) {
            Some(kept) if kept.place == place => Some((kept.word, kept.len as usize)),
            _ => None,
        }
    }

    /// Keeps the `n` bytes (at most 16) of `word` for `place` (not 0).
    #[inline(always)]
    fn keep(&mut self, place: u32, word: u64, n: usize) {
        if let Some(kept) = self.0.get_mut(Self::slot(place)) {
            *kept = KeyWord {
                place,
                len: n as u32,
                word,
            };
        }
    }
}

/// A plain key of `n` bytes in the low bytes of `word` (from
/// [`PlainKeys::plain_word`]) with `": "` after it, and their length, when
/// the key has at most six bytes (the two fit a word).
#[inline(always)]
fn with_colon(word: u64, n: usize) -> Option<(u64, usize)> {
    if n > 6 {
        return None;
    }
    let colon = u64::from_le_bytes(*b": \0\0\0\0\0\0");
    Some((word | colon << (8 * n), n + 2))
}

struct Emitter<'t, T: Tree<'t>> {
    out: Out,
    /// Whether a table tries the last table's header before building its
    /// own.
    share_headers: bool,
    /// Keys found to need no quotes.
    keys: PlainKeys,
    /// Short plain keys by their place.
    key_words: KeyWords,
    indent_size: usize,
    delimiter: u8,
    /// The delimiter symbol inside brackets: empty for comma.
    header_delimiter: &'static str,
    /// The header of the table being written.
    table: Table<'t, T>,
    /// Open objects and lists, innermost last.
    frames: Vec<Frame<'t, T>>,
}

/// How the rows of a table matched its header.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// Every row written matched (all of them, unless the output refused
    /// a write first).
    Match,
    /// The first row did not.
    FirstDiffers,
    /// A later row did not.
    Differs,
}

/// The next line a frame asks for.
enum Step<'t, T> {
    Field(&'t [u8], T, usize),
    Item(T, usize),
}

impl<'t, T: Tree<'t>> Emitter<'t, T> {
    fn root(&mut self, value: T) {
        match value.kind() {
            Kind::Array(len) => self.array(None, value, len, 0, Position::Root),
            Kind::Object(0) => {}
            Kind::Object(len) => {
                if self.keyed_fields(value, len) {
                    self.keyed_table(None, value, len, 0);
                } else {
                    self.frames
                        .push(Frame::Fields(value.raw_entries(), 0, value.places()));
                }
            }
            Kind::String(s) => write_root_string(&mut self.out, s, self.delimiter),
            kind => self.primitive(value, kind),
        }
    }

    /// Writes the open frames' lines, innermost first, until none is left or
    /// the output refuses a write.
    fn run(&mut self) {
        // The delimiter (and the indentation) as values of the walk's
        // own, not read back from the emitter after every write: what the
        // checks for quotes compare each byte with is then worked out
        // once.
        let (delimiter, indent_size) = (self.delimiter, self.indent_size);
        while !self.out.is_over() {
            let step = match self.frames.last_mut() {
                None => return,
                Some(Frame::Fields(entries, depth, places)) => {
                    // A run of fields of scalar values, the most common line,
                    // read from the tree's own view of them when it has one:
                    // each value's slot read once, with no step through the
                    // frames between them, on lines of one indentation
                    // worked out once. A field of another value is the
                    // step to take, its slots read once too.
                    let width = depth.saturating_mul(indent_size);
                    loop {
                        let Some((key, value)) = T::next_split(entries) else {
                            break None;
                        };
                        let value = match value {
                            Ok(scalar) => scalar,
                            Err(value) => {
                                break Some(Step::Field(T::key_bytes(key), value, *depth));
                            }
                        };
                        if self.out.is_over() {
                            return;
                        }
                        if self.out.is_empty() {
                            // The document's first line: no newline before
                            // it.
                            line(&mut self.out, indent_size, *depth);
                            let key = T::key_bytes(key);
                            write_key_then(&mut self.out, &mut self.keys, key, ": ");
                        } else {
                            // The line and a short plain key with its
                            // colon: two words with one check of the room.
                            let key_word = match *places {
                                0 => {
                                    let key = T::key_bytes(key);
                                    self.keys
                                        .plain_word(key)
                                        .and_then(|word| with_colon(word, key.len()))
                                }
                                places => {
                                    let place = T::last_place(entries, places);
                                    self.key_words.find(place).or_else(|| {
                                        let key = T::key_bytes(key);
                                        let found = self
                                            .keys
                                            .plain_word(key)
                                            .and_then(|word| with_colon(word, key.len()));
                                        if let Some((word, n)) = found {
                                            self.key_words.keep(place, word, n);
                                        }
                                        found
                                    })
                                }
                            };
                            match key_word {
                                Some((word, n)) if width < SHORT => {
                                    self.out.push_word_pair(NEWLINE_WORD, width + 1, word, n);
                                }
                                _ => {
                                    next_line(&mut self.out, width);
                                    let key = T::key_bytes(key);
                                    write_key_then(&mut self.out, &mut self.keys, key, ": ");
                                }
                            }
                        }
                        write_scalar(&mut self.out, value, delimiter);
                    }
                }
                Some(Frame::Items(items, depth)) => {
                    items.next().map(|item| Step::Item(item, *depth))
                }
            };
            match step {
                Some(Step::Field(key, value, depth)) => {
                    // Every line but the document's first follows text,
                    // and is the newline and its spaces alone.
                    if self.out.is_empty() {
                        self.line(depth);
                    } else {
                        next_line(&mut self.out, depth.saturating_mul(indent_size));
                    }
                    self.field(key, value, depth);
                }
                Some(Step::Item(item, depth)) => self.list_item(item, depth),
                None => {
                    self.frames.pop();
                }
            }
        }
    }

    /// Ends the current line (unless nothing is written yet) and indents.
    #[inline(always)]
    fn line(&mut self, depth: usize) {
        line(&mut self.out, self.indent_size, depth);
    }

    fn primitive(&mut self, value: T, kind: Kind<'t>) {
        write_primitive(&mut self.out, value, kind, self.delimiter);
    }

    /// One field whose line is already started (indentation or `- `).
    /// `depth` is the field's own depth; nested content goes one deeper.
    /// What the value is is read without its text first: a primitive's
    /// text is then read once, as it is written.
    fn field(&mut self, key: &'t [u8], value: T, depth: usize) {
        match value.container() {
            Some(Kind::Array(len)) => self.array(Some(key), value, len, depth, Position::Field),
            Some(Kind::Object(len)) => {
                if self.keyed_fields(value, len) {
                    self.keyed_table(Some(key), value, len, depth);
                } else {
                    write_key_then(&mut self.out, &mut self.keys, key, ":");
                    self.frames.push(Frame::Fields(
                        value.raw_entries(),
                        depth + 1,
                        value.places(),
                    ));
                }
            }
            _ => {
                write_key_then(&mut self.out, &mut self.keys, key, ": ");
                write_value(&mut self.out, value, self.delimiter);
            }
        }
    }

    /// `[N<delim>` plus `]` (the caller adds fields and the colon).
    /// Inlined: most calls are one per table, whose length is known there.
    #[inline(always)]
    fn bracket(&mut self, len: usize, keyed: bool) {
        // Most arrays of records' fields are short: the whole bracket, of
        // one digit, in one write of a word (of at most five bytes).
        if let Ok(digit @ 0..=9) = u8::try_from(len) {
            let mut word = u64::from(b'[') | u64::from(b'0' + digit) << 8;
            let mut n = 2;
            if keyed {
                word |= u64::from(b':') << (8 * n);
                n += 1;
            }
            if let Some(&symbol) = self.header_delimiter.as_bytes().first() {
                word |= u64::from(symbol) << (8 * n);
                n += 1;
            }
            word |= u64::from(b']') << (8 * n);
            self.out.push_small(word, n + 1);
            return;
        }
        self.out.push('[');
        self.out.push_str(itoa::Buffer::new().format(len));
        if keyed {
            self.out.push(':');
        }
        self.out.push_str(self.header_delimiter);
        self.out.push(']');
    }

    /// An array whose line is already started; writes the optional key, the
    /// header and the content below it (a list's items through a frame).
    fn array(
        &mut self,
        key: Option<&[u8]>,
        array: T,
        len: usize,
        depth: usize,
        position: Position,
    ) {
        if let Some(key) = key {
            write_key_then(&mut self.out, &mut self.keys, key, "");
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
        if !array.items().any(Tree::is_container) {
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
                write_value(&mut self.out, item, self.delimiter);
            }
            return;
        }
        if position != Position::ListItem && self.table(array, len, depth) {
            return;
        }
        self.bracket(len, false);
        self.out.push(':');
        self.frames.push(Frame::Items(array.items(), depth + 1));
    }

    /// Writes `array` (of `len` items, not all primitives) as a table, when
    /// its items are uniform objects, and says whether it did.
    ///
    /// Rows are checked as they are written, in one walk each: the text is
    /// written from the first row's fields on the guess that the others
    /// match, and taken back to where the table started at the first row
    /// that does not. Output that passes the limit on the way says nothing
    /// of the rows after it, so the rows are then checked without writing,
    /// and written again only when they all match.
    ///
    /// Lists of records often hold many tables of one shape (each order's
    /// items): when the last header taken is of leaves only, the first row
    /// is tried against it in its order before the header is built again
    /// from that row, which then costs nothing when it would be the same.
    fn table(&mut self, array: T, len: usize, depth: usize) -> bool {
        let Some(first) = array.items().next() else {
            return false;
        };
        let mark = self.out.mark();
        let mut rows = Rows::FirstDiffers;
        if self.share_headers && self.table.has_flat_header() {
            rows = self.table_rows(array, len, depth, true);
            if rows == Rows::FirstDiffers {
                self.out.rewind(mark);
            }
        }
        if rows == Rows::FirstDiffers {
            if !self.table.start(first) {
                return false;
            }
            rows = self.table_rows(array, len, depth, false);
        }
        let matched = rows == Rows::Match;
        if matched && !self.out.is_over() {
            return true;
        }
        self.out.rewind(mark);
        if !matched || !self.table.detect(array.items()) {
            return false;
        }
        self.table_rows(array, len, depth, false);
        true
    }

    /// The header taken by `self.table` and the rows of `array` below it,
    /// until the output refuses a write; at the first row that does not
    /// match the header, what was written is left to the caller. With
    /// `first_in_order`, the first row matches only with its keys in the
    /// header's order.
    fn table_rows(&mut self, array: T, len: usize, depth: usize, first_in_order: bool) -> Rows {
        self.bracket(len, false);
        self.table.write_header(&mut self.out, self.delimiter);
        // The header is written, so every row's line follows text.
        let width = (depth + 1).saturating_mul(self.indent_size);
        match self.table.write_rows(
            &mut self.out,
            array.items(),
            self.delimiter,
            first_in_order,
            |out| next_line(out, width),
        ) {
            None => Rows::Match,
            Some(true) => Rows::FirstDiffers,
            Some(false) => Rows::Differs,
        }
    }

    /// One element of an expanded list at `depth`.
    fn list_item(&mut self, item: T, depth: usize) {
        // An item's line follows its list's header, never the document's
        // start.
        next_line(&mut self.out, depth.saturating_mul(self.indent_size));
        match item.kind() {
            Kind::Object(0) => self.out.push('-'),
            Kind::Object(_) => {
                self.out.push_str("- ");
                // The first field sits on the hyphen line at depth + 1, the
                // others on lines of their own below it, after whatever the
                // first field opens.
                let mut entries = item.raw_entries();
                if let Some((key, value)) = entries.next() {
                    self.frames
                        .push(Frame::Fields(entries, depth + 1, item.places()));
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
    /// if so its header is in `self.table`.
    /// Most objects have a primitive first value, which rules the form out
    /// before the header walk starts.
    fn keyed_fields(&mut self, object: T, len: usize) -> bool {
        len >= 2
            && object
                .first_value()
                .and_then(Tree::object_len)
                .is_some_and(|n| n > 0)
            && self.table.detect(object.entries().map(|(_, value)| value))
    }

    /// A keyed tabular object (fields already detected) and its entry rows.
    fn keyed_table(&mut self, key: Option<&[u8]>, object: T, len: usize, depth: usize) {
        if let Some(key) = key {
            write_key_then(&mut self.out, &mut self.keys, key, "");
        }
        self.bracket(len, true);
        self.table.write_header(&mut self.out, self.delimiter);
        for (entry_key, value) in object.raw_entries() {
            if self.out.is_over() {
                return;
            }
            // Below the header: never the document's first line.
            next_line(&mut self.out, (depth + 1).saturating_mul(self.indent_size));
            write_key_then(&mut self.out, &mut self.keys, entry_key, ": ");
            // Detection matched every row already.
            self.table
                .write_row(&mut self.out, value, self.delimiter, false);
        }
    }
}
