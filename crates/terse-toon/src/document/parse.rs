//! A one-pass JSON parser into a flat, borrowed document (a "tape").
//!
//! Nodes are stored in document order in one `Vec`; an array or object node
//! records its length and the index just past its last descendant, so the
//! next sibling of any node is found in constant time. Strings without
//! escapes and numbers already in canonical form are slices of the input;
//! unescaped strings and re-formatted numbers live in one side buffer.
//! Open arrays and objects are frames on an explicit stack, so nesting
//! costs heap, never call stack.
//!
//! The parser accepts exactly what `serde_json::from_str::<Value>` accepts
//! and produces the same data: numbers are read the way `serde_json` reads
//! them (an `f64` outside the `u64`/`i64` ranges), and nesting deeper than
//! `serde_json`'s limit is refused. A key repeated in an object keeps its
//! first position and its last value, as `serde_json` keeps it. Invalid
//! input is reported as [`Bail`] so the caller can have `serde_json` say
//! what is wrong with it.

use super::{NumberClass, Slot, Text};
use crate::encode::number;
use crate::words::HIGH;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};
use std::str::FromStr;

/// Keys of one object checked for repeats through the 128-bit filter; past
/// them, through a hash set.
const KEYS_BY_FILTER: usize = 32;

#[cfg(test)]
thread_local! {
    /// How many times a key was compared with all the earlier keys of its
    /// object, on this thread: the tests hold it to linear work.
    pub(super) static KEY_SCANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The deepest nesting of arrays and objects `serde_json` accepts.
const MAX_DEPTH: usize = 127;

/// The input is not handled on the fast path (invalid, too deep, or over
/// 4 GiB); `serde_json` decides what it is.
#[derive(Debug)]
pub(super) struct Bail;

type Parsed<T> = Result<T, Bail>;

/// What [`parse`] read besides the slots and the side buffer.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Seen {
    /// Whitespace between tokens (which minifying the text would drop).
    pub(super) blank: bool,
    /// A number no `f64` holds as written
    /// ([`number_is_exact`](crate::exact::number_is_exact) refuses it).
    pub(super) inexact: bool,
}

/// Parses `json` into its slots and side buffer, and says what else it saw.
pub(super) fn parse(json: &str) -> Parsed<(Vec<Slot>, String, Seen)> {
    // Positions are stored as u32.
    if json.len() >= u32::MAX as usize {
        return Err(Bail);
    }
    let mut parser = Parser {
        src: json,
        bytes: json.as_bytes(),
        // Records of short values run 6.5 to 8.5 bytes of JSON a node;
        // one slot per 6 bytes spares them the copy of a growing tape (12
        // bytes a slot: 2 bytes a byte of JSON, the untouched rest of a
        // large reservation never paged in). From the text's length only.
        nodes: Vec::with_capacity(json.len() / 6 + 4),
        owned: String::new(),
        repeats: Vec::new(),
        inexact: false,
        runs: 0,
        keeping: true,
        misses: 0,
        retry_at: 0,
        hashed: Vec::new(),
        known: [KnownKey::NONE; KNOWN_KEYS],
        entries: [KnownEntry::NONE; 2 * KNOWN_KEYS],
    };
    let mut blank = false;
    let end = parser.value(&mut blank)?;
    if end != json.len() {
        return Err(Bail);
    }
    let seen = Seen {
        blank,
        inexact: parser.inexact,
    };
    Ok((parser.nodes, parser.owned, seen))
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    nodes: Vec<Slot>,
    owned: String,
    /// Repeated keys of the objects being parsed (a stack): (first
    /// occurrence, repeat), key node indexes. An object's are the ones
    /// past its node index: those of the objects around it were read
    /// before it, and those of the ones within it are resolved at their
    /// close.
    repeats: Vec<(u32, u32)>,
    /// A number no `f64` holds as written was read: found where such
    /// numbers already leave the fast path, so that the callers that would
    /// read the text into a `serde_json::Value` need no scan of their own.
    inexact: bool,
    /// The last run of entry heads given out ([`KnownEntry::run`]).
    runs: u32,
    /// Whether the objects opened look for their heads in
    /// [`entries`](Self::entries) and keep them there. Keys that differ
    /// from object to object (a map keyed by ids) are not found kept, and
    /// keeping them costs more than scanning them: past about one head in
    /// four missed (`misses`, against the slots read, after a start),
    /// objects stop looking until the document has grown fourfold
    /// (`retry_at`), then try again.
    keeping: bool,
    misses: usize,
    retry_at: usize,
    /// The keys' hashes of the open objects past `KEYS_BY_FILTER` keys,
    /// innermost last, each with its object's node index: there the
    /// filter is full and comparing each key with the earlier ones would
    /// make the object quadratic, so they go in a set (keyed per process,
    /// so no input can make them collide). Here, not in the frames, as it
    /// is rare: the frames of the many small objects stay small.
    hashed: Vec<(
        u32,
        RandomState,
        HashSet<u64, BuildHasherDefault<Prehashed>>,
    )>,
    /// Short keys read lately, by where they stood: the records of a
    /// list mostly repeat their keys in order, so a key is first compared
    /// with the one at its position in the last object read in the same
    /// place (see [`Frame::keys`]), a masked word compare in place of its
    /// scan and hash.
    known: [KnownKey; KNOWN_KEYS],
    /// Entry heads read lately, by where they stood (the slots of
    /// [`known`](Self::known)): the bytes from the end of the value before
    /// a key (or from the object's `{`) to the start of the key's value,
    /// comma, key, colon and the whitespace between them, as read. A head
    /// that repeats them byte for byte is read as they were, in one
    /// masked compare of two words, with no scan of its separator, key or
    /// colon of its own. The heads of first keys (no comma) have slots of
    /// their own, past the others: a head of one kind never stands for
    /// the other, where it would let a missing or stray comma through.
    entries: [KnownEntry; 2 * KNOWN_KEYS],
}

/// The bytes of an entry's head as a [`Parser::entries`] slot keeps
/// them: `words` are the head's first 16 bytes with the bytes past it
/// masked off by `masks`, `len` its length, the key at
/// `key_start..key_end` of it (plain: no escape), `hash` the key's
/// [`key_hash`]. The empty slot's mask takes any bytes to 0, which its
/// first word (1) never is.
///
/// `run` says which object's keys the head stands in: an object whose
/// first head is found with a run finds its next heads in that run while
/// they are there. The heads of one run are stamped by one object, at its
/// first 32 positions (the slots of which are distinct), while its keys
/// are distinct: an object whose keys are all found in one run, in order,
/// has distinct keys too, and skips the repeat filter for them. Any other
/// head (there being none, its run another, its key read afresh) ends
/// the chain: the filter is then filled with the keys so far.
#[derive(Clone, Copy)]
struct KnownEntry {
    words: [u64; 2],
    masks: [u64; 2],
    hash: u32,
    run: u32,
    key_start: u8,
    key_end: u8,
    len: u8,
}

impl KnownEntry {
    const NONE: Self = KnownEntry {
        words: [1, 0],
        masks: [0, 0],
        hash: 0,
        run: NO_RUN,
        key_start: 0,
        key_end: 0,
        len: 0,
    };
}

/// Slots of [`Parser::known`].
const KNOWN_KEYS: usize = 64;

/// A short plain key as read with its colon: the word those bytes start
/// (`word`, the bytes past them masked off by `mask`, its lowest bit
/// flipped), its length and its [`key_hash`]. The flip lets the empty
/// slot be all zeros (a table cheap to clear), which no word matches: its
/// mask takes any word to 0, flipped to 1.
#[derive(Clone, Copy)]
struct KnownKey {
    word: u64,
    mask: u64,
    len: u32,
    hash: u32,
}

