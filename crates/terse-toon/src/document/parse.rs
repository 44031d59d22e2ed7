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
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
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
const MAX_DEPTH: u32 = 127;

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
    };
    let mut cursor = Cursor {
        bytes: json.as_bytes(),
        pos: 0,
        blank: false,
    };
    parser.value(&mut cursor)?;
    cursor.skip_whitespace();
    if cursor.pos != cursor.bytes.len() {
        return Err(Bail);
    }
    let seen = Seen {
        blank: cursor.blank,
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
    /// occurrence, repeat), key node indexes.
    repeats: Vec<(u32, u32)>,
    /// A number no `f64` holds as written was read: found where such
    /// numbers already leave the fast path, so that the callers that would
    /// read the text into a `serde_json::Value` need no scan of their own.
    inexact: bool,
}

/// An array or object being parsed: the containers still open, innermost
/// last, live on an explicit stack (no recursion on the input's nesting).
enum Frame {
    Array {
        /// Node index of the array.
        at: u32,
        len: u32,
    },
    Object(ObjectFrame),
}

/// What [`Parser::element`] found.
enum Step {
    /// A value, read whole.
    Value,
    /// The opening bracket of an array or object, not yet read.
    Open(u8),
}

/// An object being parsed.
struct ObjectFrame {
    /// Node index of the object.
    at: u32,
    /// Where this object's repeated keys start on the repeat stack.
    repeats_start: usize,
    /// A 128-bit filter (two words) over a cheap key hash: only a key whose bit is
    /// already set is compared with the earlier keys. Past
    /// `KEYS_BY_FILTER` keys the filter is full and that comparison would
    /// make the object quadratic, so the keys' hashes go in a set (keyed
    /// per process, so no input can make them collide).
    seen: [u64; 2],
    /// Boxed, as it is rare: frames are moved on and off the stack, and
    /// for the many small objects of a document that move is best small.
    hashed: Option<Box<(RandomState, HashSet<u64>)>>,
    len: u32,
}

/// Where the parser stands in the input. A value of its own, apart from
/// the [`Parser`]'s buffers, and handed only to functions inlined into the
/// main loop or by value to the others: the position then lives in a
/// register, where as a field of the parser it was written back to memory
/// at every step (the calls that grow the buffers could have read it).
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Whitespace was skipped between tokens: noted here, where it is
    /// found, so that a caller weighing the text minified knows for free
    /// whether minifying drops anything.
    blank: bool,
}

impl Cursor<'_> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Skips whitespace. Most calls find none (a byte above the space is
    /// the next token) or a single space (`", "`, `": "`), so those two
    /// are checked before the loop.
    #[inline(always)]
    fn skip_whitespace(&mut self) {
        match self.peek() {
            Some(b) if b > b' ' => {}
            Some(b' ') if self.bytes.get(self.pos + 1).is_some_and(|&b| b > b' ') => {
                self.pos += 1;
                self.blank = true;
            }
            _ => {
                let end = whitespace_end(self.bytes, self.pos);
                self.blank |= end != self.pos;
                self.pos = end;
            }
        }
    }
}

