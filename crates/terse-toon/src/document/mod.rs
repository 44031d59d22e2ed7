//! A borrowed JSON document, parsed in one pass: what [`encode_json`] reads,
//! open to callers that want to look at JSON text without building a
//! `serde_json::Value`.
//!
//! A [`Document`] stores its nodes in document order in one `Vec`; an array
//! or object records its length and where its last descendant ends, so the
//! next sibling of any node is found in constant time. Strings without
//! escapes and numbers already in canonical form are slices of the input;
//! unescaped strings and re-formatted numbers live in one side buffer. There
//! is no allocation per string, object or array.
//!
//! A [`Node`] is a cheap `Copy` handle into a document. It implements
//! `serde::Serialize` (to write it back out as JSON) and
//! `serde::Deserializer` (to read a typed value from it, with the same
//! results and error messages as deserializing from a `&serde_json::Value`).
//!
//! [`encode_json`]: crate::encode_json()
//!
//! ```
//! use terse_toon::document::{Document, Kind};
//!
//! let doc = Document::parse(r#"{"id": 7, "tags": ["a", "b"], "note": "line\nbreak"}"#)?;
//! let root = doc.root();
//! assert_eq!(root.get("id").and_then(|n| n.as_number()).and_then(|n| n.as_u64()), Some(7));
//! assert_eq!(root.get("tags").map(|t| t.items().count()), Some(2));
//! assert_eq!(root.get("note").and_then(|n| n.as_str()), Some("line\nbreak"));
//! assert!(matches!(root.kind(), Kind::Object(3)));
//!
//! #[derive(serde::Deserialize)]
//! struct Record { id: u32, tags: Vec<String> }
//! let record = Record::deserialize(root)?;
//! assert_eq!((record.id, record.tags.len()), (7, 2));
//! assert_eq!(serde_json::to_string(&root)?, r#"{"id":7,"tags":["a","b"],"note":"line\nbreak"}"#);
//! # use serde::Deserialize;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod de;
mod from_value;
mod number;
mod parse;
mod ser;
pub(crate) mod validate;

#[cfg(test)]
mod tests;

use std::fmt;

use serde_json::Value;

use crate::Error;
pub use number::Number;
pub(crate) use number::NumberClass;

/// A parsed JSON document, borrowing from its text.
///
/// Parse it with [`Document::parse`] (or build one from a `serde_json::Value`
/// with [`Document::from_value`]) and walk it from [`Document::root`].
pub struct Document<'a> {
    src: &'a str,
    slots: Vec<Slot>,
    /// Unescaped strings and re-formatted numbers.
    owned: String,
    /// Whether the text had whitespace between its tokens (or may have:
    /// a document not read by the one-pass parser says it may).
    blank: bool,
    /// Whether the text has a number no `f64` holds as written.
    inexact: bool,
}

/// One node as stored: a scalar, or the head of an array or object whose
/// descendants follow it (an object's as key, value, key, value...).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    Null,
    Bool(bool),
    /// Canonical number text (TOON's, spec §2), and how `serde_json` holds it.
    Number(Text, NumberClass),
    String(Text),
    /// `end` is the index just past the last descendant.
    Array {
        len: u32,
        end: u32,
    },
    /// `keys`: an id of the object's keys, in order, when the parser
    /// could tell one without a pass of its own (0 when not): two objects
    /// of one id other than 0 and one length have the same keys in the
    /// same order, so that a table's row of its header row's id is known
    /// to hold the header's keys without a comparison. `seen`: an object
    /// before it has its id (its keys were found in that one's), so that
    /// an id worth remembering for the objects after it is one of an
    /// object seen.
    Object {
        len: u32,
        end: u32,
        keys: u16,
        seen: bool,
    },
}

impl Slot {
    /// The index just past this slot's subtree, when it sits at `idx`: its
    /// next sibling's.
    #[inline]
    pub(crate) fn after(self, idx: u32) -> u32 {
        match self {
            Slot::Array { end, .. } | Slot::Object { end, .. } => end,
            _ => idx + 1,
        }
    }
}

// The tape (reserved at a slot per 6 bytes of JSON) is 2 bytes per byte of
// JSON only at this size.
const _: () = assert!(std::mem::size_of::<Slot>() == 12);

/// Text as a range of byte offsets into one address space: the input, then
/// [`Document::owned`] (offset `input.len()` is the side buffer's first
/// byte).
///
/// Offsets rather than `&str` keep a slot at 12 bytes instead of 24: the
/// slots are the largest allocation, one per 6 to 8 bytes of JSON, so this
/// halves peak memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Text {
    start: u32,
    end: u32,
}