impl KnownKey {
    const NONE: Self = KnownKey {
        word: 0,
        mask: 0,
        len: 0,
        hash: 0,
    };
}

/// An array or object being parsed. The innermost is a local of the main
/// loop, so that reading its values touches the stack only to open or
/// close a container; the ones around it wait on an explicit stack (no
/// recursion on the input's nesting).
#[derive(Clone, Copy)]
struct Frame {
    /// Node index of the array or object.
    at: u32,
    /// The elements or entries read so far.
    len: u32,
    /// The closing bracket: `]` or `}`.
    close: u8,
    /// Where an object's keys start in [`Parser::known`]: from its depth
    /// and its place in its parent (the entry's position in an object, any
    /// element of an array), so that the records of one list share their
    /// slots and the objects within them have others.
    keys: u8,
    /// An object whose heads are looked for in [`Parser::entries`] and
    /// kept there (see [`Parser::keeping`]); never an array.
    heads: bool,
    /// The object's keys so far stand, in order, in the slots of
    /// [`Parser::entries`] stamped with this run, and the filter lacks
    /// them (see [`Frame::run`]).
    chained: bool,
    /// An object's run of entry heads ([`KnownEntry::run`]): while
    /// `chained`, the run its keys so far were all found in; otherwise
    /// the run its own heads are stamped with, or [`PLAIN`] (none).
    run: u32,
    /// An object's 128-bit filter (two words) over a cheap key hash: only
    /// a key whose bit is already set is compared with the earlier keys.
    seen: [u64; 2],
}

/// The run of a frame that stamps no heads ([`Frame::run`]); no head has
/// it, as runs are counted from 1 per object (below 2^31 of them: an
/// object takes two bytes of the text, which is below 4 GiB).
const PLAIN: u32 = u32::MAX;

/// The run of a head that stands in none ([`KnownEntry::run`]).
const NO_RUN: u32 = 0;

impl Frame {
    #[inline(always)]
    fn new(at: u32, close: u8, keys: u8, heads: bool) -> Self {
        Frame {
            at,
            len: 0,
            close,
            keys,
            heads,
            chained: false,
            run: PLAIN,
            seen: [0; 2],
        }
    }

    #[inline(always)]
    fn is_object(&self) -> bool {
        self.close == b'}'
    }
}

/// Skips whitespace from `pos`; returns the position of the next token
/// (or the input length) and notes in `blank` whether it skipped any, so
/// that a caller weighing the text minified knows for free whether
/// minifying drops anything. Most calls find none (a byte above the space
/// is the next token) or a single space (`", "`, `": "`), so those two are
/// checked before the loop.
#[inline(always)]
fn skip_whitespace(bytes: &[u8], pos: usize, blank: &mut bool) -> usize {
    match bytes.get(pos) {
        Some(&b) if b > b' ' => pos,
        Some(b' ') if bytes.get(pos + 1).is_some_and(|&b| b > b' ') => {
            *blank = true;
            pos + 1
        }
        _ => whitespace_end(bytes, pos, blank),
    }
}

/// [`skip_whitespace`] past its fast paths: a line break and the
/// next line's indent (the whitespace of indented JSON) are compared
/// eight bytes at a time; anything else a byte at a time.
#[inline(never)]
fn whitespace_end(bytes: &[u8], from: usize, blank: &mut bool) -> usize {
    const SPACES: u64 = 0x2020_2020_2020_2020;
    // A line break, then spaces.
    const LINE: u64 = 0x2020_2020_2020_200A;
    let mut pos = from;
    let mut expected = match bytes.get(pos) {
        Some(b'\n') => LINE,
        _ => SPACES,
    };
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let other = word(chunk) ^ expected;
        if other != 0 {
            pos += (other.trailing_zeros() / 8) as usize;
            break;
        }
        expected = SPACES;
        pos += 8;
    }
    // The rest: other whitespace, or the input's last bytes.
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = bytes.get(pos) {
        pos += 1;
    }
    *blank |= pos != from;
    pos
}

/// The slot of [`Parser::entries`] of the next entry of `object`: its
/// first's (`FIRST`) or a later one's.
#[inline(always)]
fn entry_slot<const FIRST: bool>(object: &Frame) -> usize {
    let slot = (object.keys as usize + object.len as usize) % KNOWN_KEYS;
    match FIRST {
        true => KNOWN_KEYS + slot,
        false => slot,
    }
}

/// Eight bytes as a little-endian word (the first byte lowest).
#[inline(always)]
fn word(chunk: &[u8]) -> u64 {
    chunk
        .first_chunk::<8>()
        .map_or(0, |bytes| u64::from_le_bytes(*bytes))
}

