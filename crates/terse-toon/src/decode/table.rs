//! Tables (§9.3, §9.5): a header's field list turned into an object
//! template that rows fill in. The header parser (`header`) builds the
//! [`Field`] list defined here, so this module depends on nothing above it.

use super::json::write_str;
use serde_json::{Map, Value};
use std::cell::OnceCell;
use std::rc::Rc;

/// One entry of a header's field list.
#[derive(Debug)]
pub(super) struct Field {
    pub name: String,
    /// Offset of the name, where errors about it point.
    pub pos: usize,
    /// The nested field group, when the entry carries one (§9.3).
    pub children: Option<Vec<Field>>,
}

/// A table's field list, ready to turn rows into objects (for the tree)
/// or into JSON text (for the writer). Each reading is made the first time
/// a row needs it: a decode uses one of them.
#[derive(Debug)]
pub(super) struct Table {
    /// The field list as written.
    fields: Vec<Field>,
    pub leaves: usize,
    /// An object with the table's shape: `null` leaves, nested groups as
    /// objects. Cloning it and filling the leaves in place is cheaper than
    /// hashing every key of every row. Unused with `duplicates`.
    template: OnceCell<Map<String, Value>>,
    /// Field names repeat at some level (lenient mode): rows are built key
    /// by key so that the last one wins.
    pub duplicates: bool,
    /// For rows written as JSON text.
    text: OnceCell<RowText>,
}

/// A row of a table as JSON text.
#[derive(Debug)]
pub(super) struct RowText {
    /// What goes before each leaf's value (`{"id":`, then
    /// `,"geo":{"lat":`...), one per leaf, in cell order.
    pub prefixes: Vec<Box<[u8]>>,
    /// What closes a row after its last value (`}}`).
    pub suffix: Box<[u8]>,
    /// With `duplicates`: the row as the tree has it (each name once, at
    /// its first place, with its last value), as text and cell numbers.
    pub layout: Vec<Piece>,
}

/// A piece of a row's JSON text when field names repeat.
#[derive(Debug)]
pub(super) enum Piece {
    /// Text between values.
    Text(Box<[u8]>),
    /// The value of the cell with this number.
    Cell(usize),
}

impl Table {
    pub fn new(fields: Vec<Field>, duplicates: bool) -> Self {
        Table {
            leaves: leaf_count(&fields),
            fields,
            template: OnceCell::new(),
            duplicates,
            text: OnceCell::new(),
        }
    }

    /// One row's object from `cells` (missing cells are `null`).
    pub fn row(&self, cells: &mut Vec<Value>) -> Value {
        let mut cells = cells.drain(..);
        if self.duplicates {
            Value::Object(build_last_wins(&self.fields, &mut cells))
        } else {
            let template = self.template.get_or_init(|| template(&self.fields));
            // `clone_from` into an exactly sized map: a plain `clone` would
            // size the entries like the hash table (almost twice as many).
            let mut object = Map::with_capacity(template.len());
            object.clone_from(template);
            fill(&mut object, &mut cells);
            Value::Object(object)
        }
    }

    /// The row as JSON text fragments.
    pub fn text(&self) -> &RowText {
        self.text.get_or_init(|| {
            let mut prefixes = Vec::with_capacity(self.leaves);
            let mut pending = Vec::new();
            fragments(&self.fields, &mut pending, &mut prefixes);
            let mut layout = Vec::new();
            if self.duplicates {
                let mut next = 0;
                let resolved = resolve(&self.fields, &mut next);
                let mut text = Vec::new();
                lay_out(&resolved, &mut text, &mut layout);
                layout.push(Piece::Text(text.into_boxed_slice()));
            }
            RowText {
                prefixes,
                suffix: pending.into_boxed_slice(),
                layout,
            }
        })
    }
}

/// The JSON text before each leaf of `fields` into `prefixes`; what
/// follows the last one is left in `pending`. Field groups nest at most
/// [`MAX_DEPTH`](super::MAX_DEPTH) deep (the header parser's bound).
fn fragments(fields: &[Field], pending: &mut Vec<u8>, prefixes: &mut Vec<Box<[u8]>>) {
    pending.push(b'{');
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            pending.push(b',');
        }
        write_str(pending, &field.name);
        pending.push(b':');
        match &field.children {
            Some(children) => fragments(children, pending, prefixes),
            None => prefixes.push(std::mem::take(pending).into_boxed_slice()),
        }
    }
    pending.push(b'}');
}

