//! The structural parser: root form (§5), objects (§8), arrays in their
//! inline, list, tabular and keyed-tabular forms (§9, §10).

use super::header::{self, Header, Kind, skip_quoted, trim_end};
use super::lines::{Line, Lines};
use super::table::{Table, TableCache};
use super::{Fail, MAX_DEPTH, PResult, scalar};
use crate::DecodeOptions;
use serde_json::{Map, Value};

pub(super) struct Parser<'a> {
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
    /// Reused buffer for the cells of one row.
    cells: Vec<Value>,
    /// Tables already built from a field list, for headers that repeat.
    tables: TableCache<'a>,
    /// Key count of the last nested object, by depth.
    size_hints: [usize; SIZE_HINTS],
}

const SIZE_HINTS: usize = 16;
const MAX_SIZE_HINT: usize = 64;

const MAX_RESERVE: usize = 1024;

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

/// `start` moved forward over spaces, not past `end`.
fn skip_spaces(b: &[u8], mut start: usize, end: usize) -> usize {
    while start < end && b[start] == b' ' {
        start += 1;
    }
    start
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

impl<'a> Parser<'a> {
    pub fn new(text: &'a str, start: usize, options: &DecodeOptions) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            lines: Lines::new(text.as_bytes(), start, options.indent_size, options.strict),
            strict: options.strict,
            indent_size: options.indent_size,
            nesting: 0,
            spans: 0,
            cells: Vec::new(),
            tables: TableCache::default(),
            size_hints: [0; SIZE_HINTS],
        }
    }

    /// Decodes the whole document (§5 root form).
    pub fn root(&mut self) -> PResult<Value> {
        let Some(first) = self.lines.peek()? else {
            return Ok(Value::Object(Map::new()));
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
            return Ok(Value::Array(Vec::new()));
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
                let value = self.array_body(header, first.depth)?;
                self.expect_end()?;
                Ok(value)
            }
            Kind::Scalar { header } => {
                self.take(&first)?;
                if self.lines.peek()?.is_none() {
                    return scalar::primitive(self.text, first.content, first.end);
                }
                Err(header.unwrap_or_else(|| missing_colon(&first)))
            }
            kind => {
                self.take(&first)?;
                let mut map = Map::new();
                self.field(&mut map, kind, first.content, first.end, first.depth)?;
                self.object_body(&mut map, first.depth)?;
                // Lenient mode only: a root indented deeper than later lines.
                while let Some(line) = self.lines.peek()? {
                    self.object_body(&mut map, line.depth)?;
                }
                Ok(Value::Object(map))
            }
        }
    }

    /// Nothing may follow a root array or keyed root table (§5).
    fn expect_end(&mut self) -> PResult<()> {
        match self.lines.peek()? {
            Some(line) if self.strict => Err(Fail::new(
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
        if self.strict {
            let msg = match array_depth {
                Some(depth) => format!(
                    "unexpected indentation: the items of this array are indented {} spaces",
                    depth * self.indent_size
                ),
                None => "unexpected indentation: the line above does not open a block".to_owned(),
            };
            return Err(Fail::new(line.content, msg));
        }
        self.take(line)
    }

    /// The fields of an object at `depth`, until a shallower line.
    fn object_body(&mut self, map: &mut Map<String, Value>, depth: usize) -> PResult<()> {
        while let Some(line) = self.lines.peek()? {
            if line.depth < depth {
                break;
            }
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
            self.field(map, kind, line.content, line.end, depth)?;
        }
        Ok(())
    }

    /// One field (`start..end` holds its key) of an object whose fields are
    /// at `depth`; nested content is at `depth + 1`.
    fn field(
        &mut self,
        map: &mut Map<String, Value>,
        kind: Kind,
        start: usize,
        end: usize,
        depth: usize,
    ) -> PResult<()> {
        match kind {
            Kind::KeyValue { key, value } => {
                let value_start = skip_spaces(self.bytes, value, end);
                let value = if value_start == end {
                    Value::Object(self.nested_object(depth, start)?)
                } else if &self.bytes[value_start..end] == b"[]" {
                    Value::Array(Vec::new())
                } else {
                    scalar::primitive(self.text, value_start, end)?
                };
                self.insert(map, key, start, value)
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
                    Some(kind) => self.field(map, kind, start, end, depth),
                    None => Err(Fail::new(end, "missing `:` after the key")),
                }
            }
            Kind::Header(mut header) => {
                let key = header.key.take().unwrap_or_default();
                let value = self.array_body(header, depth)?;
                self.insert(map, key, start, value)
            }
            Kind::Scalar { header } => {
                Err(header.unwrap_or_else(|| Fail::new(end, "missing `:` after the key")))
            }
        }
    }

    fn insert(
        &mut self,
        map: &mut Map<String, Value>,
        key: String,
        pos: usize,
        value: Value,
    ) -> PResult<()> {
        if !self.strict {
            map.insert(key, value);
            return Ok(());
        }
        match map.entry(key) {
            serde_json::map::Entry::Vacant(slot) => {
                slot.insert(value);
                Ok(())
            }
            serde_json::map::Entry::Occupied(slot) => {
                Err(Fail::new(pos, format!("duplicate key `{}`", slot.key())))
            }
        }
    }

    /// The object opened by `key:` at `parent` depth: the deeper lines that
    /// follow, or `{}` when there are none.
    fn nested_object(&mut self, parent: usize, pos: usize) -> PResult<Map<String, Value>> {
        let Some(next) = self.lines.peek()? else {
            return Ok(Map::new());
        };
        if next.depth <= parent {
            return Ok(Map::new());
        }
        // Sibling records repeat their nested objects' shapes: size this one
        // like the last object opened at the same depth.
        let slot = parent % SIZE_HINTS;
        let mut map = Map::with_capacity(self.size_hints[slot]);
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
        self.object_body(&mut map, depth)?;
        self.leave();
        self.size_hints[slot] = map.len().min(MAX_SIZE_HINT);
        Ok(map)
    }

    /// How many items to reserve for a declared length: never more than the
    /// rest of the input could hold, and at most [`MAX_RESERVE`], past which
    /// the vector grows as usual (a fresh multi-megabyte reservation per
    /// document costs the allocator more than doubling does).
    fn capacity(&self, declared: usize, from: usize) -> usize {
        declared
            .min((self.bytes.len() - from) / 2 + 1)
            .min(MAX_RESERVE)
    }

    /// The value a header at `depth` introduces.
    fn array_body(&mut self, mut header: Header, depth: usize) -> PResult<Value> {
        if let Some(table) = header.fields.take() {
            return if header.keyed {
                self.keyed(&header, &table, depth + 1)
            } else {
                self.table(&header, &table, depth + 1)
            };
        }
        if header.rest < header.end {
            self.inline(&header)
        } else {
            self.list(&header, depth + 1)
        }
    }

    /// `key[N]: a,b,c` (§9.1).
    fn inline(&mut self, header: &Header) -> PResult<Value> {
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

    /// `key[N]:` followed by `- ` items at `depth` (§9.2, §9.4, §10).
    fn list(&mut self, header: &Header, depth: usize) -> PResult<Value> {
        self.enter(header.len_pos)?;
        let mut items = Vec::with_capacity(self.capacity(header.len, header.end));
        let mut extra = None;
        let mut started = false;
        // Items of one list tend to share a shape: size each object like
        // the larger of the two before it.
        let (mut hint, mut last_len) = (0, 0);
        while let Some(line) = self.lines.peek()? {
            if line.depth < depth {
                break;
            }
            if line.depth > depth {
                self.orphan(&line, Some(depth))?;
                continue;
            }
            let content = &self.bytes[line.content..line.end];
            if content[0] != b'-' || content.get(1).is_some_and(|&c| c != b' ') {
                return Err(Fail::new(
                    line.content,
                    "expected a list item starting with `- `",
                ));
            }
            self.take(&line)?;
            if !started {
                started = true;
                self.spans += 1;
            }
            if items.len() == header.len && extra.is_none() {
                extra = Some(line.content);
            }
            let item = self.list_item(&line, depth, hint)?;
            if let Value::Object(object) = &item {
                hint = object.len().max(last_len);
                last_len = object.len();
            }
            items.push(item);
        }
        if started {
            self.spans -= 1;
        }
        self.leave();
        self.check_count(header, items.len(), extra, "list item", "list items")?;
        Ok(Value::Array(items))
    }

    /// One `- ...` item whose hyphen is at `depth`.
    fn list_item(&mut self, line: &Line, depth: usize, hint: usize) -> PResult<Value> {
        let start = skip_spaces(self.bytes, line.content + 1, line.end);
        let end = line.end;
        if start == end {
            return Ok(Value::Object(Map::new()));
        }
        if &self.bytes[start..end] == b"[]" {
            return Ok(Value::Array(Vec::new()));
        }
        let kind = match header::classify(self.text, start, end, self.strict, &mut self.tables)? {
            Kind::Header(header) if header.key.is_none() => {
                if !header.keyed && header.fields.is_none() {
                    return self.array_body(header, depth);
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
            Kind::Scalar { .. } => return scalar::primitive(self.text, start, end),
            kind => kind,
        };
        // An object whose first field sits on the hyphen line, one level in.
        self.enter(start)?;
        let mut map = Map::with_capacity(hint);
        self.field(&mut map, kind, start, end, depth + 1)?;
        self.object_body(&mut map, depth + 1)?;
        self.leave();
        Ok(Value::Object(map))
    }

    /// `key[N]{fields}:` followed by rows at `depth` (§9.3).
    fn table(&mut self, header: &Header, table: &Table, depth: usize) -> PResult<Value> {
        self.enter(header.len_pos)?;
        let mut rows = Vec::with_capacity(self.capacity(header.len, header.end));
        let mut cells = std::mem::take(&mut self.cells);
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
            let is_row = self.split(line.content, line.end, header.delim, true, |_, v| {
                cells.push(v);
            })?;
            if !is_row {
                if self.strict {
                    return Err(Fail::new(
                        line.content,
                        "expected a table row, found a `key: value` line",
                    ));
                }
                break;
            }
            self.take(&line)?;
            if !started {
                started = true;
                self.spans += 1;
            }
            if rows.len() == header.len && extra.is_none() {
                extra = Some(line.content);
            }
            self.check_width(table, cells.len(), line.content)?;
            rows.push(table.row(&mut cells));
        }
        self.cells = cells;
        if started {
            self.spans -= 1;
        }
        self.leave();
        self.check_count(header, rows.len(), extra, "row", "rows")?;
        Ok(Value::Array(rows))
    }

    fn check_width(&self, table: &Table, found: usize, pos: usize) -> PResult<()> {
        if self.strict && found != table.leaves {
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

    /// `key[N:]{fields}:` followed by `entrykey: cells` rows at `depth` (§9.5).
    fn keyed(&mut self, header: &Header, table: &Table, depth: usize) -> PResult<Value> {
        self.enter(header.len_pos)?;
        let mut map = Map::with_capacity(self.capacity(header.len, header.end));
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
            let Some(colon) = header::first_unquoted_colon(self.bytes, line.content, line.end)
            else {
                if self.strict {
                    return Err(Fail::new(
                        line.content,
                        "expected an entry row `key: values`",
                    ));
                }
                self.take(&line)?;
                continue;
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
            let key = self.entry_key(line.content, colon)?;
            let cells_start = skip_spaces(self.bytes, colon + 1, line.end);
            cells.clear();
            if cells_start < line.end {
                self.split(cells_start, line.end, header.delim, false, |_, v| {
                    cells.push(v);
                })?;
            }
            self.check_width(table, cells.len(), line.content)?;
            let row = table.row(&mut cells);
            self.insert(&mut map, key, line.content, row)?;
        }
        self.cells = cells;
        if started {
            self.spans -= 1;
        }
        self.leave();
        self.check_count(header, count, extra, "entry", "entries")?;
        Ok(Value::Object(map))
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

fn missing_colon(line: &Line) -> Fail {
    Fail::new(
        line.end,
        "missing `:` after the key (a bare value is allowed only as the whole document)",
    )
}
