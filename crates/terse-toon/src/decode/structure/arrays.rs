//! Arrays in their inline (§9.1), list (§9.2, §9.4, §10), tabular (§9.3) and
//! keyed-tabular (§9.5) forms.

use super::{Dest, Frame, Parser, skip_spaces};
use crate::decode::build::Build;
use crate::decode::header::{self, Header, Kind, skip_quoted, trim_end};
use crate::decode::lines::Line;
use crate::decode::table::Table;
use crate::decode::{Fail, PResult, scalar};

const MAX_RESERVE: usize = 1024;

/// A `- ` list being read (see [`Parser::run`](super::Parser)).
pub(super) struct List<B: Build> {
    pub(super) items: B::Items,
    header: Header,
    /// The depth of its items' hyphens.
    pub(super) depth: usize,
    /// Where the first item past the declared length starts.
    extra: Option<usize>,
    /// Whether an item was read: the list's span is open (§12).
    started: bool,
    dest: Dest,
}

/// Bytes that end a run of plain cell text, one table per delimiter.
fn special_bytes(delim: u8) -> &'static [bool; 256] {
    const fn table(delim: u8) -> [bool; 256] {
        let mut table = [false; 256];
        table[delim as usize] = true;
        table[b'"' as usize] = true;
        table[b':' as usize] = true;
        table
    }
    static COMMA: [bool; 256] = table(b',');
    static TAB: [bool; 256] = table(b'\t');
    static PIPE: [bool; 256] = table(b'|');
    match delim {
        b'\t' => &TAB,
        b'|' => &PIPE,
        _ => &COMMA,
    }
}

/// What a line of a table is, as far as its form tells.
enum Step<T> {
    /// A row; `T` is what was found reading its form.
    Row(T),
    /// Not a row, passed over (non-strict mode).
    Skip,
    /// Not a row: the table ends before it.
    End,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Splits `start..end` of `bytes` on `delim` outside quotes, handing each
/// cell to `sink`: its offset, and its trimmed token's. With
/// `stop_at_colon`, an unquoted `:` in the first cell stops the split
/// (before that cell is handed on) and returns `false` (the line is
/// `key: value`, not a row, §9.3).
#[inline]
fn split(
    bytes: &[u8],
    start: usize,
    end: usize,
    delim: u8,
    stop_at_colon: bool,
    mut sink: impl FnMut(usize, usize, usize) -> PResult<()>,
) -> PResult<bool> {
    let special = special_bytes(delim);
    let line = &bytes[..end];
    let mut cell = |start: usize, end: usize| {
        let cell_start = skip_spaces(bytes, start, end);
        let cell_end = trim_end(bytes, cell_start, end);
        sink(start, cell_start, cell_end)
    };
    let mut i = start;
    let mut from = start;
    let mut first = stop_at_colon;
    loop {
        let Some(offset) = line[i..].iter().position(|&c| special[usize::from(c)]) else {
            cell(from, end)?;
            return Ok(true);
        };
        i += offset;
        match line[i] {
            b'"' => i = skip_quoted(line, i + 1),
            b':' => {
                if first {
                    return Ok(false);
                }
                i += 1;
            }
            _ => {
                cell(from, i)?;
                first = false;
                i += 1;
                from = i;
            }
        }
    }
}

impl<B: Build> Parser<'_, B> {
    /// How many items to reserve for a declared length: never more than the
    /// rest of the input could hold, and at most [`MAX_RESERVE`], past which
    /// the vector grows as usual (a fresh multi-megabyte reservation per
    /// document costs the allocator more than doubling does).
    fn capacity(&self, declared: usize, from: usize) -> usize {
        declared
            .min((self.bytes.len() - from) / 2 + 1)
            .min(MAX_RESERVE)
    }

    /// `key[N]: a,b,c` (§9.1).
    pub(super) fn inline(&mut self, header: &Header) -> PResult<B::Value> {
        let start = skip_spaces(self.bytes, header.rest, header.end);
        let capacity = self.capacity(header.len, start);
        let mut items = self.b.array(capacity);
        let mut extra = None;
        let (b, text) = (&mut self.b, self.text);
        split(
            self.bytes,
            start,
            header.end,
            header.delim,
            false,
            |at, from, to| {
                if B::len(&items) == header.len && extra.is_none() {
                    extra = Some(at);
                }
                b.item(&mut items);
                let value = b.primitive(text, from, to)?;
                b.push(&mut items, value);
                Ok(())
            },
        )?;
        self.check_count(header, B::len(&items), extra, "value", "values")?;
        Ok(self.b.end_array(items))
    }

    fn check_count(
        &self,
        header: &Header,
        found: usize,
        extra: Option<usize>,
        one: &str,
        many: &str,
    ) -> PResult<()> {
        if self.strict && found != header.len {
            return Err(Fail::new(
                extra.unwrap_or(header.len_pos),
                format!(
                    "expected {}, found {}",
                    plural(header.len, one, many),
                    found
                ),
            ));
        }
        Ok(())
    }