/// The position of the first byte at or after `pos` that is not JSON
/// whitespace (or the input length).
fn whitespace_end(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

impl<'a> Parser<'a> {
    /// Parses one value, with all it contains. Open containers are frames
    /// on a stack; the innermost runs a loop of its own over its elements
    /// (strings and numbers, the most of a document, read in place), which
    /// leaves it only to open a container inside it or to close it.
    fn value(&mut self, cur: &mut Cursor<'_>) -> Parsed<()> {
        let mut stack: Vec<Frame> = Vec::new();
        if let Step::Open(bracket) = self.element(cur)? {
            self.open(cur, bracket, &mut stack)?;
        }
        // Whether the innermost container has just had a value read into
        // it (rather than just opened, its first key read).
        let mut completed = false;
        while let Some(top) = stack.last_mut() {
            let opening = match top {
                Frame::Array { len, .. } => loop {
                    if completed {
                        *len += 1;
                        cur.skip_whitespace();
                        match cur.peek() {
                            Some(b',') => cur.pos += 1,
                            Some(b']') => {
                                cur.pos += 1;
                                break None;
                            }
                            _ => return Err(Bail),
                        }
                    }
                    match self.element(cur)? {
                        Step::Value => completed = true,
                        Step::Open(bracket) => break Some(bracket),
                    }
                },
                Frame::Object(object) => loop {
                    if completed {
                        object.len += 1;
                        cur.skip_whitespace();
                        match cur.peek() {
                            Some(b',') => {
                                cur.pos += 1;
                                self.key(cur, object)?;
                            }
                            Some(b'}') => {
                                cur.pos += 1;
                                break None;
                            }
                            _ => return Err(Bail),
                        }
                    }
                    match self.element(cur)? {
                        Step::Value => completed = true,
                        Step::Open(bracket) => break Some(bracket),
                    }
                },
            };
            completed = match opening {
                Some(bracket) => !self.open(cur, bracket, &mut stack)?,
                None => {
                    match stack.pop() {
                        Some(Frame::Array { at, len }) => self.close_array(at, len),
                        Some(Frame::Object(object)) => self.close_object(object),
                        None => {}
                    }
                    true
                }
            };
        }
        Ok(())
    }

    /// Reads a value that holds no other (a string, number or literal),
    /// or finds the opening bracket of one that may.
    #[inline(always)]
    fn element(&mut self, cur: &mut Cursor<'_>) -> Parsed<Step> {
        cur.skip_whitespace();
        match cur.peek() {
            Some(b'"') => {
                let text = self.string(cur)?;
                self.nodes.push(Slot::String(text));
            }
            Some(b'-' | b'0'..=b'9') => self.number(cur)?,
            Some(bracket @ (b'[' | b'{')) => return Ok(Step::Open(bracket)),
            Some(b't') => self.literal(cur, b"true", Slot::Bool(true))?,
            Some(b'f') => self.literal(cur, b"false", Slot::Bool(false))?,
            Some(b'n') => self.literal(cur, b"null", Slot::Null)?,
            _ => return Err(Bail),
        }
        Ok(Step::Value)
    }

    /// Opens the array or object whose `bracket` is at the current
    /// position: an empty one is read whole (`false`); otherwise its frame
    /// is pushed, an object's first key read (`true`).
    #[inline(always)]
    fn open(&mut self, cur: &mut Cursor<'_>, bracket: u8, stack: &mut Vec<Frame>) -> Parsed<bool> {
        // The containers already open, and this one.
        if stack.len() >= MAX_DEPTH as usize {
            return Err(Bail);
        }
        cur.pos += 1;
        let at = self.nodes.len() as u32;
        cur.skip_whitespace();
        if bracket == b'[' {
            self.nodes.push(Slot::Array { len: 0, end: 0 });
            if cur.peek() == Some(b']') {
                cur.pos += 1;
                self.close_array(at, 0);
                return Ok(false);
            }
            stack.push(Frame::Array { at, len: 0 });
        } else {
            self.nodes.push(Slot::Object { len: 0, end: 0 });
            if cur.peek() == Some(b'}') {
                cur.pos += 1;
                let end = self.nodes.len() as u32;
                self.nodes[at as usize] = Slot::Object { len: 0, end };
                return Ok(false);
            }
            let mut object = ObjectFrame {
                at,
                repeats_start: self.repeats.len(),
                seen: [0; 2],
                hashed: None,
                len: 0,
            };
            self.key(cur, &mut object)?;
            stack.push(Frame::Object(object));
        }
        Ok(true)
    }

    #[inline(always)]
    fn literal(&mut self, cur: &mut Cursor<'_>, word: &[u8], node: Slot) -> Parsed<()> {
        if cur
            .bytes
            .get(cur.pos..)
            .is_some_and(|rest| rest.starts_with(word))
        {
            cur.pos += word.len();
            self.nodes.push(node);
            Ok(())
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
    /// repeated keys are resolved.
    fn close_object(&mut self, object: ObjectFrame) {
        let mut len = object.len;
        if self.repeats.len() > object.repeats_start {
            let repeats = self.repeats.split_off(object.repeats_start);
            len = self.keep_last_values(object.at, &repeats);
        }
        let end = self.nodes.len() as u32;
        self.nodes[object.at as usize] = Slot::Object { len, end };
    }

    /// Reads a key of `object` and the colon after it, noting whether the
    /// key repeats an earlier one.
    #[inline(always)]
    fn key(&mut self, cur: &mut Cursor<'_>, object: &mut ObjectFrame) -> Parsed<()> {
        cur.skip_whitespace();
        if cur.peek() != Some(b'"') {
            return Err(Bail);
        }
        let key = self.string(cur)?;
        // `len` counts the entries before this key.
        let suspect = if (object.len as usize) < KEYS_BY_FILTER {
            let hash = key_hash(self.text_bytes(key));
            let (word, bit) = ((hash >> 6) as usize & 1, 1u64 << (hash & 63));
            let set = object.seen[word] & bit != 0;
            object.seen[word] |= bit;
            set
        } else {
            let hashed = match object.hashed.take() {
                Some(hashed) => hashed,
                None => {
                    let state = RandomState::new();
                    let hashes = self
                        .keys_of(object.at)
                        .filter_map(|at| match self.nodes[at as usize] {
                            Slot::String(text) => Some(state.hash_one(self.text(text))),
                            _ => None,
                        })
                        .collect();
                    Box::new((state, hashes))
                }
            };
            let (state, hashes) = &mut **object.hashed.insert(hashed);
            !hashes.insert(state.hash_one(self.text(key)))
        };
        if suspect {
            if let Some(first) = self.earlier_key(object.at, key) {
                self.repeats.push((first, self.nodes.len() as u32));
            }
        }
        self.nodes.push(Slot::String(key));
        cur.skip_whitespace();
        if cur.peek() != Some(b':') {
            return Err(Bail);
        }
        cur.pos += 1;
        Ok(())
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
                    Slot::Object { len, end } => Slot::Object {
                        len,
                        end: (i64::from(end) + shift) as u32,
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

    /// The bytes of `text`: [`text`](Self::text) without the check that
    /// its ends are character boundaries, for the key filter, which only
    /// hashes them.
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

    fn text(&self, text: Text) -> &str {
        text.resolve(self.src, &self.owned)
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
        let key = self.text(key);
        self.keys_of(at)
            .find(|&idx| match self.nodes[idx as usize] {
                Slot::String(other) => self.text(other) == key,
                _ => false,
            })
    }

    /// Parses a string starting at its opening quote.
    #[inline(always)]
    fn string(&mut self, cur: &mut Cursor<'_>) -> Parsed<Text> {
        let start = cur.pos + 1;
        let stop = find_special(cur.bytes, start);
        match cur.bytes.get(stop) {
            Some(b'"') => {
                cur.pos = stop + 1;
                Ok(Text {
                    start: start as u32,
                    end: stop as u32,
                })
            }
            Some(b'\\') => {
                let (text, end) = self.escaped_string(start, stop)?;
                cur.pos = end;
                Ok(text)
            }
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

    /// Parses a number and stores its canonical text. Tokens whose canonical
    /// form is a prefix of the token (the common case) are borrowed; the rest
    /// are read by `serde_json` itself and formatted like a `Value` number.
    ///
    /// The digits are summed without overflow checks: a token of at most 19
    /// digits (integer and fraction together) cannot overflow a `u64`, and a
    /// longer one is never taken on the fast path, whatever its sum.
    #[inline(always)]
    fn number(&mut self, cur: &mut Cursor<'_>) -> Parsed<()> {
        let bytes = cur.bytes;
        let start = cur.pos;
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
        cur.pos = pos;

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
            // serde_json computes significand / 10^frac_digits with both
            // operands exact, so the float is the correctly rounded value of
            // a decimal of at most 15 significant digits; its shortest form
            // is that decimal, i.e. the token without trailing zeros, and
            // written plain as long as it is at least 1e-6 (it is below
            // 1e15, far from 1e21, where the exponent form starts again).
            // The fraction has a digit, so trimming stops at the point.
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
        Ok(())
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

/// A hash of a key into 0..128 for the duplicate-key filter: its length
/// and its first and last four bytes (overlapping in short keys), mixed by
/// one multiplication.
#[inline(always)]
fn key_hash(bytes: &[u8]) -> u32 {
    let n = bytes.len();
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    };
    let (head, tail) = match n {
        0 => (0, 0),
        1..=3 => {
            let byte = |at: usize| bytes.get(at).copied().map_or(0, u32::from);
            (byte(0) | byte(n / 2) << 8 | byte(n - 1) << 16, 0)
        }
        _ => (word(0), word(n - 4)),
    };
    let h = (head ^ tail.rotate_left(13) ^ (n as u32) << 24).wrapping_mul(0x9e37_79b1);
    h >> 25
}

/// The index of the first `"`, `\` or control character at or after `from`
/// (or the input length). Eight bytes at a time; the lowest flagged byte of
/// each word is always a real match. Always inlined: every string of the
/// document runs through it, and as a call it cost more than its setup.
#[inline(always)]
fn find_special(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let quote = word ^ (ONES * b'"' as u64);
        let backslash = word ^ (ONES * b'\\' as u64);
        let flagged = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word);
        let flagged = flagged & HIGHS;
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