impl Text {
    #[inline]
    fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// The bytes of the text, given the input and the side buffer as bytes:
    /// [`resolve`](Self::resolve) without its checks that the ends are
    /// character boundaries, for comparisons of keys.
    ///
    /// The input is tried first, with one check of the range: a text that
    /// ends past the input is in the side buffer (an empty one at the
    /// input's end is empty wherever it is), which is the rare case (an
    /// escaped string, a re-formatted number).
    #[inline(always)]
    fn resolve_bytes<'s>(self, src: &'s [u8], owned: &'s [u8]) -> &'s [u8] {
        let (start, end) = (self.start as usize, self.end as usize);
        match src.get(start..end) {
            Some(text) => text,
            None => Self::in_side_buffer(start, end, src.len(), owned),
        }
    }

    /// [`resolve_bytes`](Self::resolve_bytes) of a text in the side buffer.
    #[cold]
    fn in_side_buffer(start: usize, end: usize, input: usize, owned: &[u8]) -> &[u8] {
        owned
            .get(start.wrapping_sub(input)..end.wrapping_sub(input))
            .unwrap_or_default()
    }

    /// The text itself, given the input and the side buffer.
    #[inline]
    fn resolve<'s>(self, src: &'s str, owned: &'s str) -> &'s str {
        let (buffer, start) = self.locate(src, owned);
        &buffer[start..start + self.len()]
    }

    /// The buffer the text is in (the input, or the side buffer past it)
    /// and where in it the text starts. A choice between two pairs, which
    /// compiles to conditional moves rather than a branch per buffer with
    /// its own bounds checks.
    #[inline(always)]
    fn locate<'s, T: ?Sized + AsRef<[u8]>>(self, src: &'s T, owned: &'s T) -> (&'s T, usize) {
        let (start, input) = (self.start as usize, src.as_ref().len());
        if start < input {
            (src, start)
        } else {
            (owned, start - input)
        }
    }
}

impl<'a> Document<'a> {
    /// Parses JSON text.
    ///
    /// Reads exactly what `serde_json::from_str::<serde_json::Value>` reads,
    /// with the same result: numbers are `u64`, `i64` or `f64` as
    /// `serde_json` would hold them, a repeated key keeps its last value at
    /// its first position, and nesting deeper than 127 levels is refused.
    /// Text is parsed by a one-pass parser of this crate; text it does not
    /// take on itself (invalid JSON, over 4 GiB) is left to `serde_json`.
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with `serde_json`'s message and position when the text
    /// is not valid JSON; also when text the one-pass parser leaves to
    /// `serde_json` holds more than 4 GiB of strings and numbers.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse(r#"{"a": 1, "a": 2}"#)?;
    /// assert_eq!(doc.root().to_value(), serde_json::json!({"a": 2}));
    /// assert!(Document::parse("[1, 2").is_err());
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    pub fn parse(json: &'a str) -> Result<Self, Error> {
        match Self::parse_fast(json) {
            Some(document) => Ok(document),
            None => Self::parse_slow(json),
        }
    }

    /// The one-pass parser alone: `None` for text it does not take on itself
    /// (invalid JSON, over 4 GiB).
    pub(crate) fn parse_fast(json: &'a str) -> Option<Self> {
        let (slots, owned, seen) = parse::parse(json).ok()?;
        Some(Document {
            src: json,
            slots,
            owned,
            blank: seen.blank,
            inexact: seen.inexact,
        })
    }

    /// Text the one-pass parser does not take: `serde_json` reports invalid
    /// JSON with its own message, found without building what comes
    /// before the error.
    #[cold]
    fn parse_slow(json: &str) -> Result<Self, Error> {
        validate::check(json)?;
        let value: Value = serde_json::from_str(json)?;
        let (slots, owned) = from_value::flatten(&value).ok_or_else(|| {
            Error::Json(serde::de::Error::custom(
                "the document holds more than 4 GiB of text or 4 Gi values",
            ))
        })?;
        Ok(Document {
            src: "",
            slots,
            owned,
            blank: true,
            inexact: crate::exact::has_inexact_number(json.as_bytes()),
        })
    }