    /// Opens the list `key[N]:` whose `- ` items are at `depth` (§9.2,
    /// §9.4, §10), read on by [`Parser::run`] and handed to `dest`.
    pub(super) fn open_list(
        &mut self,
        stack: &mut Vec<Frame<B>>,
        header: Header,
        depth: usize,
        dest: Dest,
    ) -> PResult<()> {
        self.enter(header.len_pos)?;
        let capacity = self.capacity(header.len, header.end);
        let items = self.b.array(capacity);
        stack.push(Frame::List(List {
            items,
            header,
            depth,
            extra: None,
            started: false,
            dest,
        }));
        Ok(())
    }

    /// A line at or past `depth`, the depth of the items of the list on
    /// top of `stack`: its next item.
    pub(super) fn list_line(
        &mut self,
        stack: &mut Vec<Frame<B>>,
        line: &Line,
        depth: usize,
    ) -> PResult<()> {
        if line.depth > depth {
            return self.orphan(line, Some(depth));
        }
        let content = &self.bytes[line.content..line.end];
        if content[0] != b'-' || content.get(1).is_some_and(|&c| c != b' ') {
            return Err(Fail::new(
                line.content,
                "expected a list item starting with `- `",
            ));
        }
        self.take(line)?;
        let Some(Frame::List(list)) = stack.last_mut() else {
            return Ok(());
        };
        if !list.started {
            list.started = true;
            self.spans += 1;
        }
        if B::len(&list.items) == list.header.len && list.extra.is_none() {
            list.extra = Some(line.content);
        }
        self.b.item(&mut list.items);
        let hint = B::hint(&list.items);
        self.list_item(stack, line, depth, hint)
    }

    /// Pops the finished list on top of `stack`: its value and where it
    /// goes.
    pub(super) fn close_list(&mut self, stack: &mut Vec<Frame<B>>) -> PResult<(B::Value, Dest)> {
        let Some(Frame::List(list)) = stack.pop() else {
            return Err(Fail::new(0, "the document ended in an unknown state"));
        };
        if list.started {
            self.spans -= 1;
        }
        self.leave();
        self.check_count(
            &list.header,
            B::len(&list.items),
            list.extra,
            "list item",
            "list items",
        )?;
        Ok((self.b.end_array(list.items), list.dest))
    }

    /// One `- ...` item whose hyphen is at `depth`, of the list on top of
    /// `stack`: its value, or the block it opens pushed.
    fn list_item(
        &mut self,
        stack: &mut Vec<Frame<B>>,
        line: &Line,
        depth: usize,
        hint: usize,
    ) -> PResult<()> {
        let start = skip_spaces(self.bytes, line.content + 1, line.end);
        let end = line.end;
        if start == end {
            let value = self.b.empty_object();
            self.deliver(stack, value, Dest::Item)?;
            return Ok(());
        }
        if &self.bytes[start..end] == b"[]" {
            let value = self.b.empty_array();
            self.deliver(stack, value, Dest::Item)?;
            return Ok(());
        }
        let kind = match header::classify(self.text, start, end, self.strict, &mut self.tables)? {
            Kind::Header(header) if header.key.is_none() => {
                if !header.keyed && header.fields.is_none() {
                    self.array_body(stack, header, depth, Dest::Item)?;
                    return Ok(());
                }
                if self.strict {
                    return Err(Fail::new(
                        start,
                        "a table header without a key is allowed only as the first line of the document",
                    ));
                }
                match header::literal_key_value(self.text, start, end) {
                    Some(kind) => kind,
                    None => return Err(Fail::new(end, "missing `:` after the key")),
                }
            }
            Kind::Scalar { .. } => {
                let value = self.b.primitive(self.text, start, end)?;
                self.deliver(stack, value, Dest::Item)?;
                return Ok(());
            }
            kind => kind,
        };
        // An object whose first field sits on the hyphen line, one level in.
        self.enter(start)?;
        let object = self.b.object(hint);
        stack.push(Frame::Object {
            object,
            depth: depth + 1,
            dest: Dest::Item,
            slot: None,
        });
        self.field(stack, kind, start, end, depth + 1)
    }

    /// `key[N]{fields}:` followed by rows at `depth` (§9.3).
    pub(super) fn table(
        &mut self,
        header: &Header,
        table: &Table,
        depth: usize,
    ) -> PResult<B::Value> {
        let capacity = self.capacity(header.len, header.end);
        let mut rows = self.b.array(capacity);
        self.rows(
            header,
            depth,
            ("row", "rows"),
            &mut rows,
            |parser, line, cells, rows| {
                let (b, text) = (&mut parser.b, parser.text);
                let is_row = split(
                    parser.bytes,
                    line.content,
                    line.end,
                    header.delim,
                    true,
                    |_, from, to| {
                        if B::cell_count(cells) == 0 {
                            b.item(rows);
                        }
                        b.cell(cells, table, text, from, to)
                    },
                )?;
                if is_row {
                    return Ok(Step::Row(()));
                }
                if parser.strict {
                    return Err(Fail::new(
                        line.content,
                        "expected a table row, found a `key: value` line",
                    ));
                }
                Ok(Step::End)
            },
            |parser, line, (), cells, rows| {
                parser.check_width(table, B::cell_count(cells), line.content)?;
                let row = parser.b.row(cells, table);
                parser.b.push(rows, row);
                Ok(())
            },
        )?;
        Ok(self.b.end_array(rows))
    }

