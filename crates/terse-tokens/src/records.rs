//! Places where the JSON and the TOON of one document have written the
//! same data: just after the first key of the same record of a list.
//!
//! A near tie counted in stages (`choose::staged`) cuts both texts and
//! estimates what is left of each. Cut at the same share of their bytes,
//! the two rests need not hold the same records, so each rest's estimate
//! errs on its own and the band on their difference is the two bands
//! added. Cut here, the rests are two renderings of the same records, and
//! the band on their difference is the one a near tie of two whole
//! renderings is found with, about half as wide.
//!
//! The walk reads the JSON written without insignificant whitespace (as
//! the smart fallback weighs it) and the TOON written with the default
//! options (two-space indentation): a root array of records, or a root
//! object whose fields may be such arrays (`{"data":[...],"meta":{...}}`),
//! each written by TOON as a list (`key[N]:`, then one `- ` line per
//! record; tabular arrays are not cut, their rows need no second look).
//! Anything it does not expect ends the walk: it then finds no more
//! places, and staging goes on at shares of the bytes. It goes through
//! each text once, front to back (a block of 64 bytes past a record's end
//! is read again for the next), with no recursion, and allocates nothing.

use memchr::memchr;

use super::json_marks;

/// The places, in order, where a record of a list starts its first key in
/// both texts: each a pair of offsets (JSON, TOON), just after that key's
/// name (the JSON's closing `"`, the TOON's `:`), where o200k_base starts
/// a piece in both. What comes before a pair's offsets in the two texts
/// is the same data, and so is what comes after.
pub(crate) struct RecordCuts<'a> {
    json: &'a [u8],
    toon: &'a [u8],
    /// The next JSON byte to read: a root object's next key (or its `}`),
    /// or a list's next element (or its `]`).
    json_at: usize,
    /// Between a root object's fields, the start of the next field's TOON
    /// line; in a list, where the search for its next record's line
    /// starts (the end of the header, or the last record's line).
    toon_at: usize,
    place: Place,
}

/// The places [`RecordCuts`] finds in `json` and `toon`, renderings of
/// one document, for the decision test. Not a stable API.
///
/// ```
/// let json = r#"[{"id":1},{"id":2}]"#;
/// let toon = "[2]:\n  - id: 1\n  - id: 2";
/// let cuts: Vec<_> = terse_tokens::record_cuts(json, toon).collect();
/// // Just after each `id`: the JSON's closing `"`, the TOON's `:`.
/// assert_eq!(cuts, [(5, 11), (14, 21)]);
/// ```
#[doc(hidden)]
pub fn record_cuts<'a>(json: &'a str, toon: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
    RecordCuts::new(json.as_bytes(), toon.as_bytes())
}

/// Where [`RecordCuts`] is in the two texts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Between a root object's fields.
    Fields,
    /// In a list; `root` when it is the root, `left` how many records its
    /// TOON header says are still to come.
    Records { root: bool, left: usize },
    /// The walk is over.
    Done,
}

impl<'a> RecordCuts<'a> {
    /// The walk over `json` and `toon`, renderings of one document.
    pub(crate) fn new(json: &'a [u8], toon: &'a [u8]) -> Self {
        let mut cuts = RecordCuts {
            json,
            toon,
            json_at: 1,
            toon_at: 0,
            place: Place::Done,
        };
        match json.first() {
            Some(b'{') => cuts.place = Place::Fields,
            // A root list in TOON starts with its header alone on the
            // first line: `[N]:`.
            Some(b'[') => {
                let line = cuts.line();
                if let Some(left) = list_header(line, b"") {
                    cuts.toon_at = line.len();
                    cuts.place = Place::Records { root: true, left };
                }
            }
            _ => {}
        }
        cuts
    }

