//! The structural parser: root form (§5), objects (§8), arrays in their
//! inline, list, tabular and keyed-tabular forms (§9, §10).

use super::MAX_DEPTH;
use super::build::Build;
use super::fail::{Fail, PResult};
use super::header::{self, Header, Kind};
use super::lines::{Line, Lines};
use super::table::TableCache;
use crate::DecodeOptions;

mod arrays;

pub(super) struct Parser<'a, B: Build> {
    /// What the document is made into.
    pub b: B,
    text: &'a str,
    bytes: &'a [u8],
    lines: Lines<'a>,
    strict: bool,
    indent_size: usize,
    /// Open scopes, bounded by [`MAX_DEPTH`].
    nesting: usize,
    /// Arrays whose first item, row or entry has been read and whose scope
    /// is still open: strict mode rejects blank lines while this is non-zero.
    spans: usize,
    /// Tables already built from a field list, for headers that repeat.
    tables: TableCache<'a>,
    /// Key count of the last nested object, by depth.
    size_hints: [usize; SIZE_HINTS],
}

const SIZE_HINTS: usize = 16;
const MAX_SIZE_HINT: usize = 64;

/// `start` moved forward over spaces, not past `end`.
fn skip_spaces(b: &[u8], mut start: usize, end: usize) -> usize {
    while start < end && b[start] == b' ' {
        start += 1;
    }
    start
}

impl<'a, B: Build> Parser<'a, B> {
    pub fn new(text: &'a str, start: usize, options: &DecodeOptions, b: B) -> Self {
        Parser {
            b,
            text,
            bytes: text.as_bytes(),
            lines: Lines::new(text.as_bytes(), start, options.indent_size, options.strict),
            strict: options.strict,
            indent_size: options.indent_size,
            nesting: 0,
            spans: 0,
            tables: TableCache::default(),
            size_hints: [0; SIZE_HINTS],
        }
    }

    /// Decodes the whole document (§5 root form).
    pub fn root(&mut self) -> PResult<B::Value> {
        let Some(first) = self.lines.peek()? else {
            return Ok(self.b.empty_object());
        };
        if first.depth > 0 && self.strict {
            return Err(Fail::new(
                first.content,
                "unexpected indentation: the first line must start at column 1",
            ));
        }
        if &self.bytes[first.content..first.end] == b"[]" {
            self.take(&first)?;
            self.expect_end()?;
            return Ok(self.b.empty_array());
        }
        match header::classify(
            self.text,
            first.content,
            first.end,
            self.strict,
            &mut self.tables,
        )? {
            Kind::Header(header) if header.key.is_none() => {
                self.take(&first)?;
                let mut stack = Vec::new();
                let value = match self.array_body(&mut stack, header, first.depth, Dest::Root)? {
                    Some(value) => value,
                    None => self.run(&mut stack)?,
                };
                self.expect_end()?;
                Ok(value)
            }
            Kind::Scalar { header } => {
                self.take(&first)?;
                if self.lines.peek()?.is_none() {
                    return self.b.primitive(self.text, first.content, first.end);
                }
                Err(header.unwrap_or_else(|| missing_colon(&first)))
            }
            kind => {
                self.take(&first)?;
                let mut stack = vec![Frame::Object {
                    object: self.b.object(0),
                    depth: first.depth,
                    dest: Dest::Root,
                    slot: None,
                }];
                self.field(&mut stack, kind, first.content, first.end, first.depth)?;
                self.run(&mut stack)
            }
        }
    }

