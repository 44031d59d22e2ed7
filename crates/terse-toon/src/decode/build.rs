//! What the structural parser makes of a document: [`Build`] is told each
//! value, key and row in document order, and [`Tree`] makes a
//! `serde_json::Value` of them (the JSON writer makes text). The parser
//! finds every error; a builder only refuses a repeated key.

use super::fail::{Fail, PResult};
use super::scalar;
use super::table::Table;
use serde_json::{Map, Value};

/// A maker of decoded values, driven by the structural parser in document
/// order: a field's key comes before its value, an item's turn before the
/// item, and a finished value is handed to the object (`insert`) or array
/// (`push`) it belongs to.
pub(super) trait Build {
    /// A finished value.
    type Value;
    /// An object being read.
    type Object;
    /// An array being read.
    type Items;
    /// The cells of a table row being read.
    type Cells;

    /// The value token `start..end` of `text`.
    fn primitive(&mut self, text: &str, start: usize, end: usize) -> PResult<Self::Value>;
    /// `{}`.
    fn empty_object(&mut self) -> Self::Value;
    /// `[]`.
    fn empty_array(&mut self) -> Self::Value;
    /// Opens an object expected to hold about `capacity` fields.
    fn object(&mut self, capacity: usize) -> Self::Object;
    /// The fields of `object` so far.
    fn object_len(object: &Self::Object) -> usize;
    /// The field `key` of `object` starts; its value follows.
    fn key(&mut self, object: &mut Self::Object, key: &str);
    /// The field `key` (at `pos`) of `object` is finished: a repeated key is
    /// an error in strict mode, and keeps its last value otherwise.
    fn insert(
        &mut self,
        object: &mut Self::Object,
        key: String,
        pos: usize,
        value: Self::Value,
    ) -> PResult<()>;
    /// Closes `object`.
    fn end_object(&mut self, object: Self::Object) -> Self::Value;
    /// Opens an array expected to hold about `capacity` items.
    fn array(&mut self, capacity: usize) -> Self::Items;
    /// The next item of `items` starts.
    fn item(&mut self, items: &mut Self::Items);
    /// The item of `items` is finished.
    fn push(&mut self, items: &mut Self::Items, value: Self::Value);
    /// The items pushed so far.
    fn len(items: &Self::Items) -> usize;
    /// How many fields to expect in an object item of `items`: items of one
    /// list tend to share a shape.
    fn hint(items: &Self::Items) -> usize;
    /// Closes `items`.
    fn end_array(&mut self, items: Self::Items) -> Self::Value;
    /// Empty cells, reused from the last row read.
    fn take_cells(&mut self) -> Self::Cells;
    /// Gives back `cells` for the next table.
    fn put_cells(&mut self, cells: Self::Cells);
    /// Forgets the cells of a row.
    fn clear_cells(cells: &mut Self::Cells);
    /// The next cell, the value token `start..end` of `text`, of a row of
    /// `table`.
    fn cell(
        &mut self,
        cells: &mut Self::Cells,
        table: &Table,
        text: &str,
        start: usize,
        end: usize,
    ) -> PResult<()>;
    /// The cells of the row so far.
    fn cell_count(cells: &Self::Cells) -> usize;
    /// The row of `table` its cells make (as many as the table has leaves).
    fn row(&mut self, cells: &mut Self::Cells, table: &Table) -> Self::Value;
}

/// Builds a `serde_json::Value`.
pub(super) struct Tree {
    strict: bool,
    /// Reused buffer for the cells of one row.
    cells: Vec<Value>,
}

impl Tree {
    pub fn new(strict: bool) -> Self {
        Tree {
            strict,
            cells: Vec::new(),
        }
    }
}

/// An array being built, with the shape of its object items.
pub(super) struct TreeItems {
    items: Vec<Value>,
    /// Each object item is sized like the larger of the two before it.
    hint: usize,
    last_len: usize,
}

impl Build for Tree {
    type Value = Value;
    type Object = Map<String, Value>;
    type Items = TreeItems;
    type Cells = Vec<Value>;

    #[inline]
    fn primitive(&mut self, text: &str, start: usize, end: usize) -> PResult<Value> {
        scalar::primitive(text, start, end)
    }

    fn empty_object(&mut self) -> Value {
        Value::Object(Map::new())
    }

    fn empty_array(&mut self) -> Value {
        Value::Array(Vec::new())
    }

    fn object(&mut self, capacity: usize) -> Map<String, Value> {
        Map::with_capacity(capacity)
    }

    fn object_len(object: &Map<String, Value>) -> usize {
        object.len()
    }

    #[inline]
    fn key(&mut self, _: &mut Map<String, Value>, _: &str) {}

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

    fn end_object(&mut self, object: Map<String, Value>) -> Value {
        Value::Object(object)
    }

    fn array(&mut self, capacity: usize) -> TreeItems {
        TreeItems {
            items: Vec::with_capacity(capacity),
            hint: 0,
            last_len: 0,
        }
    }

    #[inline]
    fn item(&mut self, _: &mut TreeItems) {}

    #[inline]
    fn push(&mut self, items: &mut TreeItems, value: Value) {
        if let Value::Object(object) = &value {
            items.hint = object.len().max(items.last_len);
            items.last_len = object.len();
        }
        items.items.push(value);
    }

    fn len(items: &TreeItems) -> usize {
        items.items.len()
    }

    fn hint(items: &TreeItems) -> usize {
        items.hint
    }

    fn end_array(&mut self, items: TreeItems) -> Value {
        Value::Array(items.items)
    }

    fn take_cells(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.cells)
    }

    fn put_cells(&mut self, cells: Vec<Value>) {
        self.cells = cells;
    }

    fn clear_cells(cells: &mut Vec<Value>) {
        cells.clear();
    }

    #[inline]
    fn cell(
        &mut self,
        cells: &mut Vec<Value>,
        _: &Table,
        text: &str,
        start: usize,
        end: usize,
    ) -> PResult<()> {
        cells.push(scalar::primitive(text, start, end)?);
        Ok(())
    }

    fn cell_count(cells: &Vec<Value>) -> usize {
        cells.len()
    }

    fn row(&mut self, cells: &mut Vec<Value>, table: &Table) -> Value {
        table.row(cells)
    }
}