    /// The TOON line that starts at `toon_at`, without its line break.
    fn line(&self) -> &'a [u8] {
        let rest = self.toon.get(self.toon_at..).unwrap_or_default();
        rest.get(..memchr(b'\n', rest).unwrap_or(rest.len()))
            .unwrap_or_default()
    }

    /// Moves `toon_at` to the start of the line after the one there.
    fn next_line(&mut self) {
        self.toon_at = self
            .toon_at
            .saturating_add(self.line().len())
            .saturating_add(1);
    }

    /// Moves `toon_at` past the lines indented under the one there, to
    /// the next line at indentation 0 (or the end).
    fn next_root_line(&mut self) {
        self.next_line();
        while self.line().first() == Some(&b' ') {
            self.next_line();
        }
    }

    /// One step between a root object's fields: enters the next field's
    /// list, or passes the field in both texts.
    fn field(&mut self) -> Option<()> {
        let json = self.json;
        let key_end = simple_key(json, self.json_at)?;
        let key = json.get(self.json_at + 1..key_end)?;
        let value = key_end + 2;
        if json.get(key_end + 1) != Some(&b':') {
            return None;
        }
        // One TOON line at indentation 0 per root field, in the JSON's
        // order; a field's deeper lines are indented.
        let line = self.line();
        if line.first().is_none_or(|&first| first == b' ') {
            return None;
        }
        if json.get(value..value + 2) == Some(b"[{") {
            if let Some(left) = list_header(line, key) {
                self.json_at = value + 1;
                self.toon_at += line.len();
                self.place = Place::Records { root: false, left };
                return Some(());
            }
        }
        self.json_at = skip_value(json, value)?;
        self.next_root_line();
        self.next_value()
    }

    /// Past a value in the JSON: on to the next one after a `,`; `None`
    /// at the end of its container, or at what is not JSON.
    fn next_value(&mut self) -> Option<()> {
        (self.json.get(self.json_at) == Some(&b',')).then(|| self.json_at += 1)
    }

    /// One record of a list: its pair of places when its first key can be
    /// cut in both texts, and the walk moved past it.
    fn record(&mut self, root: bool, left: usize) -> Option<Option<(usize, usize)>> {
        let json = self.json;
        if json.get(self.json_at) == Some(&b']') {
            // The TOON's list has as many records as the JSON's.
            if left > 0 {
                return None;
            }
            self.json_at += 1;
            if root {
                return None;
            }
            self.next_root_line();
            self.place = Place::Fields;
            return self.next_value().map(|()| None);
        }
        let left = left.checked_sub(1)?;
        // `toon_at` is at the line break before the record's line.
        let found = record_line(self.toon.get(self.toon_at..).unwrap_or_default())?;
        self.toon_at += found + 1;
        self.place = Place::Records { root, left };
        let element = self.json_at;
        let pair = (json.get(element) == Some(&b'{'))
            .then(|| simple_key(json, element + 1))
            .flatten()
            .and_then(|key_end| {
                let key = json.get(element + 2..key_end)?;
                let colon = self.toon_at + b"  - ".len() + key.len();
                (self.toon.get(self.toon_at + 3) == Some(&b' ')
                    && self.toon.get(colon - key.len()..colon) == Some(key)
                    && self.toon.get(colon) == Some(&b':')
                    && key.last().is_some_and(u8::is_ascii_alphanumeric))
                .then_some((key_end, colon))
            });
        self.json_at = skip_value(json, element)?;
        if json.get(self.json_at) == Some(&b',') {
            self.json_at += 1;
        } else if json.get(self.json_at) != Some(&b']') {
            return None;
        }
        Some(pair)
    }
}

impl Iterator for RecordCuts<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            let step = match self.place {
                Place::Done => return None,
                Place::Fields => self.field().map(|()| None),
                Place::Records { root, left } => self.record(root, left),
            };
            match step {
                None => {
                    self.place = Place::Done;
                    return None;
                }
                Some(Some(pair)) => return Some(pair),
                Some(None) => {}
            }
        }
    }
}

/// Where the first record's line of a list (at the root or in a root
/// object's field) starts in `toon`: its line break, the first of
/// `\n  -`. Inside a list nothing else starts so: a record's own lines are
/// indented further, and TOON writes no line break inside a value. Found
/// 32 bytes at a time by the line breaks three bytes before a dash
/// ([`json_marks::line_dashes`]), where a substring search stopped at
/// every line's `\n ` (it ran at 1.6 instructions a byte of the nested
/// orders' TOON).
fn record_line(toon: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(window) = toon.get(at..).and_then(<[u8]>::first_chunk::<35>) {
        let mut candidates = json_marks::line_dashes(window);
        while candidates != 0 {
            let i = candidates.trailing_zeros() as usize;
            if window.get(i + 1..i + 3) == Some(b"  ") {
                return Some(at + i);
            }
            candidates &= candidates - 1;
        }
        at += 32;
    }
    let rest = toon.get(at..)?;
    memchr::memmem::find(rest, b"\n  -").map(|found| at + found)
}

