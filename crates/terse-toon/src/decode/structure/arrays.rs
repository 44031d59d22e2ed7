//! Arrays in their inline (§9.1), list (§9.2, §9.4, §10), tabular (§9.3) and
//! keyed-tabular (§9.5) forms.

use super::{Dest, Frame, Parser, skip_spaces};
use crate::decode::header::{self, Header, Kind, skip_quoted, trim_end};
use crate::decode::lines::Line;
use crate::decode::table::Table;
use crate::decode::{Fail, PResult, scalar};
use serde_json::{Map, Value};

const MAX_RESERVE: usize = 1024;

/// A `- ` list being read (see [`Parser::run`](super::Parser)).
pub(super) struct List {
    items: Vec<Value>,
    header: Header,
    /// The depth of its items' hyphens.
    pub(super) depth: usize,
    /// Where the first item past the declared length starts.
    extra: Option<usize>,
    /// Whether an item was read: the list's span is open (§12).
    started: bool,
    /// Items of one list tend to share a shape: each object is sized like
    /// the larger of the two before it.
    hint: usize,
    last_len: usize,
    dest: Dest,
}

impl List {
    /// Adds the next item.
    pub(super) fn push(&mut self, item: Value) {
        if let Value::Object(object) = &item {
            self.hint = object.len().max(self.last_len);
            self.last_len = object.len();
        }
        self.items.push(item);
    }
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

impl Parser<'_> {
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
    pub(super) fn inline(&mut self, header: &Header) -> PResult<Value> {
        let start = skip_spaces(self.bytes, header.rest, header.end);
        let mut items = Vec::with_capacity(self.capacity(header.len, start));
        let mut extra = None;
        self.split(start, header.end, header.delim, false, |at, value| {
            if items.len() == header.len && extra.is_none() {
                extra = Some(at);
            }
            items.push(value);
        })?;
        self.check_count(header, items.len(), extra, "value", "values")?;
        Ok(Value::Array(items))
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

    /// Splits `start..end` on `delim` outside quotes, decoding each trimmed
    /// cell and handing it to `sink` with its offset. With `stop_at_colon`,
    /// an unquoted `:` in the first cell stops the split and returns `false`
    /// (the line is `key: value`, not a row, §9.3).
    #[inline]
    fn split(
        &self,
        start: usize,
        end: usize,
        delim: u8,
        stop_at_colon: bool,
        mut sink: impl FnMut(usize, Value),
    ) -> PResult<bool> {
        let special = special_bytes(delim);
        let line = &self.bytes[..end];
        let mut i = start;
        let mut cell = start;
        let mut first = stop_at_colon;
        loop {
            let Some(offset) = line[i..].iter().position(|&c| special[usize::from(c)]) else {
                self.cell(cell, end, &mut sink)?;
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
                    self.cell(cell, i, &mut sink)?;
                    first = false;
                    i += 1;
                    cell = i;
                }
            }
        }
    }

    #[inline]
    fn cell(&self, start: usize, end: usize, sink: &mut impl FnMut(usize, Value)) -> PResult<()> {
        let cell_start = skip_spaces(self.bytes, start, end);
        let cell_end = trim_end(self.bytes, cell_start, end);
        sink(start, scalar::primitive(self.text, cell_start, cell_end)?);
        Ok(())
    }

    /// Opens the list `key[N]:` whose `- ` items are at `depth` (§9.2,
    /// §9.4, §10), read on by [`Parser::run`] and handed to `dest`.
    pub(super) fn open_list(
        &mut self,
        stack: &mut Vec<Frame>,
        header: Header,
        depth: usize,
        dest: Dest,
    ) -> PResult<()> {
        self.enter(header.len_pos)?;
        let items = Vec::with_capacity(self.capacity(header.len, header.end));
        stack.push(Frame::List(List {
            items,
            header,
            depth,
            extra: None,
            started: false,
            hint: 0,
            last_len: 0,
            dest,
        }));
        Ok(())
    }

    /// A line at or past `depth`, the depth of the items of the list on
    /// top of `stack`: its next item.
    pub(super) fn list_line(
        &mut self,
        stack: &mut Vec<Frame>,
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
        if list.items.len() == list.header.len && list.extra.is_none() {
            list.extra = Some(line.content);
        }
        let hint = list.hint;
        self.list_item(stack, line, depth, hint)
    }