    /// A document holding a copy of `value`.
    ///
    /// # Panics
    ///
    /// When `value` holds more than 4 GiB of text (strings and numbers) or
    /// 4 Gi values.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let value = serde_json::json!({"n": -1.5, "s": ["x"]});
    /// assert_eq!(Document::from_value(&value).root().to_value(), value);
    /// ```
    #[allow(
        clippy::expect_used,
        reason = "a documented panic: a value that large is already in the caller's memory, \
                  and the signature cannot become fallible without breaking callers"
    )]
    pub fn from_value(value: &Value) -> Document<'static> {
        let (slots, owned) = from_value::flatten(value)
            .expect("a document holds at most 4 GiB of text and 4 Gi values");
        Document {
            src: "",
            slots,
            owned,
            blank: true,
            // A value's numbers are what `serde_json` holds.
            inexact: false,
        }
    }

    /// Whether the text may have whitespace between its tokens, which
    /// minifying it would drop: `false` only when the text was read and
    /// has none (`{"a":[1,2]}`), so that a caller can skip minifying it.
    /// A document built from a value, or from text the one-pass parser
    /// left to `serde_json`, says `true`.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// assert!(!Document::parse(r#"{"a":[1,"b c"]}"#)?.may_have_whitespace());
    /// assert!(Document::parse(r#"{"a": [1]}"#)?.may_have_whitespace());
    /// assert!(Document::parse("[1]\n")?.may_have_whitespace());
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    pub fn may_have_whitespace(&self) -> bool {
        self.blank
    }

    /// Whether the text has a number no `f64` holds as written (see
    /// [`has_inexact_number`](crate::has_inexact_number), which this
    /// answers without a pass of its own): the document keeps its digits,
    /// but a `serde_json::Value` read from the same text would not.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// assert!(Document::parse(r#"{"id":12345678901234567890123}"#)?.has_inexact_number());
    /// assert!(!Document::parse(r#"{"id":"12345678901234567890123","n":[1.5,-2e3]}"#)?.has_inexact_number());
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    pub fn has_inexact_number(&self) -> bool {
        self.inexact
    }

    /// The root node.
    #[inline]
    pub fn root(&self) -> Node<'_> {
        Node { doc: self, idx: 0 }
    }

    #[inline]
    fn text(&self, text: Text) -> &str {
        text.resolve(self.src, &self.owned)
    }

    /// A slot as a [`Scalar`].
    #[inline(always)]
    fn scalar(&self, slot: Slot) -> Scalar<'_> {
        match slot {
            Slot::Null => Scalar::Null,
            Slot::Bool(b) => Scalar::Bool(b),
            Slot::Number(text, _) => self.number(text),
            Slot::String(text) => Scalar::String(self.text_bytes(text)),
            Slot::Array { .. } | Slot::Object { .. } => Scalar::Container,
        }
    }

    /// A number's text as a [`Scalar`]: a short one read in place as the
    /// word its text starts (one load, where its bytes put together one
    /// by one took a dozen instructions), any other as its bytes.
    #[inline(always)]
    fn number(&self, text: Text) -> Scalar<'_> {
        let n = text.len();
        if n < 8 {
            // A text that starts within the input is there whole (the
            // side buffer's offsets start past it), and the input's eight
            // bytes from there are its bytes and then what follows it.
            let word = self
                .src
                .as_bytes()
                .get(text.start as usize..)
                .and_then(<[u8]>::first_chunk::<8>);
            if let Some(word) = word {
                return Scalar::ShortNumber(u64::from_le_bytes(*word), n);
            }
        }
        Scalar::Number(self.text_bytes(text))
    }

    /// The bytes of a text, without the checks that its ends are character
    /// boundaries (they are: the parser stores whole texts).
    #[inline(always)]
    fn text_bytes(&self, text: Text) -> &[u8] {
        text.resolve_bytes(self.src.as_bytes(), self.owned.as_bytes())
    }

    /// Whether the stored `text` is `key`. Lengths are compared before the
    /// text is looked up: most keys differ in length, and this is the hot
    /// loop of template rendering. The bytes are compared without resolving
    /// the text as a `str`: equal bytes are an equal string.
    #[inline(always)]
    fn is_key(&self, text: Text, key: &str) -> bool {
        text.len() == key.len()
            && same_byte_slices(
                text.resolve_bytes(self.src.as_bytes(), self.owned.as_bytes()),
                key.as_bytes(),
            )
    }

    /// The index of the next sibling of slot `idx`.
    #[inline]
    fn after(&self, idx: u32) -> u32 {
        self.slots[idx as usize].after(idx)
    }
}

impl fmt::Debug for Document<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Document").field(&self.root()).finish()
    }
}

/// A node of a [`Document`]: a cheap handle, `Copy`.
#[derive(Clone, Copy)]
pub struct Node<'t> {
    doc: &'t Document<'t>,
    idx: u32,
}

/// What a [`Node`] is, with its data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind<'t> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number<'t>),
    /// A string, unescaped.
    String(&'t str),
    /// An array and its length.
    Array(usize),
    /// An object and its number of entries.
    Object(usize),
}

impl<'t> Node<'t> {
    #[inline]
    fn slot(self) -> Slot {
        self.doc.slots[self.idx as usize]
    }