/// The length of the list whose header is the TOON `line`, when it is
/// the header of a list of records under `key` (empty for the root):
/// `key[N]:` and nothing after it (a tabular header has `{fields}` before
/// the colon, an inline list its values after it).
fn list_header(line: &[u8], key: &[u8]) -> Option<usize> {
    let count = line
        .strip_prefix(key)?
        .strip_prefix(b"[")?
        .strip_suffix(b"]:")?;
    if count.is_empty() || !count.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(count).ok()?.parse().ok()
}

/// The offset of the closing `"` of the JSON key whose opening `"` is at
/// `at`, when the key is one TOON writes as it is in JSON: ASCII letters,
/// digits and `_`, not starting with a digit.
fn simple_key(json: &[u8], at: usize) -> Option<usize> {
    if json.get(at) != Some(&b'"') {
        return None;
    }
    let rest = json.get(at + 1..)?;
    let len = rest
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))?;
    (len > 0 && rest[len] == b'"' && !rest[0].is_ascii_digit()).then_some(at + 1 + len)
}

/// The offset just past the JSON value that starts at `at`, in JSON
/// without insignificant whitespace; `None` for what is not such a value.
fn skip_value(json: &[u8], at: usize) -> Option<usize> {
    let bytes = json.get(at..)?;
    match bytes.first()? {
        b'{' | b'[' => skip_container(json, at),
        b'"' => skip_rest(json, at + 1, 0, true),
        _ => {
            let len = bytes
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}'))
                .unwrap_or(bytes.len());
            (len > 0).then_some(at + len)
        }
    }
}

/// The offset just past the container whose `{` or `[` is at `at`: 64
/// bytes at a time, strings found by their quotes (a running XOR of their
/// marks), depth counted at the openings and closings outside them. A
/// block with a backslash is left to [`skip_rest`], which reads escapes.
/// With AVX2 and PCLMULQDQ the loop is compiled for them, its marks taken
/// with 32-byte vectors and the running XOR by one multiplication.
fn skip_container(json: &[u8], at: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2_clmul() {
        #[allow(unsafe_code)]
        // SAFETY: `skip_container_wide` needs AVX2, POPCNT and PCLMULQDQ,
        // and the CPU has just said it has them all.
        return unsafe { skip_container_wide(json, at) };
    }
    skip_container_with::<false>(json, at)
}

/// [`skip_container`] compiled for AVX2, POPCNT and PCLMULQDQ.
///
/// # Safety
///
/// The CPU must support AVX2, POPCNT and PCLMULQDQ
/// ([`crate::cpu::avx2_clmul`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,pclmulqdq")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn skip_container_wide(json: &[u8], at: usize) -> Option<usize> {
    skip_container_with::<true>(json, at)
}

/// The body of [`skip_container`]; `WIDE` in the copy compiled for AVX2.
#[inline(always)]
fn skip_container_with<const WIDE: bool>(json: &[u8], at: usize) -> Option<usize> {
    let (mut depth, mut inside) = (0usize, 0u64);
    let mut start = at;
    loop {
        let rest = json.get(start..).filter(|rest| !rest.is_empty())?;
        let padded;
        let block = match rest.first_chunk::<64>() {
            Some(block) => block,
            None => {
                padded = padded_block(rest);
                &padded
            }
        };
        let marks = block_marks::<WIDE>(block);
        if marks.backslashes != 0 {
            return skip_rest(json, start, depth, inside != 0);
        }
        let strings = block_prefix_xor::<WIDE>(marks.quotes) ^ inside;
        inside = 0u64.wrapping_sub(strings >> 63);
        let (opens, closes) = (marks.opens & !strings, marks.closes & !strings);
        // Fewer closings than open containers: the value goes on past the
        // block, whatever their order; only the block it ends in is read
        // a mark at a time.
        if (closes.count_ones() as usize) < depth {
            depth += opens.count_ones() as usize;
            depth -= closes.count_ones() as usize;
            start += 64;
            continue;
        }
        let mut structure = opens | closes;
        while structure != 0 {
            let bit = structure.trailing_zeros();
            if opens >> bit & 1 == 1 {
                depth += 1;
            } else {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(start + bit as usize + 1);
                }
            }
            structure &= structure - 1;
        }
        start += 64;
    }
}

/// The last bytes of the text (fewer than 64), then zeros, which mark
/// nothing.
#[cold]
#[inline(never)]
fn padded_block(rest: &[u8]) -> [u8; 64] {
    let mut padded = [0; 64];
    let rest = &rest[..rest.len().min(64)];
    padded[..rest.len()].copy_from_slice(rest);
    padded
}