    /// Pops the finished list on top of `stack`: its value and where it
    /// goes.
    pub(super) fn close_list(&mut self, stack: &mut Vec<Frame>) -> PResult<(Value, Dest)> {
        let Some(Frame::List(list)) = stack.pop() else {
            return Ok((Value::Null, Dest::Root));
        };
        if list.started {
            self.spans -= 1;
        }
        self.leave();
        self.check_count(
            &list.header,
            list.items.len(),
            list.extra,
            "list item",
            "list items",
        )?;
        Ok((Value::Array(list.items), list.dest))
    }

    /// One `- ...` item whose hyphen is at `depth`, of the list on top of
    /// `stack`: its value, or the block it opens pushed.
    fn list_item(
        &mut self,
        stack: &mut Vec<Frame>,
        line: &Line,
        depth: usize,
        hint: usize,
    ) -> PResult<()> {
        let start = skip_spaces(self.bytes, line.content + 1, line.end);
        let end = line.end;
        if start == end {
            self.deliver(stack, Value::Object(Map::new()), Dest::Item)?;
            return Ok(());
        }
        if &self.bytes[start..end] == b"[]" {
            self.deliver(stack, Value::Array(Vec::new()), Dest::Item)?;
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
                let value = scalar::primitive(self.text, start, end)?;
                self.deliver(stack, value, Dest::Item)?;
                return Ok(());
            }
            kind => kind,
        };
        // An object whose first field sits on the hyphen line, one level in.
        self.enter(start)?;
        stack.push(Frame::Object {
            map: Map::with_capacity(hint),
            depth: depth + 1,
            dest: Dest::Item,
            slot: None,
        });
        self.field(stack, kind, start, end, depth + 1)
    }

    /// `key[N]{fields}:` followed by rows at `depth` (§9.3).
    pub(super) fn table(&mut self, header: &Header, table: &Table, depth: usize) -> PResult<Value> {
        let mut rows = Vec::with_capacity(self.capacity(header.len, header.end));
        self.rows(
            header,
            depth,
            ("row", "rows"),
            |parser, line, cells| {
                let is_row = parser.split(line.content, line.end, header.delim, true, |_, v| {
                    cells.push(v);
                })?;
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
            |parser, line, (), cells| {
                parser.check_width(table, cells.len(), line.content)?;
                rows.push(table.row(cells));
                Ok(())
            },
        )?;
        Ok(Value::Array(rows))
    }

    /// `key[N:]{fields}:` followed by `entrykey: cells` rows at `depth` (§9.5).
    pub(super) fn keyed(&mut self, header: &Header, table: &Table, depth: usize) -> PResult<Value> {
        let mut map = Map::with_capacity(self.capacity(header.len, header.end));
        self.rows(
            header,
            depth,
            ("entry", "entries"),
            |parser, line, _| match header::first_unquoted_colon(
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
            |parser, line, colon, cells| {
                let key = parser.entry_key(line.content, colon)?;
                let cells_start = skip_spaces(parser.bytes, colon + 1, line.end);
                if cells_start < line.end {
                    parser.split(cells_start, line.end, header.delim, false, |_, v| {
                        cells.push(v);
                    })?;
                }
                parser.check_width(table, cells.len(), line.content)?;
                let row = table.row(cells);
                parser.insert(&mut map, key, line.content, row)
            },
        )?;
        Ok(Value::Object(map))
    }

    /// The rows of a table at `depth`, shared by both table forms: `classify`
    /// looks at a line (with `cells` cleared for it) before it is taken,
    /// `read` reads a row once it is taken and counted. Checks the count
    /// against the header's (`noun` names a row in the message).
    fn rows<T>(
        &mut self,
        header: &Header,
        depth: usize,
        noun: (&str, &str),
        mut classify: impl FnMut(&mut Self, &Line, &mut Vec<Value>) -> PResult<Step<T>>,
        mut read: impl FnMut(&mut Self, &Line, T, &mut Vec<Value>) -> PResult<()>,
    ) -> PResult<()> {
        self.enter(header.len_pos)?;
        let mut cells = std::mem::take(&mut self.cells);
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
            cells.clear();
            let found = match classify(self, &line, &mut cells)? {
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
            read(self, &line, found, &mut cells)?;
        }
        self.cells = cells;
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