    /// What the node is.
    // Always inlined: callers match on the result at once, and inlining lets
    // the compiler drop the text lookups a caller does not use.
    #[inline(always)]
    pub fn kind(self) -> Kind<'t> {
        self.kind_of(self.slot())
    }

    /// What the node is, given its slot (read already).
    #[inline(always)]
    pub(crate) fn kind_of(self, slot: Slot) -> Kind<'t> {
        match slot {
            Slot::Null => Kind::Null,
            Slot::Bool(b) => Kind::Bool(b),
            Slot::Number(text, class) => Kind::Number(Number::new(self.doc.text(text), class)),
            Slot::String(text) => Kind::String(self.doc.text(text)),
            Slot::Array { len, .. } => Kind::Array(len as usize),
            Slot::Object { len, .. } => Kind::Object(len as usize),
        }
    }

    /// Whether the node is `null`.
    #[inline]
    pub fn is_null(self) -> bool {
        matches!(self.slot(), Slot::Null)
    }

    /// Whether the node is an array.
    #[inline]
    pub fn is_array(self) -> bool {
        matches!(self.slot(), Slot::Array { .. })
    }

    /// Whether the node is an object.
    #[inline]
    pub fn is_object(self) -> bool {
        matches!(self.slot(), Slot::Object { .. })
    }

    /// The number of entries, when the node is an object; read from the
    /// slot alone, without looking up a text.
    #[inline]
    pub(crate) fn object_len(self) -> Option<usize> {
        match self.slot() {
            Slot::Object { len, .. } => Some(len as usize),
            _ => None,
        }
    }

    /// Whether the node is an object (`true`) or an array, and its length,
    /// when it is either; read from the slot alone, without looking up a
    /// text.
    #[inline(always)]
    pub(crate) fn container(self) -> Option<(bool, usize)> {
        match self.slot() {
            Slot::Object { len, .. } => Some((true, len as usize)),
            Slot::Array { len, .. } => Some((false, len as usize)),
            _ => None,
        }
    }

    /// The node as a [`Scalar`]: its text as bytes.
    #[inline(always)]
    pub(crate) fn scalar(self) -> Scalar<'t> {
        self.doc.scalar(self.slot())
    }

    /// Whether the node is an array or an object; read from the slot alone,
    /// without looking up a text.
    #[inline]
    pub(crate) fn is_container(self) -> bool {
        matches!(self.slot(), Slot::Array { .. } | Slot::Object { .. })
    }

    /// The value of the first entry, when the node is a non-empty object,
    /// without looking up its key: an object's first key is the slot after
    /// it, and that key's value the one after that.
    #[inline]
    pub(crate) fn first_value(self) -> Option<Node<'t>> {
        match self.slot() {
            Slot::Object { len, .. } if len > 0 => Some(Node {
                doc: self.doc,
                idx: self.idx + 2,
            }),
            _ => None,
        }
    }

    /// The string, when the node is one.
    #[inline]
    pub fn as_str(self) -> Option<&'t str> {
        match self.slot() {
            Slot::String(text) => Some(self.doc.text(text)),
            _ => None,
        }
    }

    /// The string, when the node is one that held no escape in the parsed
    /// text: it has no `"`, `\` or control character, so written between
    /// two quotes it is its own JSON, byte for byte as `serde_json` writes
    /// it. `None` for other nodes, for strings that held an escape, and for
    /// every string of a document made by [`Document::from_value`].
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse(r#"["plain","tab\tbed"]"#)?;
    /// let items: Vec<_> = doc.root().items().map(|s| s.as_unescaped_str()).collect();
    /// assert_eq!(items, [Some("plain"), None]);
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    #[inline]
    pub fn as_unescaped_str(self) -> Option<&'t str> {
        match self.slot() {
            // Strings that held an escape live in the side buffer, after
            // the input in the offsets' address space; a string read in
            // place ends before its closing quote, so strictly inside it.
            Slot::String(text) if (text.end as usize) < self.doc.src.len() => {
                Some(self.doc.text(text))
            }
            _ => None,
        }
    }

    /// The text of an integer, a number `serde_json` holds as a `u64` or an
    /// `i64`, as it was read: `serde_json` writes it the same. `None` for
    /// other nodes, floats included. Reads the node's slot once, without
    /// making a [`Number`] of it, for writers that copy an id or a count
    /// as it stands.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse(r#"[7, -3, 1.5, "7", 18446744073709551615]"#)?;
    /// let texts: Vec<_> = doc.root().items().map(|n| n.as_integer_text()).collect();
    /// assert_eq!(texts, [Some("7"), Some("-3"), None, None, Some("18446744073709551615")]);
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    #[inline]
    pub fn as_integer_text(self) -> Option<&'t str> {
        match self.slot() {
            Slot::Number(text, NumberClass::U64 | NumberClass::I64) => Some(self.doc.text(text)),
            _ => None,
        }
    }

    /// The boolean, when the node is one.
    #[inline]
    pub fn as_bool(self) -> Option<bool> {
        match self.slot() {
            Slot::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The number, when the node is one.
    #[inline]
    pub fn as_number(self) -> Option<Number<'t>> {
        match self.kind() {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The elements, in order; empty unless the node is an array.
    #[inline]
    pub fn items(self) -> Items<'t> {
        let left = match self.slot() {
            Slot::Array { len, .. } => len,
            _ => 0,
        };
        Items {
            doc: self.doc,
            next: self.idx + 1,
            left,
        }
    }

    /// The entries, in document order; empty unless the node is an object.
    #[inline]
    pub fn entries(self) -> Entries<'t> {
        let left = match self.slot() {
            Slot::Object { len, .. } => len,
            _ => 0,
        };
        Entries {
            doc: self.doc,
            next: self.idx + 1,
            left,
        }
    }

    /// [`entries`](Self::entries) with the keys as bytes, read without
    /// the checks of a `&str` (they are whole texts).
    #[inline]
    pub(crate) fn raw_entries(self) -> RawEntries<'t> {
        let left = match self.slot() {
            Slot::Object { len, .. } => len,
            _ => 0,
        };
        RawEntries {
            doc: self.doc,
            next: self.idx + 1,
            left,
        }
    }

    /// The id the parser gave the keys of the node, an object, in order
    /// (see [`Slot::Object`]); 0 for none and for any other node.
    #[inline]
    pub(crate) fn keys_id(self) -> u16 {
        match self.slot() {
            Slot::Object { keys, .. } => keys,
            _ => 0,
        }
    }

    /// The places of the entries, for [`RawEntries::last_place`]: the
    /// object's key id (see [`Slot::Object`]) above eight bits of its
    /// length, when it is an object seen of an id and fewer than 256
    /// keys; 0 for any other node.
    #[inline]
    pub(crate) fn places(self) -> u32 {
        match self.slot() {
            Slot::Object {
                len,
                keys,
                seen: true,
                ..
            } if keys != 0 && len < 256 => u32::from(keys) << 8 | len,
            _ => 0,
        }
    }

    /// The value at `key`, when the node is an object that has it.
    #[inline]
    pub fn get(self, key: &str) -> Option<Node<'t>> {
        self.find(key).map(|(_, value)| value)
    }

    /// The position of the entry at `key` (in document order) and its
    /// value, when the node is an object that has it.
    ///
    /// Records of one list mostly hold their keys in the same order, so a
    /// caller that reads the same key from each can try the position it
    /// found last time first, with [`find_from`](Self::find_from).
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse(r#"[{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]"#)?;
    /// let (position, title) = doc.root().item(0).unwrap().find("title").unwrap();
    /// assert_eq!((position, title.as_str()), (1, Some("a")));
    /// let (key, next) = doc.root().item(1).unwrap().entry(position).unwrap();
    /// assert_eq!((key, next.as_str()), ("title", Some("b")));
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    #[inline]
    pub fn find(self, key: &str) -> Option<(usize, Node<'t>)> {
        let Slot::Object { len, .. } = self.slot() else {
            return None;
        };
        let mut idx = self.idx + 1;
        for position in 0..len {
            if let Slot::String(text) = self.doc.slots[idx as usize] {
                if self.doc.is_key(text, key) {
                    let value = Node {
                        doc: self.doc,
                        idx: idx + 1,
                    };
                    return Some((position as usize, value));
                }
            }
            idx = self.doc.after(idx + 1);
        }
        None
    }

    /// [`find`](Self::find), looking at the entry at position `guess` first
    /// (where the key stood in the last record of a list, say).
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse(r#"{"id": 1, "title": "a"}"#)?;
    /// assert_eq!(doc.root().find_from("title", 1).map(|(at, _)| at), Some(1));
    /// assert_eq!(doc.root().find_from("title", 0).map(|(at, _)| at), Some(1));
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    #[inline]
    pub fn find_from(self, key: &str, guess: usize) -> Option<(usize, Node<'t>)> {
        if let Some((text, value)) = self.entry_slot(guess) {
            if self.doc.is_key(text, key) {
                return Some((guess, value));
            }
        }
        self.find(key)
    }

    /// [`find_from`](Self::find_from) for a loop that reads a few keys of
    /// each record of a list (a line template's placeholders): the entry at
    /// `guess` is looked at inline, wherever the call is, and only a wrong
    /// guess calls out to the search, so the common case costs no call.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse(r#"[{"id": 1, "title": "a"}, {"title": "b", "id": 2}]"#)?;
    /// let mut at = 0;
    /// let mut titles = Vec::new();
    /// for record in doc.root().items() {
    ///     let (found, title) = record.find_hinted("title", at).unwrap();
    ///     at = found;
    ///     titles.push((found, title.as_str()));
    /// }
    /// assert_eq!(titles, [(1, Some("a")), (0, Some("b"))]);
    /// // Not an object: nothing to find.
    /// assert!(doc.root().find_hinted("title", 0).is_none());
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    #[inline(always)]
    pub fn find_hinted(self, key: &str, guess: usize) -> Option<(usize, Node<'t>)> {
        if let Some((text, value)) = self.entry_slot(guess) {
            if self.doc.is_key(text, key) {
                return Some((guess, value));
            }
        }
        self.find_elsewhere(key)
    }

    /// [`find`](Self::find) out of line, for a guess that was wrong.
    #[inline(never)]
    fn find_elsewhere(self, key: &str) -> Option<(usize, Node<'t>)> {
        self.find(key)
    }

    /// The key and value of the entry at `position` (in document order),
    /// when the node is an object that long.
    ///
    /// One step when every value of the object is a scalar (its slots are
    /// then key, value, key, value...); otherwise a walk over the entries
    /// before it, which skips nested values whole.
    #[inline]
    pub fn entry(self, position: usize) -> Option<(&'t str, Node<'t>)> {
        self.entry_slot(position)
            .map(|(key, value)| (self.doc.text(key), value))
    }

    /// [`entry`](Self::entry), with the key as stored.
    #[inline]
    fn entry_slot(self, position: usize) -> Option<(Text, Node<'t>)> {
        let Slot::Object { len, end, .. } = self.slot() else {
            return None;
        };
        let position = u32::try_from(position).ok().filter(|&p| p < len)?;
        // In u64: `2 * len` may not fit a u32 in a document near its limit.
        let flat = u64::from(end) == u64::from(self.idx) + 1 + 2 * u64::from(len);
        let key = if flat {
            self.idx + 1 + 2 * position
        } else {
            (0..position).fold(self.idx + 1, |key, _| self.doc.after(key + 1))
        };
        match self.doc.slots[key as usize] {
            Slot::String(text) => Some((
                text,
                Node {
                    doc: self.doc,
                    idx: key + 1,
                },
            )),
            // Every key is a string slot.
            _ => None,
        }
    }

    /// The node as a [`FlatObject`], when it is an object whose every
    /// value takes one slot: a scalar (or an empty array or object).
    #[inline(always)]
    pub(crate) fn flat_object(self) -> Option<FlatObject<'t>> {
        let Slot::Object { len, end, keys, .. } = self.slot() else {
            return None;
        };
        let first = self.idx as usize + 1;
        // In u64: `2 * len` may not fit a u32 in a document near its limit.
        if u64::from(end) != first as u64 + 2 * u64::from(len) {
            return None;
        }
        Some(FlatObject {
            doc: self.doc,
            first: self.idx + 1,
            slots: self.doc.slots.get(first..end as usize)?,
            keys,
        })
    }

    /// The element at `index`, when the node is an array that long.
    #[inline]
    pub fn item(self, index: usize) -> Option<Node<'t>> {
        self.items().nth(index)
    }

    /// A `serde_json::Value` with the same data.
    ///
    /// The arrays and objects being built are kept on a heap stack, not the
    /// call stack, however deep the document.
    pub fn to_value(self) -> Value {
        let mut open: Vec<Open<'t>> = Vec::new();
        let mut node = self;
        loop {
            let mut done = match node.kind() {
                Kind::Null => Some(Value::Null),
                Kind::Bool(b) => Some(Value::Bool(b)),
                Kind::Number(n) => Some(Value::Number(n.to_json())),
                Kind::String(s) => Some(Value::String(s.to_owned())),
                Kind::Array(len) => {
                    open.push(Open::Array(Vec::with_capacity(len), node.items()));
                    None
                }
                Kind::Object(_) => {
                    open.push(Open::Object(
                        serde_json::Map::new(),
                        node.entries(),
                        String::new(),
                    ));
                    None
                }
            };
            // Hand finished values to their containers until one has a
            // child left to build.
            node = loop {
                let Some(top) = open.last_mut() else {
                    // The root is finished (only a finished value leaves
                    // the stack empty).
                    return done.unwrap_or(Value::Null);
                };
                if let Some(value) = done.take() {
                    match top {
                        Open::Array(items, _) => items.push(value),
                        Open::Object(map, _, key) => {
                            map.insert(std::mem::take(key), value);
                        }
                    }
                }
                let next = match top {
                    Open::Array(_, items) => items.next(),
                    Open::Object(_, entries, key) => entries.next().map(|(k, v)| {
                        *key = k.to_owned();
                        v
                    }),
                };
                if let Some(next) = next {
                    break next;
                }
                done = match open.pop() {
                    Some(Open::Array(items, _)) => Some(Value::Array(items)),
                    Some(Open::Object(map, _, _)) => Some(Value::Object(map)),
                    None => None,
                };
            };
        }
    }
}