/// [`json_marks::marks`] of `block`, with AVX2 in the copy compiled for it.
#[inline(always)]
fn block_marks<const WIDE: bool>(block: &[u8; 64]) -> json_marks::Marks {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        #[allow(unsafe_code)]
        // SAFETY: only `skip_container_wide` reads with `WIDE`, and it runs
        // only where the CPU has AVX2 and PCLMULQDQ.
        return unsafe { json_marks::marks_wide(block) };
    }
    json_marks::marks(block)
}

/// [`prefix_xor`] of `bits`, by a carry-less multiplication in the copy
/// compiled for it.
#[inline(always)]
fn block_prefix_xor<const WIDE: bool>(bits: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        #[allow(unsafe_code)]
        // SAFETY: as in `block_marks`: the CPU has PCLMULQDQ.
        return unsafe { json_marks::prefix_xor_clmul(bits) };
    }
    prefix_xor(bits)
}

/// Bit `i` set when an odd number of the bits up to `i` are: the bytes
/// from an opening quote up to its closing one.
fn prefix_xor(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}

/// The offset just past the value that [`skip_value`] reads, from `at`,
/// `depth` containers in, `inside` a string or not: a byte at a time.
fn skip_rest(json: &[u8], at: usize, mut depth: usize, mut inside: bool) -> Option<usize> {
    let mut i = at;
    loop {
        if inside {
            match *json.get(i)? {
                b'"' => inside = false,
                // An escape: the byte after the backslash never ends the
                // string.
                b'\\' => i += 1,
                _ => {}
            }
            i += 1;
            if inside || depth > 0 {
                continue;
            }
            return Some(i);
        }
        match *json.get(i)? {
            b'"' => inside = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(json: &str, toon: &str) -> Vec<(String, String)> {
        RecordCuts::new(json.as_bytes(), toon.as_bytes())
            .map(|(j, t)| (json[j..].to_owned(), toon[t..].to_owned()))
            .collect()
    }

    #[test]
    fn cuts_each_record_of_a_root_list_after_its_first_key() {
        let json = r#"[{"id":1,"tags":["a,b","c"]},{"id":2,"x":{"y":"}"}}]"#;
        let toon = "[2]:\n  - id: 1\n    tags[2]: \"a,b\",c\n  - id: 2\n    x:\n      y: \"}\"";
        let found = pairs(json, toon);
        assert_eq!(found.len(), 2);
        assert!(found[0].0.starts_with("\":1,"), "{found:?}");
        assert!(found[0].1.starts_with(": 1\n"), "{found:?}");
        assert!(found[1].0.starts_with("\":2,"), "{found:?}");
        assert!(found[1].1.starts_with(": 2\n"), "{found:?}");
    }

    #[test]
    fn finds_the_lists_of_a_root_object_by_their_fields() {
        let json = r#"{"count":2,"meta":{"a":[1]},"results":[{"name":"x"},{"name":"y"}],"more":[{"k":1}]}"#;
        let toon =
            "count: 2\nmeta:\n  a[1]: 1\nresults[2]:\n  - name: x\n  - name: y\nmore[1]:\n  - k: 1";
        let found = pairs(json, toon);
        let tails: Vec<_> = found.iter().map(|(j, t)| (&j[..3], &t[..3])).collect();
        assert_eq!(
            tails,
            [("\":\"", ": x"), ("\":\"", ": y"), ("\":1", ": 1")],
            "{found:?}"
        );
    }

    #[test]
    fn finds_nothing_it_cannot_read_in_both() {
        // A tabular list, keys TOON quotes, a list out of step.
        assert!(pairs(r#"[{"a":1},{"a":2}]"#, "[2]{a}:\n  1\n  2").is_empty());
        assert!(pairs(r#"[{"a b":1}]"#, "[1]:\n  - \"a b\": 1").is_empty());
        assert!(pairs(r#"{"x":[{"a":1}]}"#, "y[1]:\n  - a: 1").is_empty());
        assert_eq!(pairs(r#"[{"a":1},{"a":2}]"#, "[2]:\n  - a: 1").len(), 1);
        assert!(pairs("", "").is_empty());
        assert!(pairs("[", "[1]:").is_empty());
        assert!(pairs(r#"[{"a":"#, "[1]:\n  - a: 1").is_empty());
    }

    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    /// Values whose strings hold what JSON escapes or structure uses, long
    /// enough to cross 64-byte blocks.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<i32>().prop_map(Value::from),
            "[a-z\"\\\\{}\\[\\],:\n\u{e9} -]{0,70}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z_ ]{1,6}", inner), 0..4)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    /// `value` with a first field in every object, in document order:
    /// keyed from a few names (some TOON quotes), holding a marker unique
    /// in the document.
    fn marked(value: Value, next: &mut usize) -> Value {
        match value {
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| marked(v, next)).collect())
            }
            Value::Object(fields) => {
                let key = ["id", "name", "a b", "k_9", "x-1"][*next % 5];
                let mut object = Map::new();
                object.insert(key.to_owned(), json!(format!("m{next}z")));
                *next += 1;
                for (name, value) in fields {
                    let value = marked(value, next);
                    object.entry(name).or_insert(value);
                }
                Value::Object(object)
            }
            other => other,
        }
    }

    /// A root list of records, or a root object with lists of records
    /// among other fields, every object marked.
    fn document() -> impl Strategy<Value = Value> {
        let object = || {
            proptest::collection::vec(("[a-z]{1,5}", value()), 0..4)
                .prop_map(|fields| Value::Object(fields.into_iter().collect()))
        };
        let records = move || proptest::collection::vec(object(), 1..6).prop_map(Value::Array);
        prop_oneof![
            records(),
            (records(), records(), value(), value()).prop_map(|(a, b, x, y)| {
                json!({"count": 2, "results": a, "meta": x, "more": b, "after": y})
            }),
        ]
        .prop_map(|document| marked(document, &mut 0))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn values_are_skipped_whole(value in value()) {
            let json = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(skip_value(json.as_bytes(), 0), Some(json.len()));
            // Both copies of the container walk, whichever the CPU takes,
            // and on every prefix (cut short, not taken for whole).
            if json.starts_with(['{', '[']) {
                for end in [json.len(), json.len() / 2, json.len().saturating_sub(1)] {
                    let cut = &json.as_bytes()[..end];
                    prop_assert_eq!(skip_container_with::<false>(cut, 0), skip_container(cut, 0));
                }
            }
            // Cut short, a container is not taken for whole.
            if json.len() > 1 && json.starts_with(['{', '[']) {
                prop_assert_eq!(skip_value(&json.as_bytes()[..json.len() - 1], 0), None);
            }
        }

        #[test]
        fn record_lines_are_found_as_a_substring_search_finds_them(
            parts in proptest::collection::vec("(\n|  |-| |\n  - |\n    - |a|\n  -)", 0..40),
        ) {
            let text = parts.concat();
            let text = text.as_bytes();
            for from in 0..text.len().min(8) {
                prop_assert_eq!(
                    record_line(&text[from..]),
                    memchr::memmem::find(&text[from..], b"\n  -")
                );
            }
        }

        #[test]
        fn each_cut_is_after_the_same_record_key_in_both(value in document()) {
            // Every object starts with a marker: whatever list a cut is
            // in, the same marker follows it in both texts.
            let json = serde_json::to_string(&value).unwrap();
            let toon = terse_toon::encode(&value, &terse_toon::EncodeOptions::default());
            let mut last = None;
            let cuts: Vec<_> = record_cuts(&json, &toon).collect();
            // A root list TOON writes as a list: every record whose first
            // key TOON writes as it is (`id`, `name`, `k_9`) is cut.
            if let (Value::Array(records), Some(header)) = (&value, toon.lines().next()) {
                if list_header(header.as_bytes(), b"").is_some() {
                    let simple = records
                        .iter()
                        .filter(|record| {
                            record.as_object().and_then(|fields| fields.keys().next()).is_some_and(
                                |key| !key.contains([' ', '-']),
                            )
                        })
                        .count();
                    prop_assert_eq!(cuts.len(), simple);
                }
            }
            for (json_at, toon_at) in cuts {
                // After a key, before its value: the same marker in both.
                let marker = |text: &str| -> Option<usize> {
                    let digits = text.split_once('m')?.1.split_once('z')?.0;
                    digits.parse().ok()
                };
                let (json_rest, toon_rest) = (&json[json_at..], &toon[toon_at..]);
                prop_assert!(json_rest.starts_with("\":\"m"), "{}", json_rest);
                prop_assert!(toon_rest.starts_with(": m"), "{}", toon_rest);
                let (json_marker, toon_marker) = (marker(json_rest), marker(toon_rest));
                prop_assert_eq!(json_marker, toon_marker);
                // In document order, each record once.
                prop_assert!(last < json_marker, "{:?} then {:?}", last, json_marker);
                last = json_marker;
            }
        }
    }
}