impl<'a> Parser<'a> {
    /// Parses one value, with all it contains, and the whitespace after
    /// it; returns the position after them. The container being read is
    /// a local [`Frame`], the ones around it on a stack; values are read
    /// in one loop, which touches the stack only to open or close a
    /// container.
    fn value(&mut self, blank: &mut bool) -> Parsed<usize> {
        let bytes = self.bytes;
        // Deep enough for most documents without growing.
        let mut stack: Vec<Frame> = Vec::with_capacity(8);
        // The innermost open container; a placeholder while the stack is
        // empty (the containers open are the stack's length: the
        // placeholder and the ones around the innermost are on it).
        //
        // The placeholder closes on a comma, which no container does: a
        // comma right after the top-level value takes it to the close
        // (and the pop of an empty stack, which refuses the text), so
        // that the end of the top-level value needs no test of its own
        // after each value.
        let mut top = Frame::new(0, b',', 0, false);
        let mut pos = skip_whitespace(bytes, 0, blank);
        'value: loop {
            // A value starts at `pos`. In an object whose heads are kept,
            // its scalar values and the kept heads between them are read
            // in a loop of their own, which stops before any other value
            // and after a value not followed by a kept head.
            let read = top.heads && {
                let (next, read) = self.entries(bytes, pos, &mut top)?;
                pos = next;
                read
            };
            if !read {
                match bytes.get(pos) {
                    Some(b'{') => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(Bail);
                        }
                        let at = self.nodes.len() as u32;
                        let open = pos + 1;
                        // A key's quote is the usual first byte: no whitespace
                        // to skip, no end to look for.
                        let empty = match bytes.get(open) {
                            Some(b'"') => {
                                pos = open;
                                false
                            }
                            _ => {
                                pos = skip_whitespace(bytes, open, blank);
                                bytes.get(pos) == Some(&b'}')
                            }
                        };
                        if empty {
                            pos += 1;
                            self.nodes.push(Slot::Object {
                                len: 0,
                                end: at + 1,
                                keys: 0,
                                seen: false,
                            });
                        } else {
                            self.nodes.push(Slot::Object {
                                len: 0,
                                end: 0,
                                keys: 0,
                                seen: false,
                            });
                            let place = match top.is_object() {
                                true => top.len + 1,
                                false => 0,
                            };
                            let depth = stack.len() as u32;
                            let keys = (depth << 3 ^ place).wrapping_mul(0x9E37_79B9) >> 26;
                            // Copied from where it is, not moved through
                            // a temporary as `push(top)` compiles to.
                            stack.extend_from_slice(std::slice::from_ref(&top));
                            top = Frame::new(at, b'}', keys as u8, self.keeping);
                            let found = match top.heads {
                                true => self.known_entry::<true>(bytes, open, &mut top),
                                false => None,
                            };
                            pos = match found {
                                Some(value) => value,
                                None => self.key::<true>(bytes, open, pos, &mut top, blank)?,
                            };
                            continue 'value;
                        }
                    }
                    Some(b'[') => {
                        if stack.len() >= MAX_DEPTH {
                            return Err(Bail);
                        }
                        let at = self.nodes.len() as u32;
                        pos = skip_whitespace(bytes, pos + 1, blank);
                        if bytes.get(pos) == Some(&b']') {
                            pos += 1;
                            self.nodes.push(Slot::Array {
                                len: 0,
                                end: at + 1,
                            });
                        } else {
                            self.nodes.push(Slot::Array { len: 0, end: 0 });
                            stack.push(top);
                            top = Frame::new(at, b']', 0, false);
                            continue 'value;
                        }
                    }
                    // Whitespace between an entry's head read as kept (which
                    // ends where its value started when it was kept) and the
                    // value.
                    Some(b' ' | b'\n' | b'\r' | b'\t') => {
                        pos = skip_whitespace(bytes, pos, blank);
                        continue 'value;
                    }
                    // A string, number or literal, or nothing valid.
                    _ => match self.scalar(bytes, pos)? {
                        Some(next) => pos = next,
                        None => return Err(Bail),
                    },
                }
            }
            // A value is read whole: the next one of its container, or the
            // container's end (a value of the container around it).
            loop {
                top.len += 1;
                // Minified and Python-spaced text has the comma or the
                // container's end right after the value: looked for there
                // first, with no skip of whitespace.
                let head = pos;
                let closed = match bytes.get(pos) {
                    Some(b',') if top.heads => {
                        // The next entry of an object, when its head
                        // repeats the one read last in its place.
                        if let Some(value) = self.known_entry::<false>(bytes, pos, &mut top) {
                            pos = value;
                            continue 'value;
                        }
                        false
                    }
                    Some(&b) => b == top.close,
                    None => false,
                };
                if !closed {
                    pos = skip_whitespace(bytes, pos, blank);
                    match bytes.get(pos) {
                        Some(b',') if !stack.is_empty() => {
                            pos = skip_whitespace(bytes, pos + 1, blank);
                            if top.is_object() {
                                pos = self.key::<false>(bytes, head, pos, &mut top, blank)?;
                            }
                            continue 'value;
                        }
                        Some(&b) if b == top.close => {}
                        // The end of the top-level value.
                        None if stack.is_empty() => return Ok(pos),
                        _ => return Err(Bail),
                    }
                }
                match top.is_object() {
                    true => self.close_object(&top),
                    false => self.close_array(top.at, top.len),
                }
                pos += 1;
                top = stack.pop().ok_or(Bail)?;
            }
        }
    }

    /// Reads the values of `object` (an object whose heads are kept)
    /// from `pos` on while they are strings, numbers or literals, each
    /// followed by a kept head ([`known_entry`](Self::known_entry)).
    /// Returns where it stopped and whether a value was read there whole
    /// (not yet counted in the object's length), rather than one not
    /// read (an array or object, whitespace, anything invalid) starting.
    ///
    /// Out of line, with few values live: records of scalars spend most
    /// of their reading here, where the main loop's many paths do not
    /// crowd its registers.
    #[inline(always)]
    fn entries(
        &mut self,
        bytes: &'a [u8],
        mut pos: usize,
        object: &mut Frame,
    ) -> Parsed<(usize, bool)> {
        loop {
            match self.scalar(bytes, pos)? {
                Some(next) => pos = next,
                None => return Ok((pos, false)),
            }
            // The next entry when its head is kept, in the run of the
            // object's keys so far: what `known_entry` finds first, read
            // here with no more than it needs. Any other head is left to
            // the main loop (which looks it up again).
            if bytes.get(pos) != Some(&b',') {
                return Ok((pos, true));
            }
            let Some(chunk) = bytes.get(pos..pos + 16) else {
                return Ok((pos, true));
            };
            let known =
                &self.entries[(object.keys as usize + object.len as usize + 1) % KNOWN_KEYS];
            let first = word(chunk);
            let second = chunk.get(8..).map_or(0, word);
            if ((first & known.masks[0]) ^ known.words[0])
                | ((second & known.masks[1]) ^ known.words[1])
                != 0
                || known.run != object.run
            {
                return Ok((pos, true));
            }
            let key = Text {
                start: (pos + usize::from(known.key_start)) as u32,
                end: (pos + usize::from(known.key_end)) as u32,
            };
            pos += usize::from(known.len);
            object.len += 1;
            self.nodes.push(Slot::String(key));
        }
    }

    /// Reads the string, number or literal starting at `pos`, if one
    /// does: where it ends, or `None` for any other byte (a container,
    /// whitespace, anything invalid), left to the caller.
    #[inline(always)]
    fn scalar(&mut self, bytes: &'a [u8], pos: usize) -> Parsed<Option<usize>> {
        Ok(Some(match bytes.get(pos) {
            Some(b'"') => {
                let (text, next) = self.string(bytes, pos + 1)?;
                self.nodes.push(Slot::String(text));
                next
            }
            Some(b'-' | b'0'..=b'9') => self.number(bytes, pos)?,
            Some(b't') => self.literal(bytes, pos, b"true", Slot::Bool(true))?,
            Some(b'f') => self.literal(bytes, pos, b"false", Slot::Bool(false))?,
            Some(b'n') => self.literal(bytes, pos, b"null", Slot::Null)?,
            _ => return Ok(None),
        }))
    }

    /// Reads the literal `word` starting at `pos` as `node`; returns the
    /// position after it.
    #[inline(always)]
    fn literal(&mut self, bytes: &[u8], pos: usize, word: &[u8], node: Slot) -> Parsed<usize> {
        if bytes.get(pos..pos + word.len()) == Some(word) {
            self.nodes.push(node);
            Ok(pos + word.len())
        } else {
            Err(Bail)
        }
    }

    /// Records the length and end of the array at `at`, parsed whole.
    fn close_array(&mut self, at: u32, len: u32) {
        let end = self.nodes.len() as u32;
        self.nodes[at as usize] = Slot::Array { len, end };
    }

    /// Records the length and end of `object`, parsed whole, once its
    /// repeated keys (past its node index on the repeat stack) are
    /// resolved, and the id of its keys from its run of entry heads.
    ///
    /// An object's run at its close stands for its keys: one that stamped
    /// its heads and kept its run stamped a head at each of its positions
    /// (a head not kept ends the chain of any object after it there, and
    /// a repeated key or a 33rd makes the run [`PLAIN`]), and one still
    /// chained found each of its keys, in order, in a head that run
    /// stamped at that position (the key's bytes compared whole). Two
    /// objects of one run and one length therefore hold the same keys in
    /// the same order. Runs are never reused; the first 65 535 are ids of
    /// their own ([`Slot::Object`]), the rest and [`PLAIN`] none (0). An
    /// object still chained was seen: another has its id.
    fn close_object(&mut self, object: &Frame) {
        let (at, mut len) = (object.at, object.len);
        if len as usize > KEYS_BY_FILTER
            && self.hashed.last().is_some_and(|&(object, ..)| object == at)
        {
            self.hashed.pop();
        }
        if self.repeats.last().is_some_and(|&(_, repeat)| repeat > at) {
            let start = self.repeats.partition_point(|&(_, repeat)| repeat < at);
            let repeats = self.repeats.split_off(start);
            len = self.keep_last_values(at, &repeats);
        }
        let end = self.nodes.len() as u32;
        self.nodes[at as usize] = Slot::Object {
            len,
            end,
            keys: u16::try_from(object.run).unwrap_or(0),
            seen: object.chained,
        };
    }

    /// Reads the key of `object` starting at `pos`, the colon after it
    /// and the whitespace around that, noting whether the key repeats an
    /// earlier one; returns the position of the value.
    #[inline(always)]
    fn key<const FIRST: bool>(
        &mut self,
        bytes: &'a [u8],
        head: usize,
        pos: usize,
        object: &mut Frame,
        blank: &mut bool,
    ) -> Parsed<usize> {
        if object.heads {
            // A head looked for and not found.
            self.misses += 1;
            if self.misses * 8 > self.nodes.len() + 128 {
                self.keeping = false;
                self.retry_at = self.nodes.len() * 4;
            }
            if FIRST {
                object.run = self.fresh_run();
            } else if object.chained {
                self.unchain(object);
            }
        } else if !self.keeping && self.nodes.len() >= self.retry_at {
            self.keeping = true;
            // As if one key in eight had been missed so far.
            self.misses = self.nodes.len() / 16;
        }
        let repeats = self.repeats.len();
        let (key, hash, value) = self.key_parts(bytes, pos, object, blank)?;
        let kept = object.heads && self.learn_entry::<FIRST>(bytes, head, value, key, hash, object);
        // A head not kept leaves its slot to another key: not stamped.
        self.stamp(object, kept.then(|| entry_slot::<FIRST>(object)), repeats);
        Ok(value)
    }

    /// A run of entry heads for an object that stamps its own.
    #[inline(always)]
    fn fresh_run(&mut self) -> u32 {
        // Below 2^31 objects: never 0 (`NO_RUN`) again, never `PLAIN`.
        self.runs = self.runs.wrapping_add(1);
        self.runs
    }

    /// [`note_key`](Self::note_key) for an object whose keys may have
    /// been chained so far: the chain ends first.
    #[inline(always)]
    fn note_key_unchained(&mut self, object: &mut Frame, key: Text, hash: u32) {
        if object.chained {
            self.unchain(object);
        }
        self.note_key(object, key, hash);
    }

    /// Stamps the head in `slot` (the one of the key just noted, before
    /// which the repeat stack was `repeats` long; `None` where its head
    /// was not kept) with the run of `object`, while it stamps one: up to
    /// a repeated key, and at its first 32 positions only.
    #[inline(always)]
    fn stamp(&mut self, object: &mut Frame, slot: Option<usize>, repeats: usize) {
        if object.run == PLAIN {
            return;
        }
        if self.repeats.len() != repeats || object.len as usize >= KEYS_BY_FILTER {
            object.run = PLAIN;
        } else if let Some(slot) = slot {
            self.entries[slot].run = object.run;
        }
    }

    /// Ends the chain of `object` (see [`KnownEntry`]): its filter gets
    /// the keys so far, and the object stamps no heads. The first head of
    /// its place stamps none either, so that the next object there stamps
    /// a run of its own.
    #[cold]
    #[inline(never)]
    fn unchain(&mut self, object: &mut Frame) {
        object.chained = false;
        object.run = PLAIN;
        self.entries[KNOWN_KEYS + object.keys as usize % KNOWN_KEYS].run = NO_RUN;
        // Past the filter's keys, the hash set is built from all the
        // keys when first needed.
        if object.len as usize <= KEYS_BY_FILTER {
            let mut seen = [0; 2];
            for key in self.keys_of(object.at) {
                if let Slot::String(text) = self.nodes[key as usize] {
                    let (at, bit) = filter_bit(key_hash(self.text_bytes(text)));
                    seen[at] |= bit;
                }
            }
            object.seen = seen;
        }
    }

    /// The entry at `head` (the end of the value before it, or the byte
    /// after its object's `{`) when its head is the one kept in its slot
    /// of [`Parser::entries`]: its key is noted and the position of its
    /// value returned. `None`, with nothing done, otherwise.
    #[inline(always)]
    fn known_entry<const FIRST: bool>(
        &mut self,
        bytes: &[u8],
        head: usize,
        object: &mut Frame,
    ) -> Option<usize> {
        let chunk = bytes.get(head..head + 16)?;
        let known = self.entries[entry_slot::<FIRST>(object)];
        let first = word(chunk);
        let second = chunk.get(8..).map_or(0, word);
        if ((first & known.masks[0]) ^ known.words[0])
            | ((second & known.masks[1]) ^ known.words[1])
            != 0
        {
            return None;
        }
        let key = Text {
            start: (head + usize::from(known.key_start)) as u32,
            end: (head + usize::from(known.key_end)) as u32,
        };
        let slot = entry_slot::<FIRST>(object);
        if FIRST && known.run != NO_RUN {
            // The object starts as the one that stamped this run.
            object.run = known.run;
            object.chained = true;
            self.nodes.push(Slot::String(key));
        } else if !FIRST && known.run == object.run {
            // Still that object's keys, in its order: none repeats.
            self.nodes.push(Slot::String(key));
        } else {
            if FIRST {
                object.run = self.fresh_run();
            }
            let repeats = self.repeats.len();
            self.note_key_unchained(object, key, known.hash);
            self.stamp(object, Some(slot), repeats);
        }
        // The head was read whole, up to a byte that was no whitespace
        // there; here the byte after it may be, which the value's
        // reading skips (whitespace in the head itself was noted when it
        // was first read).
        Some(head + usize::from(known.len))
    }

    /// Keeps the head of the entry whose key `key` (of [`key_hash`]
    /// `hash`) was read from `head` to `value`, the position of its value,
    /// for [`known_entry`](Self::known_entry): when it fits in two words
    /// and its key is plain (a slice of the head). Says whether it kept
    /// it.
    #[inline(always)]
    fn learn_entry<const FIRST: bool>(
        &mut self,
        bytes: &[u8],
        head: usize,
        value: usize,
        key: Text,
        hash: u32,
        object: &Frame,
    ) -> bool {
        let len = value.wrapping_sub(head);
        let (start, end) = (key.start as usize, key.end as usize);
        if len > 16 || start < head || end > value {
            return false;
        }
        let Some(chunk) = bytes.get(head..head + 16) else {
            return false;
        };
        let mask = match len {
            16 => u128::MAX,
            _ => (1u128 << (8 * len)) - 1,
        };
        let masks = [mask as u64, (mask >> 64) as u64];
        self.entries[entry_slot::<FIRST>(object)] = KnownEntry {
            words: [
                word(chunk) & masks[0],
                chunk.get(8..).map_or(0, word) & masks[1],
            ],
            masks,
            hash,
            run: NO_RUN,
            key_start: (start - head) as u8,
            key_end: (end - head) as u8,
            len: len as u8,
        };
        true
    }

    /// [`key`](Self::key) but for the head's keeping: the key, its
    /// [`key_hash`], and the position of its value.
    #[inline(always)]
    fn key_parts(
        &mut self,
        bytes: &'a [u8],
        pos: usize,
        object: &mut Frame,
        blank: &mut bool,
    ) -> Parsed<(Text, u32, usize)> {
        if bytes.get(pos) != Some(&b'"') {
            return Err(Bail);
        }
        let start = pos + 1;
        // Most keys are short and plain, the colon right after them: all
        // of that is in the key's first word.
        if let Some(chunk) = bytes.get(start..start + 8) {
            let first = word(chunk);
            let slot = (object.keys as usize + object.len as usize) % KNOWN_KEYS;
            let known = self.known[slot];
            if (first & known.mask) ^ 1 == known.word {
                // The key of the last object read here, and its colon.
                let key = Text {
                    start: start as u32,
                    end: start as u32 + known.len,
                };
                self.note_key(object, key, known.hash);
                let value = skip_whitespace(bytes, key.end as usize + 2, blank);
                return Ok((key, known.hash, value));
            }
            let flagged = special_bytes(first);
            // 8 when nothing is flagged.
            let n = (flagged.trailing_zeros() / 8) as usize;
            if n < 7 && (first >> (8 * n)) as u16 == u16::from_le_bytes(*b"\":") {
                // The lowest flag is the high bit of the key's end.
                let below_end = ((flagged & flagged.wrapping_neg()) >> 7).wrapping_sub(1);
                let key = Text {
                    start: start as u32,
                    end: (start + n) as u32,
                };
                let hash = mix(first & below_end, 0, n);
                let mask = below_end << 16 | 0xFFFF;
                self.known[slot] = KnownKey {
                    word: (first & mask) ^ 1,
                    mask,
                    len: n as u32,
                    hash,
                };
                self.note_key(object, key, hash);
                return Ok((key, hash, skip_whitespace(bytes, start + n + 2, blank)));
            }
        }
        // The first word of the key, scanned here rather than by
        // `find_special`, holds a short key whole: its hash is taken from
        // that word, masked below the key's end.
        let (stop, hash) = match bytes.get(start..start + 8) {
            Some(chunk) => {
                let first = word(chunk);
                let flagged = special_bytes(first);
                if flagged != 0 {
                    // The lowest flag is the high bit of the key's end.
                    let below_end = ((flagged & flagged.wrapping_neg()) >> 7).wrapping_sub(1);
                    let n = (flagged.trailing_zeros() / 8) as usize;
                    (start + n, mix(first & below_end, 0, n))
                } else {
                    let stop = find_special(bytes, start + 8);
                    let tail = bytes.get(stop - 8..stop).map_or(0, word);
                    // A key of 8 bytes has its first word only.
                    let tail = if stop - start > 8 { tail } else { 0 };
                    (stop, mix(first, tail, stop - start))
                }
            }
            None => {
                let stop = find_special(bytes, start);
                (stop, key_hash(bytes.get(start..stop).unwrap_or_default()))
            }
        };
        let (key, after, hash) = match bytes.get(stop) {
            Some(b'"') => {
                let key = Text {
                    start: start as u32,
                    end: stop as u32,
                };
                (key, stop + 1, hash)
            }
            Some(b'\\') => {
                let (key, after) = self.escaped_string(start, stop)?;
                (key, after, key_hash(self.text_bytes(key)))
            }
            _ => return Err(Bail),
        };
        self.note_key(object, key, hash);
        let colon = match bytes.get(after) {
            Some(b':') => after,
            _ => skip_whitespace(bytes, after, blank),
        };
        if bytes.get(colon) != Some(&b':') {
            return Err(Bail);
        }
        Ok((key, hash, skip_whitespace(bytes, colon + 1, blank)))
    }

    /// Stores `key`, read in `object`, whose [`key_hash`] is `hash`, and
    /// notes whether it repeats an earlier one.
    #[inline(always)]
    fn note_key(&mut self, object: &mut Frame, key: Text, hash: u32) {
        // `len` counts the entries before this key.
        let suspect = if (object.len as usize) < KEYS_BY_FILTER {
            let (at, bit) = filter_bit(hash);
            let set = object.seen[at] & bit != 0;
            object.seen[at] |= bit;
            set
        } else {
            self.hashed_repeat(object.at, key)
        };
        if suspect {
            if let Some(first) = self.earlier_key(object.at, key) {
                self.repeats.push((first, self.nodes.len() as u32));
            }
        }
        self.nodes.push(Slot::String(key));
    }

    /// Whether `key`, past the filter's keys of the object at `at`, has
    /// a hash one of its earlier keys had (then it may repeat one).
    #[inline(never)]
    fn hashed_repeat(&mut self, at: u32, key: Text) -> bool {
        if self.hashed.last().is_none_or(|&(object, ..)| object != at) {
            let state = RandomState::new();
            // Room for four times the keys so far (a fixed 128, not a
            // declared length): fewer rehashes as the object grows.
            let mut hashes =
                HashSet::with_capacity_and_hasher(4 * KEYS_BY_FILTER, Default::default());
            hashes.extend(
                self.keys_of(at)
                    .filter_map(|key| match self.nodes[key as usize] {
                        Slot::String(text) => Some(keyed_hash(&state, self.text_bytes(text))),
                        _ => None,
                    }),
            );
            self.hashed.push((at, state, hashes));
        }
        let hash = match self.hashed.last() {
            Some((_, state, _)) => keyed_hash(state, self.text_bytes(key)),
            None => return true,
        };
        self.hashed
            .last_mut()
            .is_none_or(|(_, _, hashes)| !hashes.insert(hash))
    }

    /// Rewrites the entries of the object at `at` (the last node, parsed
    /// whole) as `serde_json` reads repeated keys: each key once, at its
    /// first position, with the value of its last occurrence. Returns the
    /// number of entries left.
    ///
    /// Every slot of the object is copied at most once, into one buffer:
    /// linear in the object, however many keys repeat. A moved array or
    /// object has its `end` shifted with it (its descendants' are shifted
    /// as they are copied).
    #[cold]
    fn keep_last_values(&mut self, at: u32, repeats: &[(u32, u32)]) -> u32 {
        let first = at as usize + 1;
        // The value of each first occurrence, and the repeats to skip.
        let mut last: HashMap<u32, u32> = HashMap::new();
        let mut skipped: HashSet<u32> = HashSet::new();
        for &(first_key, repeat) in repeats {
            last.insert(first_key, repeat + 1);
            skipped.insert(repeat);
        }
        let subtree_end = |node: usize| self.nodes[node].after(node as u32) as usize;
        let mut rebuilt: Vec<Slot> = Vec::with_capacity(self.nodes.len() - first);
        let mut entries = 0;
        let mut key = first;
        while key < self.nodes.len() {
            let value = key + 1;
            let next = subtree_end(value);
            if !skipped.contains(&(key as u32)) {
                rebuilt.push(self.nodes[key]);
                let from = last.get(&(key as u32)).map_or(value, |&v| v as usize);
                let to = subtree_end(from);
                // Where the value lands, minus where it was.
                let shift = (first + rebuilt.len()) as i64 - from as i64;
                rebuilt.extend(self.nodes[from..to].iter().map(|slot| match *slot {
                    Slot::Array { len, end } => Slot::Array {
                        len,
                        end: (i64::from(end) + shift) as u32,
                    },
                    Slot::Object {
                        len,
                        end,
                        keys,
                        seen,
                    } => Slot::Object {
                        len,
                        end: (i64::from(end) + shift) as u32,
                        keys,
                        seen,
                    },
                    other => other,
                }));
                entries += 1;
            }
            key = next;
        }
        self.nodes.truncate(first);
        self.nodes.extend(rebuilt);
        entries
    }

    /// The bytes of `text` (as [`Text::resolve`] gives its text, without
    /// the check that its ends are character boundaries), for the key filter and hash
    /// sets, which only hash and compare them.
    #[inline(always)]
    fn text_bytes(&self, text: Text) -> &[u8] {
        let (start, end) = (text.start as usize, text.end as usize);
        match start.checked_sub(self.bytes.len()) {
            None => self.bytes.get(start..end).unwrap_or_default(),
            Some(at) => self
                .owned
                .as_bytes()
                .get(at..end - self.bytes.len())
                .unwrap_or_default(),
        }
    }

    /// The node indexes of the keys read so far of the object being
    /// parsed at `at` (the innermost open one): its entries are whole, so
    /// each key's value gives the next key's index. A key read last has no
    /// value yet and is not given.
    fn keys_of(&self, at: u32) -> impl Iterator<Item = u32> + '_ {
        let last = self.nodes.len() as u32;
        std::iter::successors(Some(at + 1), move |&key| {
            let value = key + 1;
            self.nodes.get(value as usize).map(|slot| slot.after(value))
        })
        .take_while(move |&key| key < last)
    }

    /// The node index of the first key of the object being parsed at `at`
    /// equal to `key` (the key just read, not yet pushed), if any.
    #[cold]
    fn earlier_key(&self, at: u32, key: Text) -> Option<u32> {
        #[cfg(test)]
        KEY_SCANS.with(|scans| scans.set(scans.get() + 1));
        // Bytes, not text: equal either way, with no check of where
        // characters start.
        // Only keys of the same length have their bytes compared.
        let len = key.end - key.start;
        let key = self.text_bytes(key);
        self.keys_of(at)
            .find(|&idx| match self.nodes[idx as usize] {
                Slot::String(other) => {
                    other.end - other.start == len && self.text_bytes(other) == key
                }
                _ => false,
            })
    }

    /// Parses a string from `start`, the byte after its opening quote;
    /// returns its text and the position after its closing quote.
    #[inline(always)]
    fn string(&mut self, bytes: &'a [u8], start: usize) -> Parsed<(Text, usize)> {
        let stop = find_special(bytes, start);
        match bytes.get(stop) {
            Some(b'"') => Ok((
                Text {
                    start: start as u32,
                    end: stop as u32,
                },
                stop + 1,
            )),
            Some(b'\\') => self.escaped_string(start, stop),
            _ => Err(Bail),
        }
    }
    /// Continues a string at its first backslash, unescaping into the side
    /// buffer; returns the text and the position after the closing quote.
    #[cold]
    fn escaped_string(&mut self, start: usize, first_escape: usize) -> Parsed<(Text, usize)> {
        let owned_start = self.owned.len();
        self.owned.push_str(&self.src[start..first_escape]);
        let mut pos = first_escape;
        loop {
            match self.bytes.get(pos) {
                Some(b'"') => {
                    pos += 1;
                    break;
                }
                Some(b'\\') => {
                    pos = self.escape(pos + 1)?;
                }
                _ => return Err(Bail),
            }
            let stop = find_special(self.bytes, pos);
            self.owned.push_str(&self.src[pos..stop]);
            pos = stop;
        }
        Ok((self.owned_text(owned_start)?, pos))
    }

    /// The text from `owned_start` to the end of the side buffer.
    fn owned_text(&self, owned_start: usize) -> Parsed<Text> {
        let base = self.src.len();
        // Offsets of both buffers share one u32 space.
        if base + self.owned.len() >= u32::MAX as usize {
            return Err(Bail);
        }
        Ok(Text {
            start: (base + owned_start) as u32,
            end: (base + self.owned.len()) as u32,
        })
    }

    /// Unescapes the escape whose letter is at `pos`; returns the position
    /// after it.
    fn escape(&mut self, pos: usize) -> Parsed<usize> {
        let c = match self.bytes.get(pos) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let unit = self.hex4(pos + 1)?;
                let (c, next) = match unit {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(pos + 5..pos + 7) != Some(b"\\u") {
                            return Err(Bail);
                        }
                        let low = self.hex4(pos + 7)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(Bail);
                        }
                        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        (char::from_u32(code).ok_or(Bail)?, pos + 11)
                    }
                    0xDC00..=0xDFFF => return Err(Bail),
                    _ => (char::from_u32(unit).ok_or(Bail)?, pos + 5),
                };
                self.owned.push(c);
                return Ok(next);
            }
            _ => return Err(Bail),
        };
        self.owned.push(c);
        Ok(pos + 1)
    }

    fn hex4(&self, pos: usize) -> Parsed<u32> {
        let digits = self.bytes.get(pos..pos + 4).ok_or(Bail)?;
        let mut unit = 0;
        for &d in digits {
            let v = (d as char).to_digit(16).ok_or(Bail)?;
            unit = unit * 16 + v;
        }
        Ok(unit)
    }

    /// Parses a number starting at `start` and stores its canonical text;
    /// returns the position after it. Tokens whose canonical form is a
    /// prefix of the token (the common case) are borrowed; the rest are
    /// read by `serde_json` itself and formatted like a `Value` number.
    ///
    /// The usual number (an integer of at most 7 digits, or such an
    /// integer, a point and at most 7 more) is read from one word for its
    /// integer part and one for its fraction, with no loop: its length,
    /// the byte after it and its trailing zeros are all told by word
    /// tests. The rest (longer, or too near the input's end for a whole
    /// word) go to [`number_by_runs`](Self::number_by_runs), which reads
    /// the same numbers the same way.
    #[inline(always)]
    fn number(&mut self, bytes: &'a [u8], start: usize) -> Parsed<usize> {
        let negative = bytes.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let Some(int_word) = bytes.get(int_start..int_start + 8).map(word) else {
            return self.number_by_runs(bytes, start);
        };
        let int_digits = leading_digits(int_word);
        if int_digits == 0 || int_digits == 8 {
            return self.number_by_runs(bytes, start);
        }
        let int_zero = int_word as u8 == b'0';
        // A leading zero followed by more digits.
        if int_digits > 1 && int_zero {
            return Err(Bail);
        }
        let int_end = int_start + int_digits;
        let text = |start: usize, end: usize| Text {
            start: start as u32,
            end: end as u32,
        };
        // The byte after the integer part, still in its word.
        let after = (int_word >> (8 * int_digits)) as u8;
        let (node, end) = if after == b'.' {
            let frac_start = int_end + 1;
            let Some(frac_word) = bytes.get(frac_start..frac_start + 8).map(word) else {
                return self.number_by_runs(bytes, start);
            };
            let frac_digits = leading_digits(frac_word);
            if frac_digits == 0 || frac_digits == 8 {
                return self.number_by_runs(bytes, start);
            }
            if (frac_word >> (8 * frac_digits)) as u8 | 0x20 == b'e' {
                return self.long_number(start);
            }
            let frac_end = frac_start + frac_digits;
            // The usual decimal: its last digit not 0 and its integer
            // part not 0, the token as it is.
            if !int_zero && (frac_word >> (8 * frac_digits - 8)) as u8 != b'0' {
                self.nodes
                    .push(Slot::Number(text(start, frac_end), NumberClass::F64));
                return Ok(frac_end);
            }
            // At most 14 digits: as in `number_by_runs`, the token
            // without trailing zeros (and without its point when they
            // are all the fraction).
            let nonzero = nonzero_digits(frac_word, frac_digits);
            let trimmed = match nonzero {
                0 => int_end,
                _ => frac_start + 8 - (nonzero.leading_zeros() / 8) as usize,
            };
            let node = if int_zero && nonzero == 0 {
                match negative {
                    true => Slot::Number(text(start + 1, start + 2), NumberClass::NegativeZero),
                    false => Slot::Number(text(start, trimmed), NumberClass::F64),
                }
            } else if int_zero && nonzero & 0x0000_8080_8080_8080 == 0 {
                // Six zeros after `0.`, then a digit that is not: below
                // 1e-6, written with an exponent.
                return self.long_number(start);
            } else {
                Slot::Number(text(start, trimmed), NumberClass::F64)
            };
            (node, frac_end)
        } else if after | 0x20 == b'e' {
            return self.long_number(start);
        } else if !negative {
            // serde_json: u64, or i64 for -2^63..=-1; "-0" is the float -0.0.
            (
                Slot::Number(text(start, int_end), NumberClass::U64),
                int_end,
            )
        } else {
            let (from, class) = match int_zero {
                true => (start + 1, NumberClass::NegativeZero),
                false => (start, NumberClass::I64),
            };
            (Slot::Number(text(from, int_end), class), int_end)
        };
        self.nodes.push(node);
        Ok(end)
    }

    /// [`number`](Self::number) for any token: digits are counted eight
    /// at a time and not summed: an integer of at most 18 digits is a
    /// `u64` or `i64` whatever they are, and a decimal of at most 15 is
    /// exact in a `f64`, so its value matters only where it is zero.
    /// Longer tokens, and those with an exponent, are left to
    /// [`long_number`](Self::long_number).
    #[inline(never)]
    fn number_by_runs(&mut self, bytes: &'a [u8], start: usize) -> Parsed<usize> {
        let negative = bytes.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let int_end = digit_run(bytes, int_start);
        let int_digits = int_end - int_start;
        let int_zero = bytes.get(int_start) == Some(&b'0');
        // No digit, or a leading zero followed by more digits.
        if int_digits == 0 || (int_digits > 1 && int_zero) {
            return Err(Bail);
        }
        let (node, end) = match bytes.get(int_end) {
            Some(b'.') => {
                let frac_start = int_end + 1;
                let frac_end = digit_run(bytes, frac_start);
                let frac_digits = frac_end - frac_start;
                if frac_digits == 0 {
                    return Err(Bail);
                }
                if int_digits + frac_digits > 15 || matches!(bytes.get(frac_end), Some(b'e' | b'E'))
                {
                    return self.long_number(start);
                }
                // The float is the correctly rounded value of a decimal of
                // at most 15 significant digits; its shortest form is that
                // decimal, i.e. the token without trailing zeros, and
                // written plain as long as it is at least 1e-6 (it is
                // below 1e15, far from 1e21, where the exponent form
                // starts again). The fraction has a digit, so trimming
                // stops at the point.
                let mut end = frac_end;
                while bytes.get(end - 1) == Some(&b'0') {
                    end -= 1;
                }
                if end == frac_start {
                    end = int_end;
                }
                let zero = int_zero && end == int_end;
                let text = |start: usize, end: usize| Text {
                    start: start as u32,
                    end: end as u32,
                };
                let node = if zero && negative {
                    Slot::Number(text(start + 1, start + 2), NumberClass::NegativeZero)
                } else if int_zero && !zero && bytes[int_start..].starts_with(b"0.000000") {
                    // Below 1e-6: written with an exponent.
                    return self.long_number(start);
                } else {
                    Slot::Number(text(start, end), NumberClass::F64)
                };
                (node, frac_end)
            }
            Some(b'e' | b'E') => return self.long_number(start),
            _ if int_digits > 18 => return self.long_number(start),
            // serde_json: u64, or i64 for -2^63..=-1; "-0" is the float -0.0.
            _ => {
                let (from, class) = match (negative, int_zero) {
                    (false, _) => (start, NumberClass::U64),
                    (true, true) => (start + 1, NumberClass::NegativeZero),
                    (true, false) => (start, NumberClass::I64),
                };
                let text = Text {
                    start: from as u32,
                    end: int_end as u32,
                };
                (Slot::Number(text, class), int_end)
            }
        };
        self.nodes.push(node);
        Ok(end)
    }

    /// [`number`](Self::number) for the tokens it leaves: an exponent, 16
    /// digits or more, or below 1e-6.
    ///
    /// The digits are summed without overflow checks: a token of at most 19
    /// digits (integer and fraction together) cannot overflow a `u64`, and a
    /// longer one is never taken on the fast path, whatever its sum.
    #[cold]
    #[inline(never)]
    fn long_number(&mut self, start: usize) -> Parsed<usize> {
        let bytes = self.bytes;
        let negative = bytes.get(start) == Some(&b'-');
        let int_start = start + usize::from(negative);
        let (mut significand, mut pos) = digits(bytes, int_start, 0);
        let int_digits = pos - int_start;
        // No digit, or a leading zero followed by more digits.
        if int_digits == 0 || (int_digits > 1 && bytes[int_start] == b'0') {
            return Err(Bail);
        }
        let mut frac_digits = 0;
        if bytes.get(pos) == Some(&b'.') {
            let frac_start = pos + 1;
            (significand, pos) = digits(bytes, frac_start, significand);
            frac_digits = pos - frac_start;
            if frac_digits == 0 {
                return Err(Bail);
            }
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = bytes.get(pos) {
            exponent = true;
            pos += 1;
            if let Some(b'+' | b'-') = bytes.get(pos) {
                pos += 1;
            }
            let digits_start = pos;
            pos = digits(bytes, pos, 0).1;
            if pos == digits_start {
                return Err(Bail);
            }
        }

        // The canonical text, as a range of the token (a prefix of it, or
        // the token less its sign), and how serde_json holds the number.
        let canonical = if exponent || int_digits + frac_digits > 19 {
            None
        } else if frac_digits == 0 {
            // serde_json: u64, or i64 for -2^63..=-1; "-0" is the float -0.0.
            if !negative {
                Some((start, pos, NumberClass::U64))
            } else if significand == 0 {
                Some((start + 1, pos, NumberClass::NegativeZero))
            } else if significand <= 1 << 63 {
                Some((start, pos, NumberClass::I64))
            } else {
                None
            }
        } else if significand < 1_000_000_000_000_000
            && !below_plain_range(&bytes[int_start..pos], significand)
        {
            // As in `number`: the token without trailing zeros.
            let mut end = pos;
            while bytes[end - 1] == b'0' {
                end -= 1;
            }
            if bytes[end - 1] == b'.' {
                end -= 1;
            }
            Some(if significand == 0 && negative {
                (start + 1, start + 2, NumberClass::NegativeZero)
            } else {
                (start, end, NumberClass::F64)
            })
        } else {
            None
        };
        let node = match canonical {
            Some((start, end, class)) => Slot::Number(
                Text {
                    start: start as u32,
                    end: end as u32,
                },
                class,
            ),
            None => self.formatted_number(&self.src[start..pos])?,
        };
        self.nodes.push(node);
        Ok(pos)
    }

    #[cold]
    fn formatted_number(&mut self, token: &str) -> Parsed<Slot> {
        let value = serde_json::Number::from_str(token).map_err(|_| Bail)?;
        let start = self.owned.len();
        // A number no `f64` holds as written (an integer past 64 bits, more
        // digits than a double keeps) is written with every digit, as the
        // TOON grammar allows: never as the nearest float, which would
        // change it (and make distinct ids one).
        match crate::exact::number_is_exact(token) {
            true => number::write_number(&mut self.owned, &value),
            false => match crate::exact::exact_canonical(token) {
                Some(exact) => {
                    self.inexact = true;
                    self.owned.push_str(&exact);
                }
                None => return Err(Bail),
            },
        }
        Ok(Slot::Number(
            self.owned_text(start)?,
            NumberClass::of(&value),
        ))
    }
}