/// An array or object [`Node::to_value`] is building: what it holds so
/// far, the children left, and (an object's) the key of the child being
/// built.
enum Open<'t> {
    Array(Vec<Value>, Items<'t>),
    Object(serde_json::Map<String, Value>, Entries<'t>, String),
}

/// Whether two strings are equal. Keys are short, and comparing them a word
/// at a time inline is faster than a call to `memcmp` per key: whole words,
/// then the last word (or half word) again, overlapping what was compared,
/// so no byte is left to a loop of its own.
#[inline]
pub(crate) fn same_bytes(a: &str, b: &str) -> bool {
    same_byte_slices(a.as_bytes(), b.as_bytes())
}

/// [`same_bytes`] of byte strings.
#[inline]
fn same_byte_slices(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map(u64::from_ne_bytes)
    };
    let half = |s: &[u8], at: usize| {
        s.get(at..at + 4)
            .and_then(|w| w.try_into().ok())
            .map(u32::from_ne_bytes)
    };
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => {
            let mut at = 0;
            while at + 8 < n {
                if word(a, at) != word(b, at) {
                    return false;
                }
                at += 8;
            }
            word(a, n - 8) == word(b, n - 8)
        }
    }
}

/// An object whose every value takes one slot, so its slots run key, value,
/// key, value...: the entry at any position is one step away. The rows of
/// a table of primitives are such objects; reading each row's cells at the
/// positions of the header's fields (where records of one list nearly
/// always hold them) costs one comparison of a key per cell.
#[derive(Clone, Copy)]
pub(crate) struct FlatObject<'t> {
    doc: &'t Document<'t>,
    /// The slot index of the first key.
    first: u32,
    /// The object's slots, keys and values in turn.
    slots: &'t [Slot],
    /// The id of its keys (see [`Slot::Object`]).
    keys: u16,
}

