//! The read-only view of a JSON document that the emitter walks.
//!
//! Two documents implement it: a `serde_json::Value` (for [`encode`]) and the
//! borrowed [`Document`](crate::document::Document) that [`encode_json`]
//! parses JSON text into. The emitter is
//! generic over this trait, so both paths share one implementation of the
//! TOON rules and each is compiled without dynamic dispatch.
//!
//! [`encode`]: crate::encode()
//! [`encode_json`]: crate::encode_json()

use super::number;
use super::out::{Out, Sink};
use crate::document::{self, Node, Scalar, same_bytes};
use crate::quoting::write_string_bytes_led;
use serde_json::{Map, Value};

/// What a node is, with the data the emitter needs without a second lookup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Kind<'t> {
    Null,
    Bool(bool),
    /// A number, with its canonical text when the document holds it
    /// already (a parsed document does), so that writing it is a copy
    /// without a second lookup; `None` when it is still to be formatted.
    Number(Option<&'t str>),
    String(&'t str),
    /// An array and its length.
    Array(usize),
    /// An object and its number of entries.
    Object(usize),
}

impl Kind<'_> {
    /// Null, boolean, number or string.
    pub(crate) fn is_primitive(self) -> bool {
        !matches!(self, Kind::Array(_) | Kind::Object(_))
    }
}

