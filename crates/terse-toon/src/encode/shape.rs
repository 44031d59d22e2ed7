//! Tabular detection (spec §9.3, §9.5): whether a list of objects shares one
//! field structure, and the header fields that describe it.
//!
//! The fields are a flat pre-order list: each field records where its
//! subtree ends, so a leaf is a field whose subtree is empty and a nested
//! field group is a field with descendants. Detection builds the fields
//! from the first object and then checks every other object against them,
//! row by row, without collecting columns.

use super::tree::{Kind, Tree};

/// One header field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'t> {
    pub(crate) name: &'t str,
    /// Index just past this field's nested fields.
    pub(crate) end: usize,
}

impl Field<'_> {
    /// Whether the field at `index` (this one) has no nested field group.
    pub(crate) fn is_leaf(&self, index: usize) -> bool {
        self.end == index + 1
    }
}

/// Fills `fields` with the header of a table whose rows are `rows`, or
/// returns `false` if the rows are not uniform. `fields` is left empty then.
pub(crate) fn detect<'t, T: Tree<'t>>(
    fields: &mut Vec<Field<'t>>,
    mut rows: impl Iterator<Item = T>,
) -> bool {
    fields.clear();
    let uniform = match rows.next() {
        Some(first) => {
            matches!(first.kind(), Kind::Object(n) if n > 0)
                && build(fields, first)
                && rows.all(|row| matches(fields, 0, fields.len(), row))
        }
        None => false,
    };
    if !uniform {
        fields.clear();
    }
    uniform
}

/// Appends the fields of `object` (a non-empty object): primitives become
/// leaves, non-empty objects nested groups; anything else disqualifies.
fn build<'t, T: Tree<'t>>(fields: &mut Vec<Field<'t>>, object: T) -> bool {
    for (name, value) in object.entries() {
        let at = fields.len();
        fields.push(Field { name, end: at + 1 });
        let fits = match value.kind() {
            Kind::Object(n) if n > 0 => build(fields, value),
            Kind::Object(_) | Kind::Array(_) => false,
            _ => true,
        };
        if !fits {
            return false;
        }
        fields[at].end = fields.len();
    }
    true
}

/// Whether `row` has exactly the fields `fields[start..end]` (one level and
/// its nested groups), with primitives at leaves and non-empty objects at
/// nested groups.
fn matches<'t, T: Tree<'t>>(fields: &[Field<'t>], start: usize, end: usize, row: T) -> bool {
    let Kind::Object(len) = row.kind() else {
        return false;
    };
    let mut entries = row.entries();
    let mut count = 0;
    let mut i = start;
    while i < end {
        let field = fields[i];
        let Some(value) = field_value(&mut entries, row, field.name) else {
            return false;
        };
        let ok = if field.is_leaf(i) {
            value.kind().is_primitive()
        } else {
            matches(fields, i + 1, field.end, value)
        };
        if !ok {
            return false;
        }
        count += 1;
        i = field.end;
    }
    count == len
}

/// The value of field `name` in `row`. Rows usually list their keys in the
/// header's order, so the next entry is tried before a lookup.
pub(crate) fn field_value<'t, T: Tree<'t>>(
    entries: &mut T::Entries,
    row: T,
    name: &str,
) -> Option<T> {
    match entries.next() {
        Some((key, value)) if key == name => Some(value),
        _ => row.get(name),
    }
}