    /// `key[N:]{fields}:` followed by `entrykey: cells` rows at `depth` (§9.5).
    pub(super) fn keyed(
        &mut self,
        header: &Header,
        table: &Table,
        depth: usize,
    ) -> PResult<B::Value> {
        let capacity = self.capacity(header.len, header.end);
        let mut map = self.b.object(capacity);
        self.rows(
            header,
            depth,
            ("entry", "entries"),
            &mut map,
            |parser, line, _, _| match header::first_unquoted_colon(
                parser.bytes,
                line.content,
                line.end,
            ) {
                Some(colon) => Ok(Step::Row(colon)),
                None if parser.strict => Err(Fail::new(
                    line.content,
                    "expected an entry row `key: values`",
                )),
                None => Ok(Step::Skip),
            },
            |parser, line, colon, cells, map| {
                let key = parser.entry_key(line.content, colon)?;
                parser.b.key(map, &key);
                let cells_start = skip_spaces(parser.bytes, colon + 1, line.end);
                if cells_start < line.end {
                    let (b, text) = (&mut parser.b, parser.text);
                    split(
                        parser.bytes,
                        cells_start,
                        line.end,
                        header.delim,
                        false,
                        |_, from, to| b.cell(cells, table, text, from, to),
                    )?;
                }
                parser.check_width(table, B::cell_count(cells), line.content)?;
                let row = parser.b.row(cells, table);
                parser.b.insert(map, key, line.content, row)
            },
        )?;
        Ok(self.b.end_object(map))
    }

    /// The rows of a table at `depth`, shared by both table forms: `classify`
    /// looks at a line (with `cells` cleared for it) before it is taken,
    /// `read` reads a row once it is taken and counted. Checks the count
    /// against the header's (`noun` names a row in the message).
    #[allow(clippy::type_complexity)]
    fn rows<T, R>(
        &mut self,
        header: &Header,
        depth: usize,
        noun: (&str, &str),
        into: &mut R,
        mut classify: impl FnMut(&mut Self, &Line, &mut B::Cells, &mut R) -> PResult<Step<T>>,
        mut read: impl FnMut(&mut Self, &Line, T, &mut B::Cells, &mut R) -> PResult<()>,
    ) -> PResult<()> {
        self.enter(header.len_pos)?;
        let mut cells = self.b.take_cells();
        let mut count = 0;
        let mut extra = None;
        let mut started = false;
        while let Some(line) = self.lines.peek()? {
            if line.depth < depth {
                break;
            }
            if line.depth > depth {
                self.orphan(&line, Some(depth))?;
                continue;
            }
            B::clear_cells(&mut cells);
            let found = match classify(self, &line, &mut cells, into)? {
                Step::Row(found) => found,
                Step::Skip => {
                    self.take(&line)?;
                    continue;
                }
                Step::End => break,
            };
            self.take(&line)?;
            if !started {
                started = true;
                self.spans += 1;
            }
            if count == header.len && extra.is_none() {
                extra = Some(line.content);
            }
            count += 1;
            read(self, &line, found, &mut cells, into)?;
        }
        self.b.put_cells(cells);
        if started {
            self.spans -= 1;
        }
        self.leave();
        self.check_count(header, count, extra, noun.0, noun.1)
    }

    /// A row must have one cell per leaf field in both modes: non-strict
    /// mode no longer pads or cuts rows (spec, unreleased after 4.3).
    fn check_width(&self, table: &Table, found: usize, pos: usize) -> PResult<()> {
        if found != table.leaves {
            return Err(Fail::new(
                pos,
                format!(
                    "expected {} in this row, found {}",
                    plural(table.leaves, "value", "values"),
                    found
                ),
            ));
        }
        Ok(())
    }

    /// The entry key before the colon at `colon` (§9.5, decoded per §7.4).
    fn entry_key(&self, start: usize, colon: usize) -> PResult<String> {
        let end = trim_end(self.bytes, start, colon);
        if self.bytes[start] != b'"' {
            return Ok(self.text[start..end].to_owned());
        }
        let (key, after) = scalar::quoted(self.text, start, end)?;
        if after != end {
            return Err(Fail::new(
                after,
                "unexpected characters after the closing quote",
            ));
        }
        Ok(key)
    }
}