impl<'t> FlatObject<'t> {
    /// The number of entries.
    #[inline(always)]
    pub(crate) fn len(self) -> usize {
        self.slots.len() / 2
    }

    /// The id the parser gave the object's keys, in order (see
    /// [`Slot::Object`]); 0 for none. A table's row of its header row's
    /// id and length holds the header's keys in place, and its cells are
    /// read by position alone ([`scalars`](Self::scalars)).
    #[inline(always)]
    pub(crate) fn keys(self) -> u16 {
        self.keys
    }

    /// The values, in order, as [`Scalar`]s: no key is looked at.
    #[inline(always)]
    pub(crate) fn scalars(self) -> impl Iterator<Item = Scalar<'t>> {
        self.slots.chunks_exact(2).map(move |entry| match *entry {
            [_, value] => self.doc.scalar(value),
            // `chunks_exact(2)` hands out pairs only.
            _ => Scalar::Container,
        })
    }

    /// The value at `key` and its slot: the entry at `position` is tried
    /// first, then (unless `in_place`) every entry.
    #[inline(always)]
    pub(crate) fn value(
        self,
        position: usize,
        key: &str,
        in_place: bool,
    ) -> Option<(Node<'t>, Slot)> {
        let at = self.locate(position, key, in_place)?;
        let slot = *self.slots.get(at)?;
        Some((
            Node {
                doc: self.doc,
                // `at` is within the slots, whose indexes are u32.
                idx: self.first + at as u32,
            },
            slot,
        ))
    }

    /// The value at `key` as a [`Scalar`], found as [`value`](Self::value)
    /// finds it: what a table's cell writes, its text as bytes.
    #[inline(always)]
    pub(crate) fn scalar(self, position: usize, key: &str, in_place: bool) -> Option<Scalar<'t>> {
        let at = self.locate(position, key, in_place)?;
        Some(self.doc.scalar(*self.slots.get(at)?))
    }

    /// The position in `slots` of the value at `key`: the entry at
    /// `position` is tried first, then (unless `in_place`) every entry.
    #[inline(always)]
    fn locate(self, position: usize, key: &str, in_place: bool) -> Option<usize> {
        // Positions of slots, not slots, come back from the lookups: an
        // index travels in a register, where an optional slot went through
        // memory.
        match self.value_at(position, key) {
            Some(at) => Some(at),
            None if in_place => None,
            None => self.find(key),
        }
    }

    /// The position in `slots` of the value of the entry at `position`,
    /// when that entry's key is `key`.
    #[inline(always)]
    fn value_at(self, position: usize, key: &str) -> Option<usize> {
        let at = position.checked_mul(2)?;
        match self.slots.get(at)? {
            &Slot::String(text) if self.doc.is_key(text, key) => Some(at + 1),
            _ => None,
        }
    }

    /// [`value_at`](Self::value_at) of the entry whose key is `key`,
    /// wherever it stands.
    #[inline(never)]
    fn find(self, key: &str) -> Option<usize> {
        (0..self.len()).find_map(|position| self.value_at(position, key))
    }
}