/// A field list with repeated names as the tree builds it: each name once,
/// at its first place, with its last value (a cell number or a group).
enum Node {
    Leaf(usize),
    Group(Vec<(String, Node)>),
}

fn resolve(fields: &[Field], next: &mut usize) -> Vec<(String, Node)> {
    let mut resolved: Vec<(String, Node)> = Vec::with_capacity(fields.len());
    let mut places = std::collections::HashMap::with_capacity(fields.len());
    for field in fields {
        let node = match &field.children {
            Some(children) => Node::Group(resolve(children, next)),
            None => {
                *next += 1;
                Node::Leaf(*next - 1)
            }
        };
        match places.get(field.name.as_str()) {
            Some(&at) => resolved[at] = (field.name.clone(), node),
            None => {
                places.insert(field.name.as_str(), resolved.len());
                resolved.push((field.name.clone(), node));
            }
        }
    }
    resolved
}

fn lay_out(nodes: &[(String, Node)], text: &mut Vec<u8>, layout: &mut Vec<Piece>) {
    text.push(b'{');
    for (i, (name, node)) in nodes.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        write_str(text, name);
        text.push(b':');
        match node {
            Node::Group(children) => lay_out(children, text, layout),
            Node::Leaf(cell) => {
                layout.push(Piece::Text(std::mem::take(text).into_boxed_slice()));
                layout.push(Piece::Cell(*cell));
            }
        }
    }
    text.push(b'}');
}

fn leaf_count(fields: &[Field]) -> usize {
    fields
        .iter()
        .map(|f| f.children.as_deref().map_or(1, leaf_count))
        .sum()
}

fn template(fields: &[Field]) -> Map<String, Value> {
    let mut map = Map::with_capacity(fields.len());
    for field in fields {
        let value = match &field.children {
            Some(children) => Value::Object(template(children)),
            None => Value::Null,
        };
        map.insert(field.name.clone(), value);
    }
    map
}

fn fill(object: &mut Map<String, Value>, cells: &mut impl Iterator<Item = Value>) {
    for slot in object.values_mut() {
        match slot {
            Value::Object(group) => fill(group, cells),
            _ => match cells.next() {
                Some(cell) => *slot = cell,
                None => return,
            },
        }
    }
}

fn build_last_wins(
    fields: &[Field],
    cells: &mut impl Iterator<Item = Value>,
) -> Map<String, Value> {
    let mut map = Map::new();
    for field in fields {
        let value = match &field.children {
            Some(children) => Value::Object(build_last_wins(children, cells)),
            None => cells.next().unwrap_or(Value::Null),
        };
        map.insert(field.name.clone(), value);
    }
    map
}

/// The tables of the last few distinct field lists, so that a header that
/// repeats (an inner table in every item of a list) is parsed once.
#[derive(Default)]
pub(super) struct TableCache<'a> {
    entries: Vec<(u8, &'a str, Rc<Table>)>,
    next: usize,
}

impl<'a> TableCache<'a> {
    const SIZE: usize = 8;

    /// The table for the field list at the start of `text` (from its `{`),
    /// if one with the same text and delimiter was built before.
    pub fn get(&self, delim: u8, text: &str) -> Option<(Rc<Table>, usize)> {
        self.entries
            .iter()
            .find(|(d, spec, _)| *d == delim && text.starts_with(spec))
            .map(|(_, spec, table)| (Rc::clone(table), spec.len()))
    }

    /// Remembers the table built from the field list `spec` (`{` to `}`).
    pub fn put(&mut self, delim: u8, spec: &'a str, table: Rc<Table>) {
        if self.entries.len() < Self::SIZE {
            self.entries.push((delim, spec, table));
        } else {
            self.entries[self.next] = (delim, spec, table);
            self.next = (self.next + 1) % Self::SIZE;
        }
    }
}