/// Whether an unsigned decimal token without exponent (`0.0000001`) has a
/// non-zero value below 1e-6, which the canonical form writes with an
/// exponent: its integer part is 0 and six or more zeros follow the point.
#[inline]
fn below_plain_range(unsigned: &[u8], significand: u64) -> bool {
    significand != 0 && unsigned.starts_with(b"0.000000")
}

/// Reads the decimal digits from `pos` on into `sum` (times ten per digit,
/// wrapping: the caller counts the digits to know whether it overflowed);
/// returns the sum and the position after the last digit.
#[inline(always)]
fn digits(bytes: &[u8], mut pos: usize, mut sum: u64) -> (u64, usize) {
    while let Some(&byte) = bytes.get(pos) {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        sum = sum.wrapping_mul(10).wrapping_add(u64::from(digit));
        pos += 1;
    }
    (sum, pos)
}

/// The position after the run of decimal digits from `pos`, eight bytes
/// at a time. In each word a byte is flagged unless its high nibble is 3
/// and adding 6 keeps it so (`0`..=`9`); the adds carry only out of a
/// flagged byte, so every byte below the first flagged one is a digit.
#[inline(always)]
fn digit_run(bytes: &[u8], mut pos: usize) -> usize {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    const SIXES: u64 = 0x0606_0606_0606_0606;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let w = word(chunk);
        let flagged =
            ((w & HIGH_NIBBLES) ^ THREES) | ((w.wrapping_add(SIXES) & HIGH_NIBBLES) ^ THREES);
        if flagged != 0 {
            return pos + (flagged.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    pos
}

/// How many of the bytes of `word` are decimal digits before the first
/// that is not (8 when all are); as in [`digit_run`].
#[inline(always)]
fn leading_digits(word: u64) -> usize {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const THREES: u64 = 0x3030_3030_3030_3030;
    const SIXES: u64 = 0x0606_0606_0606_0606;
    let flagged =
        ((word & HIGH_NIBBLES) ^ THREES) | ((word.wrapping_add(SIXES) & HIGH_NIBBLES) ^ THREES);
    (flagged.trailing_zeros() / 8) as usize
}

/// The high bit of each of the first `digits` bytes of `word` (digits,
/// 1 to 7 of them) that is not `0`, and no other bit.
#[inline(always)]
fn nonzero_digits(word: u64, digits: usize) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // The digits as 0..=9 per byte: no carry crosses a byte below.
    let values = word ^ 0x3030_3030_3030_3030;
    let nonzero = ((values & LOW7).wrapping_add(LOW7) | values) & HIGH;
    nonzero & ((1u64 << (8 * digits)) - 1)
}

/// The hash of a key's bytes under `state` (keyed per process), for the
/// hash sets of [`Parser::hashed`]: the bytes in one write.
fn keyed_hash(state: &RandomState, key: &[u8]) -> u64 {
    let mut hasher = state.build_hasher();
    hasher.write(key);
    hasher.finish()
}

/// The hasher of the sets of [`Parser::hashed`], whose items are
/// already hashes keyed per process ([`keyed_hash`]): each is its own
/// hash, not hashed again on each insert and rehash.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used by the `u64` items; any mix of the bytes would do.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The word of the repeat filter and the bit in it of a key of
/// [`key_hash`] `hash`.
#[inline(always)]
fn filter_bit(hash: u32) -> (usize, u64) {
    ((hash >> 6) as usize & 1, 1u64 << (hash & 63))
}

/// A hash of a key into 0..128 for the duplicate-key filter: its length
/// and its first and last eight bytes (overlapping in keys of 9 to 15;
/// the first alone, whole, in keys of 8 or fewer), mixed by one
/// multiplication.
#[inline]
fn key_hash(key: &[u8]) -> u32 {
    let n = key.len();
    let head = key
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |head, (i, &b)| head | u64::from(b) << (8 * i));
    let tail = match n {
        0..=8 => 0,
        _ => key.get(n - 8..).map_or(0, word),
    };
    mix(head, tail, n)
}