/// A value of a [`FlatObject`] as a table's cell writes it: a scalar with
/// its text as bytes, which a writer into a byte buffer checked as UTF-8 at
/// its end copies without the checks that the ends of a `&str` are
/// character boundaries (the text is whole text of the document either
/// way).
#[derive(Clone, Copy)]
pub(crate) enum Scalar<'t> {
    Null,
    Bool(bool),
    /// The canonical text (TOON's, spec §2).
    Number(&'t [u8]),
    /// The canonical text of a number of at most seven bytes (the count),
    /// in the low bytes of a word; above it, bytes that follow it in the
    /// input, which a writer stores past its text, to be overwritten.
    ShortNumber(u64, usize),
    /// The unescaped text.
    String(&'t [u8]),
    /// An empty array or object: no scalar.
    Container,
}

/// Compact JSON, as `serde_json` writes it.
impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_string(self) {
            Ok(json) => f.write_str(&json),
            Err(_) => Err(fmt::Error),
        }
    }
}

/// The elements of an array node; see [`Node::items`].
#[derive(Clone)]
pub struct Items<'t> {
    doc: &'t Document<'t>,
    next: u32,
    left: u32,
}

impl<'t> Iterator for Items<'t> {
    type Item = Node<'t>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let idx = self.next;
        self.next = self.doc.after(idx);
        Some(Node { doc: self.doc, idx })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// The entries of an object node; see [`Node::entries`].
#[derive(Clone)]
pub struct Entries<'t> {
    doc: &'t Document<'t>,
    next: u32,
    left: u32,
}