    /// Reads the document on from the open arrays and objects of `stack`
    /// until its bottom one, the root, is finished. Each open object reads
    /// its fields and each open list its items, line by line; a field or
    /// an item that opens a block pushes it, and a finished block goes to
    /// the one below it. The nesting is bounded by [`MAX_DEPTH`] and lives
    /// on the heap, not the call stack.
    fn run(&mut self, stack: &mut Vec<Frame<B>>) -> PResult<B::Value> {
        loop {
            let (value, dest) = match stack.last_mut() {
                Some(Frame::Object { depth, dest, .. }) => {
                    let depth = *depth;
                    match self.lines.peek()? {
                        Some(line) if line.depth >= depth => {
                            if line.depth > depth {
                                self.orphan(&line, None)?;
                                continue;
                            }
                            self.take(&line)?;
                            let kind = header::classify(
                                self.text,
                                line.content,
                                line.end,
                                self.strict,
                                &mut self.tables,
                            )?;
                            self.field(stack, kind, line.content, line.end, depth)?;
                            continue;
                        }
                        // Lenient mode only: a root indented deeper than
                        // later lines reads on at theirs.
                        Some(line) if matches!(dest, Dest::Root) => {
                            if let Some(Frame::Object { depth, .. }) = stack.last_mut() {
                                *depth = line.depth;
                            }
                            continue;
                        }
                        _ => self.close_object(stack)?,
                    }
                }
                Some(Frame::List(list)) => {
                    let depth = list.depth;
                    match self.lines.peek()? {
                        Some(line) if line.depth >= depth => {
                            self.list_line(stack, &line, depth)?;
                            continue;
                        }
                        _ => self.close_list(stack)?,
                    }
                }
                // The root is delivered before the stack empties.
                None => return Err(Fail::new(0, "the document ended in an unknown state")),
            };
            if let Some(root) = self.deliver(stack, value, dest)? {
                return Ok(root);
            }
        }
    }

    /// Pops the finished object on top of `stack`: its value and where it
    /// goes.
    fn close_object(&mut self, stack: &mut Vec<Frame<B>>) -> PResult<(B::Value, Dest)> {
        let Some(Frame::Object {
            object, dest, slot, ..
        }) = stack.pop()
        else {
            return Err(Fail::new(0, "the document ended in an unknown state"));
        };
        if !matches!(dest, Dest::Root) {
            self.leave();
        }
        if let Some(slot) = slot {
            self.size_hints[slot] = B::object_len(&object).min(MAX_SIZE_HINT);
        }
        Ok((self.b.end_object(object), dest))
    }

    /// Hands a finished `value` to `dest`: the object or list now on top of
    /// `stack`, or the caller when it is the root.
    #[inline]
    fn deliver(
        &mut self,
        stack: &mut [Frame<B>],
        value: B::Value,
        dest: Dest,
    ) -> PResult<Option<B::Value>> {
        // The frame below a block is the one it was opened in.
        match (dest, stack.last_mut()) {
            (Dest::Root, _) => return Ok(Some(value)),
            (Dest::Field { key, pos }, Some(Frame::Object { object, .. })) => {
                self.b.insert(object, key, pos, value)?;
            }
            (Dest::Item, Some(Frame::List(list))) => self.b.push(&mut list.items, value),
            _ => {}
        }
        Ok(None)
    }

    /// Nothing may follow a root array or keyed root table (§5).
    fn expect_end(&mut self) -> PResult<()> {
        match self.lines.peek()? {
            // Trailing content is an error in both modes (spec §14.4).
            Some(line) => Err(Fail::new(
                line.content,
                "unexpected content after the end of the root array",
            )),
            _ => Ok(()),
        }
    }

    /// Consumes the peeked `line`, refusing a blank line before it inside an
    /// array span in strict mode (§12).
    #[inline]
    fn take(&mut self, line: &Line) -> PResult<()> {
        self.lines.advance();
        match line.blank_before {
            Some(blank) if self.strict && self.spans > 0 => {
                Err(Fail::new(blank, "blank line inside an array"))
            }
            _ => Ok(()),
        }
    }