/// [`key_hash`] of a key of `n` bytes from its first and last words.
#[inline(always)]
fn mix(head: u64, tail: u64, n: usize) -> u32 {
    let mixed = (head ^ tail.rotate_left(29) ^ (n as u64).rotate_right(8))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 57) as u32
}

/// The index of the first `"`, `\` or control character at or after `from`
/// (or the input length). Eight bytes at a time; the lowest flagged byte of
/// each word is always a real match. Always inlined: every string of the
/// document runs through it, and as a call it cost more than its setup.
#[inline(always)]
fn find_special(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let flagged = special_bytes(word(chunk));
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

/// The bytes of `word` that are `"`, `\\` or a control character, each
/// flagged by its high bit; bytes above the lowest flagged one may be
/// flagged wrongly (by a borrow), the lowest never is.
#[inline(always)]
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Flipping bit 1 takes `"` to 0x20 and keeps the control characters
    // below it, where nothing else lands: one comparison finds both.
    let flipped = word ^ (ONES * 0x02);
    let backslash = word ^ (ONES * b'\\' as u64);
    let flagged = (flipped.wrapping_sub(ONES * 0x21) & !flipped)
        | (backslash.wrapping_sub(ONES) & !backslash);
    flagged & HIGHS
}

#[cfg(test)]
mod scan_tests {
    use super::find_special;