/// A node of a JSON document, cheap to copy.
pub(crate) trait Tree<'t>: Copy {
    /// The elements of an array, in order.
    type Items: Iterator<Item = Self>;
    /// The entries of an object, in document order.
    type Entries: Iterator<Item = (&'t str, Self)>;
    /// The entries of an object with their keys as bytes (whole text):
    /// what the emitter writes, which takes bytes.
    type RawEntries: Iterator<Item = (&'t [u8], Self)>;

    fn kind(self) -> Kind<'t>;

    /// Writes a number node in canonical form (spec §2).
    fn write_number(self, out: &mut impl Sink);

    /// The elements; empty unless the node is an array.
    fn items(self) -> Self::Items;

    /// The entries; empty unless the node is an object.
    fn entries(self) -> Self::Entries;

    /// The entries with their keys as bytes; empty unless the node is an
    /// object.
    fn raw_entries(self) -> Self::RawEntries;

    /// The number of entries, when the node is an object: what a check of
    /// the form needs, without the text a string's [`kind`](Self::kind)
    /// looks up.
    fn object_len(self) -> Option<usize> {
        match self.kind() {
            Kind::Object(len) => Some(len),
            _ => None,
        }
    }

    /// What the node is when it is an array or an object, without the text
    /// a string's [`kind`](Self::kind) looks up; `None` for a primitive.
    fn container(self) -> Option<Kind<'t>> {
        match self.kind() {
            kind @ (Kind::Array(_) | Kind::Object(_)) => Some(kind),
            _ => None,
        }
    }

    /// The node as a [`Scalar`], its text as bytes, when the tree has
    /// such a view (a document's does); `None` when it does not.
    fn scalar(self) -> Option<Scalar<'t>> {
        None
    }

    /// Whether the node is an array or an object (not a primitive), without
    /// the text a string's [`kind`](Self::kind) looks up.
    fn is_container(self) -> bool {
        !self.kind().is_primitive()
    }

    /// The value of the first entry, when the node is a non-empty object.
    fn first_value(self) -> Option<Self> {
        self.entries().next().map(|(_, value)| value)
    }

    /// Writes a table row along a header of leaves only (`names`, distinct)
    /// as [`walk_flat`](Self::walk_flat) walks it, its cells joined by
    /// `delimiter`: `Some(false)` as soon as the row does not match (what
    /// was written is the caller's to take back); `None` when the tree has
    /// no writer of its own and the caller walks the row.
    fn write_flat_row<const IN_ORDER: bool>(
        self,
        names: impl ExactSizeIterator<Item = &'t str>,
        out: &mut Out,
        delimiter: u8,
    ) -> Option<bool> {
        let _ = (names, out, delimiter);
        None
    }

    /// An id of the node's keys, in order, when it is an object whose
    /// tree gives one (a parsed document's, see
    /// [`Slot::Object`](crate::document::Slot::Object)); 0 for none. Two
    /// objects of one id other than 0 and one length have the same keys
    /// in the same order.
    fn keys_id(self) -> u16 {
        0
    }

    /// Writes a table row along a header of `width` leaves (the keys, in
    /// order, of an object of [`keys_id`](Self::keys_id) `keys`, not 0) by
    /// the positions of its values alone, when the row is an object of
    /// that id and length: `Some(false)` as soon as a value is no
    /// primitive (what was written is the caller's to take back); `None`,
    /// with nothing written, for any other row (the caller then writes it
    /// with [`write_flat_row`](Self::write_flat_row)).
    fn write_row_of_keys(
        self,
        keys: u16,
        width: usize,
        out: &mut Out,
        delimiter: u8,
    ) -> Option<bool> {
        let _ = (keys, width, out, delimiter);
        None
    }

    /// The key of an entry as [`next_split`](Self::next_split) hands it
    /// out: its bytes are looked up by [`key_bytes`](Self::key_bytes),
    /// only where they are written.
    type Key: Copy;

    /// The bytes of `key` (whole text).
    fn key_bytes(key: Self::Key) -> &'t [u8];

    /// The next of `entries`: its key, and its value as a [`Scalar`] when
    /// it is a scalar and the tree has such a view of it (a document's
    /// has), else as a node.
    fn next_split(entries: &mut Self::RawEntries) -> Option<(Self::Key, Result<Scalar<'t>, Self>)>;

    /// What [`last_place`](Self::last_place) tells the places of an
    /// object's entries from; 0 when the tree does not tell them.
    #[inline(always)]
    fn places(self) -> u32 {
        0
    }

    /// The place of the entry of `entries` taken last, given their
    /// object's [`places`](Self::places) (not 0): an id of the object's
    /// keys and the entry's position among them. Entries of one place have
    /// one key.
    #[inline(always)]
    fn last_place(entries: &Self::RawEntries, places: u32) -> u32 {
        let _ = (entries, places);
        0
    }

    /// The value at `key` of an object node.
    fn get(self, key: &str) -> Option<Self> {
        self.entries().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Walks a table row along a header of leaves only (`names`, distinct):
    /// hands the value of each name (and what it is) to `leaf`, in header
    /// order; `false` as soon as the node turns out not to be an object of
    /// exactly those keys with primitive values.
    ///
    /// A row of as many entries as the header has names, each name found
    /// among them, has exactly the header's keys, as an object's keys are
    /// distinct. Rows usually list their keys in the header's order, so
    /// the next entry is tried before a lookup. With `IN_ORDER`, the keys
    /// must also be in the header's order: the row is then one the header
    /// could have been built from.
    #[inline]
    fn walk_flat<const IN_ORDER: bool>(
        self,
        names: impl ExactSizeIterator<Item = &'t str>,
        mut leaf: impl FnMut(Self, Kind<'t>),
    ) -> bool {
        if !matches!(self.kind(), Kind::Object(len) if len == names.len()) {
            return false;
        }
        let mut entries = self.entries();
        for name in names {
            let found = if IN_ORDER {
                match entries.next() {
                    Some((key, value)) if same_bytes(key, name) => Some(value),
                    _ => None,
                }
            } else {
                next_or_get(self, &mut entries, name)
            };
            let Some(value) = found else {
                return false;
            };
            let kind = value.kind();
            if !kind.is_primitive() {
                return false;
            }
            leaf(value, kind);
        }
        true
    }
}

impl<'t> Tree<'t> for &'t Value {
    type Items = std::slice::Iter<'t, Value>;
    type Entries = ValueEntries<'t>;
    type RawEntries = ValueRawEntries<'t>;

    fn kind(self) -> Kind<'t> {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(b) => Kind::Bool(*b),
            Value::Number(_) => Kind::Number(None),
            Value::String(s) => Kind::String(s),
            Value::Array(items) => Kind::Array(items.len()),
            Value::Object(map) => Kind::Object(map.len()),
        }
    }

    fn write_number(self, out: &mut impl Sink) {
        if let Value::Number(n) = self {
            number::write_number(out, n);
        }
    }

    fn items(self) -> Self::Items {
        match self {
            Value::Array(items) => items.iter(),
            _ => [].iter(),
        }
    }

    fn entries(self) -> Self::Entries {
        ValueEntries(self.as_object().map(Map::iter))
    }

    fn raw_entries(self) -> Self::RawEntries {
        ValueRawEntries(self.entries())
    }

    type Key = &'t [u8];

    #[inline(always)]
    fn key_bytes(key: Self::Key) -> &'t [u8] {
        key
    }

    #[inline(always)]
    fn next_split(entries: &mut Self::RawEntries) -> Option<(Self::Key, Result<Scalar<'t>, Self>)> {
        entries.next().map(|(key, value)| (key, Err(value)))
    }

    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }
}