impl<'t> Iterator for Entries<'t> {
    type Item = (&'t str, Node<'t>);

    // Always inlined: a table's rows read every cell through it.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = match self.doc.slots[self.next as usize] {
            Slot::String(text) => self.doc.text(text),
            _ => "",
        };
        let idx = self.next + 1;
        self.next = self.doc.after(idx);
        Some((key, Node { doc: self.doc, idx }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// A key of an object node as [`RawEntries::next_split`] hands it out:
/// its text is looked up in the document only when its bytes are asked
/// for, which a writer that knows the key by its place does not.
#[derive(Clone, Copy)]
pub(crate) struct KeyText<'t> {
    doc: &'t Document<'t>,
    /// Empty for a slot that is no string (never: every key is one).
    text: Text,
}

impl<'t> KeyText<'t> {
    /// The key's bytes (whole text).
    #[inline(always)]
    pub(crate) fn bytes(self) -> &'t [u8] {
        self.doc.text_bytes(self.text)
    }
}

/// The entries of an object node with their keys as bytes; see
/// [`Node::raw_entries`].
pub(crate) struct RawEntries<'t> {
    doc: &'t Document<'t>,
    next: u32,
    left: u32,
}

impl<'t> RawEntries<'t> {
    /// The next entry, its key as bytes and its value as a [`Scalar`]
    /// (null, a boolean, a number or a string: its text as bytes) or, when
    /// it is an array or an object, empty or not, as a node: the key's and
    /// the value's slots read once, and a scalar's next sibling found
    /// without a look at its slot again (a scalar takes one slot).
    #[inline(always)]
    pub(crate) fn next_split(&mut self) -> Option<(KeyText<'t>, Result<Scalar<'t>, Node<'t>>)> {
        if self.left == 0 {
            return None;
        }
        let at = self.next as usize;
        // Every key is followed by its value.
        let [key, value] = *self.doc.slots.get(at..)?.first_chunk::<2>()?;
        self.left -= 1;
        let key = KeyText {
            doc: self.doc,
            text: match key {
                Slot::String(text) => text,
                // Every key is a string slot.
                _ => Text { start: 0, end: 0 },
            },
        };
        let idx = self.next + 1;
        match self.doc.scalar(value) {
            Scalar::Container => {
                self.next = value.after(idx);
                Some((key, Err(Node { doc: self.doc, idx })))
            }
            scalar => {
                // Past a key and its scalar: a wrap (of an index past the
                // last slot of a document of 4 Gi slots) comes only after
                // the object's last entry, where `left` is 0.
                self.next = self.next.wrapping_add(2);
                Some((key, Ok(scalar)))
            }
        }
    }

    /// The place of the entry taken last, given the object's
    /// [`places`](Node::places) (not 0): its key id above eight bits of
    /// the entry's position. Entries of one place have one key.
    #[inline(always)]
    pub(crate) fn last_place(&self, places: u32) -> u32 {
        // Below the length, in the eight low bits, once an entry is taken.
        places.wrapping_sub(self.left).wrapping_sub(1)
    }
}

impl<'t> Iterator for RawEntries<'t> {
    type Item = (&'t [u8], Node<'t>);

    // Always inlined: every field of an object written is read through it.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = match self.doc.slots.get(self.next as usize) {
            Some(&Slot::String(text)) => self.doc.text_bytes(text),
            _ => &[],
        };
        let idx = self.next + 1;
        self.next = self.doc.after(idx);
        Some((key, Node { doc: self.doc, idx }))
    }
}