    /// The first special byte by the plainest loop.
    fn expected(bytes: &[u8], from: usize) -> usize {
        (from..bytes.len())
            .find(|&i| matches!(bytes[i], b'"' | b'\\' | 0..=0x1f))
            .unwrap_or(bytes.len())
    }

    #[test]
    fn every_special_byte_is_found_at_every_offset() {
        let specials = [b'"', b'\\', 0, 0x1f, b'\n', b'\t'];
        // Bytes next to the special ones in value: none of them matches.
        let plain = [
            b' ', b'!', b'#', b'[', b']', 0x7f, 0x80, 0xc3, 0xe2, 0xff, b'a',
        ];
        for len in 0..40 {
            for filler in plain {
                let mut bytes = vec![filler; len];
                for from in 0..=len {
                    assert_eq!(find_special(&bytes, from), len);
                }
                for at in 0..len {
                    for special in specials {
                        bytes[at] = special;
                        for from in [0, at.saturating_sub(1), at, (at + 1).min(len)] {
                            let want = expected(&bytes, from);
                            assert_eq!(find_special(&bytes, from), want, "{bytes:?} from {from}");
                        }
                        bytes[at] = filler;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod number_tests {
    use super::super::Document;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Each item's number as read: canonical text, float or not, and
    /// `serde_json`'s text.
    fn numbers(document: &Document<'_>) -> Vec<Option<(String, bool, String)>> {
        document
            .root()
            .items()
            .map(|item| {
                let number = item.as_number()?;
                Some((
                    number.canonical().to_string(),
                    number.is_f64(),
                    number.to_string(),
                ))
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Numbers inside a container, where the words they are read
        /// from hold bytes past the token (the container's), read as
        /// `serde_json` reads them: valid ones to the same numbers as a
        /// document built from its value (but for the digits of one no
        /// `f64` holds), invalid ones refused.
        #[test]
        fn numbers_in_containers_read_like_serde_json(
            token in "-?(0|[1-9][0-9]{0,9}|0[0-9])(\\.0{0,7}[0-9]{0,3}0{0,2})?([eE][+-]?[0-9]{1,2})?|[-0-9.eE+]{1,10}",
            tail in "[,\\] .eE0-9x]{0,2}",
        ) {
            let json = format!("[{token}{tail}, 1, \"padding\"]");
            match (serde_json::from_str::<Value>(&json), Document::parse(&json)) {
                // A number no `f64` holds keeps its digits, which its
                // value has lost.
                (Ok(_), Ok(document)) if document.has_inexact_number() => {}
                (Ok(value), Ok(document)) => {
                    prop_assert_eq!(numbers(&document), numbers(&Document::from_value(&value)));
                }
                (Err(_), Err(_)) => {}
                (value, document) => {
                    prop_assert!(false, "{}: {:?} / {:?}", json, value, document.err());
                }
            }
        }
    }
}

#[cfg(test)]
mod top_level_tests {
    use super::super::Document;
    use serde_json::Value;

    /// What follows the top-level value (a comma, whitespace, anything)
    /// is refused or accepted as `serde_json` does, whatever the value.
    #[test]
    fn the_end_of_the_top_level_value_reads_like_serde_json() {
        for value in [
            "1",
            "-0.5",
            "\"a\"",
            "true",
            "null",
            "[]",
            "{}",
            "[1]",
            "{\"a\":1}",
        ] {
            for tail in [
                "", " ", "\n", ",", " ,", ", ", ",1", " , 1", "]", "}", "x", " x", "\u{0}",
            ] {
                for lead in ["", " "] {
                    let json = format!("{lead}{value}{tail}");
                    let expected = serde_json::from_str::<Value>(&json);
                    let document = Document::parse(&json);
                    assert_eq!(document.is_ok(), expected.is_ok(), "{json:?}");
                    if let (Ok(document), Ok(value)) = (document, expected) {
                        assert_eq!(serde_json::to_value(document.root()).unwrap(), value);
                    }
                }
            }
        }
    }
}