/// Entries of a `serde_json` object with keys as `&str`.
pub(crate) struct ValueEntries<'t>(Option<serde_json::map::Iter<'t>>);

impl<'t> Iterator for ValueEntries<'t> {
    type Item = (&'t str, &'t Value);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = self.0.as_mut()?.next()?;
        Some((key.as_str(), value))
    }
}

/// Entries of a `serde_json` object with keys as bytes.
pub(crate) struct ValueRawEntries<'t>(ValueEntries<'t>);

impl<'t> Iterator for ValueRawEntries<'t> {
    type Item = (&'t [u8], &'t Value);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = self.0.next()?;
        Some((key.as_bytes(), value))
    }
}

/// The value of `name` in `object`, whose entries not read yet are
/// `entries`: rows usually list their keys in the header's order, so the
/// next entry is tried before a lookup. Always inlined: it runs once per
/// cell, and as a call it cost more than its body.
#[inline(always)]
pub(crate) fn next_or_get<'t, T: Tree<'t>>(
    object: T,
    entries: &mut T::Entries,
    name: &str,
) -> Option<T> {
    match entries.next() {
        // Inline: keys are short, and a call to `memcmp` per cell costs
        // more than the comparison.
        Some((key, value)) if same_bytes(key, name) => Some(value),
        _ => object.get(name),
    }
}

