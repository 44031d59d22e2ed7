//! The structural parser: root form (§5), objects (§8), arrays in their
//! inline, list, tabular and keyed-tabular forms (§9, §10).

use super::header::{self, Header, Kind};
use super::lines::{Line, Lines};
use super::table::TableCache;
use super::{Fail, MAX_DEPTH, PResult, scalar};
use crate::DecodeOptions;
use serde_json::{Map, Value};

mod arrays;

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

/// `start` moved forward over spaces, not past `end`.
fn skip_spaces(b: &[u8], mut start: usize, end: usize) -> usize {
    while start < end && b[start] == b' ' {
        start += 1;
    }
    start
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
}

fn missing_colon(line: &Line) -> Fail {
    Fail::new(
        line.end,
        "missing `:` after the key (a bare value is allowed only as the whole document)",
    )
}