    fn enter(&mut self, pos: usize) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(Fail::new(
                pos,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting -= 1;
    }

    /// A line deeper than any open scope: an error in strict mode (§14.2),
    /// skipped in lenient mode. `array_depth` is the item depth when the
    /// enclosing scope is an array.
    fn orphan(&mut self, line: &Line, array_depth: Option<usize>) -> PResult<()> {
        // An error in both modes: skipping such lines is not one of the
        // recoveries non-strict mode keeps (spec §14.4, unreleased after 4.3).
        let msg = match array_depth {
            Some(depth) => format!(
                "unexpected indentation: the items of this array are indented {} spaces",
                depth * self.indent_size
            ),
            None => "unexpected indentation: the line above does not open a block".to_owned(),
        };
        Err(Fail::new(line.content, msg))
    }

    /// One field (`start..end` holds its key) of the object on top of
    /// `stack`, whose fields are at `depth`; nested content is at
    /// `depth + 1`. A field that opens a block pushes it.
    fn field(
        &mut self,
        stack: &mut Vec<Frame<B>>,
        kind: Kind,
        start: usize,
        end: usize,
        depth: usize,
    ) -> PResult<()> {
        match kind {
            Kind::KeyValue { key, value } => {
                let value_start = skip_spaces(self.bytes, value, end);
                // A field is read into the object on top of the stack.
                let Some(Frame::Object { object, .. }) = stack.last_mut() else {
                    return Ok(());
                };
                self.b.key(object, &key);
                let value = if value_start == end {
                    return self.nested_object(stack, key, depth, start);
                } else if &self.bytes[value_start..end] == b"[]" {
                    self.b.empty_array()
                } else {
                    self.b.primitive(self.text, value_start, end)?
                };
                self.b.insert(object, key, start, value)
            }
            Kind::Header(header) if header.key.is_none() => {
                if self.strict {
                    return Err(Fail::new(
                        start,
                        "an array header needs a key here; `[N]:` alone is allowed only \
                         as the first line of the document or after `- `",
                    ));
                }
                match header::literal_key_value(self.text, start, end) {
                    Some(kind) => self.field(stack, kind, start, end, depth),
                    None => Err(Fail::new(end, "missing `:` after the key")),
                }
            }
            Kind::Header(mut header) => {
                let key = header.key.take().unwrap_or_default();
                if let Some(Frame::Object { object, .. }) = stack.last_mut() {
                    self.b.key(object, &key);
                }
                self.array_body(stack, header, depth, Dest::Field { key, pos: start })?;
                Ok(())
            }
            Kind::Scalar { header } => {
                Err(header.unwrap_or_else(|| Fail::new(end, "missing `:` after the key")))
            }
        }
    }

    /// The object opened by `key:` at `parent` depth: the deeper lines that
    /// follow, pushed on `stack` to be read, or `{}` when there are none.
    fn nested_object(
        &mut self,
        stack: &mut Vec<Frame<B>>,
        key: String,
        parent: usize,
        pos: usize,
    ) -> PResult<()> {
        let dest = Dest::Field { key, pos };
        let Some(next) = self.lines.peek()? else {
            let value = self.b.empty_object();
            self.deliver(stack, value, dest)?;
            return Ok(());
        };
        if next.depth <= parent {
            let value = self.b.empty_object();
            self.deliver(stack, value, dest)?;
            return Ok(());
        }
        // Sibling records repeat their nested objects' shapes: size this one
        // like the last object opened at the same depth.
        let slot = parent % SIZE_HINTS;
        let capacity = self.size_hints[slot];
        let mut depth = parent + 1;
        if next.depth > depth {
            if self.strict {
                return Err(Fail::new(
                    next.content,
                    "unexpected indentation: more than one level deeper than the line above",
                ));
            }
            depth = next.depth;
        }
        self.enter(pos)?;
        stack.push(Frame::Object {
            object: self.b.object(capacity),
            depth,
            dest,
            slot: Some(slot),
        });
        Ok(())
    }

    /// The value a header at `depth` introduces, handed to `dest`; a list
    /// is pushed on `stack` to be read. `Some` only for the root's value.
    fn array_body(
        &mut self,
        stack: &mut Vec<Frame<B>>,
        mut header: Header,
        depth: usize,
        dest: Dest,
    ) -> PResult<Option<B::Value>> {
        let value = if let Some(table) = header.fields.take() {
            if header.keyed {
                self.keyed(&header, &table, depth + 1)?
            } else {
                self.table(&header, &table, depth + 1)?
            }
        } else if header.rest < header.end {
            self.inline(&header)?
        } else {
            self.open_list(stack, header, depth + 1, dest)?;
            return Ok(None);
        };
        self.deliver(stack, value, dest)
    }
}

/// Where a finished array or object goes.
enum Dest {
    /// It is the document.
    Root,
    /// The field `key` (at `pos`) of the object below it.
    Field { key: String, pos: usize },
    /// The next item of the list below it.
    Item,
}

/// An array or object being read: the decoder's nesting, on the heap.
enum Frame<B: Build> {
    /// An object whose fields are at `depth`; `slot` is its size hint's,
    /// for an object opened by `key:`.
    Object {
        object: B::Object,
        depth: usize,
        dest: Dest,
        slot: Option<usize>,
    },
    /// A `- ` list.
    List(arrays::List<B>),
}

fn missing_colon(line: &Line) -> Fail {
    Fail::new(
        line.end,
        "missing `:` after the key (a bare value is allowed only as the whole document)",
    )
}