/// The emitter's view of what a document node is.
#[inline(always)]
fn node_kind(kind: document::Kind<'_>) -> Kind<'_> {
    match kind {
        document::Kind::Null => Kind::Null,
        document::Kind::Bool(b) => Kind::Bool(b),
        document::Kind::Number(n) => Kind::Number(Some(n.canonical())),
        document::Kind::String(s) => Kind::String(s),
        document::Kind::Array(len) => Kind::Array(len),
        document::Kind::Object(len) => Kind::Object(len),
    }
}

impl<'t> Tree<'t> for Node<'t> {
    type Items = document::Items<'t>;
    type Entries = document::Entries<'t>;
    type RawEntries = document::RawEntries<'t>;

    #[inline(always)]
    fn kind(self) -> Kind<'t> {
        node_kind(Node::kind(self))
    }

    /// A row's slots run key, value, key, value... when its values are all
    /// scalars: each cell is read at its field's position, with one
    /// comparison of a key, and its slot is read once.
    #[inline]
    fn walk_flat<const IN_ORDER: bool>(
        self,
        names: impl ExactSizeIterator<Item = &'t str>,
        mut leaf: impl FnMut(Self, Kind<'t>),
    ) -> bool {
        // A row of primitives is a flat object; one that is not has a
        // value of more than one slot, a non-empty array or object.
        let Some(row) = self.flat_object() else {
            return false;
        };
        if row.len() != names.len() {
            return false;
        }
        for (position, name) in names.enumerate() {
            let Some((value, slot)) = row.value(position, name, IN_ORDER) else {
                return false;
            };
            let kind = node_kind(value.kind_of(slot));
            if !kind.is_primitive() {
                return false;
            }
            leaf(value, kind);
        }
        true
    }

    /// Cells are read as their slots' bytes and written as they are read:
    /// no text is looked at as a `&str` unless it is quoted.
    #[inline]
    fn write_flat_row<const IN_ORDER: bool>(
        self,
        names: impl ExactSizeIterator<Item = &'t str>,
        out: &mut Out,
        delimiter: u8,
    ) -> Option<bool> {
        let Some(row) = self.flat_object() else {
            return Some(false);
        };
        if row.len() != names.len() {
            return Some(false);
        }
        for (position, name) in names.enumerate() {
            let Some(cell) = row.scalar(position, name, IN_ORDER) else {
                return Some(false);
            };
            // Every cell but the first is led by the delimiter, written with
            // the cell in one word when both fit one.
            let lead = (position > 0).then_some(delimiter);
            if !write_cell(out, lead, cell, delimiter) {
                return Some(false);
            }
        }
        Some(true)
    }

    #[inline]
    fn keys_id(self) -> u16 {
        Node::keys_id(self)
    }

    /// The row's keys are not looked at: the parser found them to be the
    /// header's, in order.
    #[inline]
    fn write_row_of_keys(
        self,
        keys: u16,
        width: usize,
        out: &mut Out,
        delimiter: u8,
    ) -> Option<bool> {
        let row = self.flat_object()?;
        if keys == 0 || row.keys() != keys || row.len() != width {
            return None;
        }
        // The first cell apart, so that the others are led by the
        // delimiter without a check of their position.
        let mut cells = row.scalars();
        if let Some(cell) = cells.next() {
            if !write_cell(out, None, cell, delimiter) {
                return Some(false);
            }
        }
        for cell in cells {
            if !write_cell(out, Some(delimiter), cell, delimiter) {
                return Some(false);
            }
        }
        Some(true)
    }

    #[inline]
    fn write_number(self, out: &mut impl Sink) {
        if let Some(n) = self.as_number() {
            out.push_str(n.canonical());
        }
    }

    #[inline]
    fn object_len(self) -> Option<usize> {
        Node::object_len(self)
    }

    #[inline]
    fn is_container(self) -> bool {
        Node::is_container(self)
    }

    #[inline(always)]
    fn container(self) -> Option<Kind<'t>> {
        Node::container(self).map(|(is_object, len)| {
            if is_object {
                Kind::Object(len)
            } else {
                Kind::Array(len)
            }
        })
    }

    #[inline(always)]
    fn scalar(self) -> Option<Scalar<'t>> {
        Some(Node::scalar(self))
    }

    type Key = document::KeyText<'t>;

    #[inline(always)]
    fn key_bytes(key: Self::Key) -> &'t [u8] {
        key.bytes()
    }

    #[inline(always)]
    fn next_split(entries: &mut Self::RawEntries) -> Option<(Self::Key, Result<Scalar<'t>, Self>)> {
        entries.next_split()
    }

    #[inline(always)]
    fn places(self) -> u32 {
        Node::places(self)
    }

    #[inline(always)]
    fn last_place(entries: &Self::RawEntries, places: u32) -> u32 {
        entries.last_place(places)
    }

    #[inline]
    fn first_value(self) -> Option<Self> {
        Node::first_value(self)
    }

    #[inline]
    fn items(self) -> Self::Items {
        Node::items(self)
    }

    #[inline]
    fn entries(self) -> Self::Entries {
        Node::entries(self)
    }

    #[inline]
    fn raw_entries(self) -> Self::RawEntries {
        Node::raw_entries(self)
    }
}

/// Writes a table row's `cell`, led by `lead` (the delimiter, but for the
/// first cell), with the cell in one word when both fit one; `false` for a
/// container, which no row holds.
#[inline(always)]
fn write_cell(out: &mut Out, lead: Option<u8>, cell: Scalar<'_>, delimiter: u8) -> bool {
    match cell {
        Scalar::Null => out.push_bytes_led(lead, b"null"),
        Scalar::Bool(true) => out.push_bytes_led(lead, b"true"),
        Scalar::Bool(false) => out.push_bytes_led(lead, b"false"),
        Scalar::ShortNumber(word, n) => out.push_short_led(lead, word, n),
        Scalar::Number(text) => out.push_bytes_led(lead, text),
        Scalar::String(text) => write_string_bytes_led(out, lead, text, delimiter),
        Scalar::Container => return false,
    }
    true
}
