//! What decoding a TOON request body may cost, known before it starts.
//!
//! Decoding writes JSON text as it reads (`decode_to_json`): beside the
//! text it holds, for each line, at most the key of an open object (to
//! find a repeated one) or a frame of its nesting, and for each field of
//! a table's header the field and its JSON fragment; the values of rows and
//! inline arrays cost nothing beyond the text they write. One thing in TOON
//! grows faster than its text: a table's
//! field names are written once in its header and repeated in every row's
//! object. A header of one 1 MiB key over a million one-byte rows is a few
//! MiB of TOON and a TiB of JSON. So one pass over the lines, before
//! anything is decoded, counts the values and the key bytes the rows will
//! repeat; the layer refuses a body whose repeated keys alone would pass
//! its output bound, and holds the rest against the memory budget.

use crate::render::FIXED_BYTES;

/// What decoding holds per line (a key of an open object with its entry
/// and its copy in the object's hash set past 16 keys, about 170 bytes)
/// or per field of a table header (the field, its name and its JSON
/// fragment, about 190 bytes), names of a few bytes included.
const HELD_BYTES: usize = 192;

/// The decoder's stack at its deepest: 256 levels of frames of some 160
/// bytes, twice while the stack grows.
const STACK_BYTES: usize = 256 * 160 * 2;

/// A TOON body as the decoder will see it, counted from above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToonShape {
    /// An upper bound on the values and keys: every one but the first
    /// follows a delimiter, a colon or a line break.
    pub(crate) values: usize,
    /// The field-name bytes the rows of tables repeat: for every line under a
    /// tabular header, the bytes of its field list. The JSON of a document
    /// that decodes is longer, so past the output bound it is refused
    /// before it is decoded.
    pub(crate) repeated_key_bytes: usize,
    /// An upper bound on what the decoder holds beside its output: the
    /// lines, and the fields of table headers.
    pub(crate) held: usize,
}

/// Counts `toon` in one pass, with one small stack of open headers (its
/// depth is bounded by the indentation, so by the square root of the body).
pub(crate) fn shape(toon: &[u8]) -> ToonShape {
    let values = 1 + toon
        .iter()
        .filter(|&&b| matches!(b, b',' | b'|' | b'\t' | b':' | b'\n'))
        .count();
    // The indentation and field-list bytes of the tabular headers whose
    // rows may follow, innermost last.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut repeated_key_bytes = 0usize;
    let mut held = 0usize;
    for line in toon.split(|&b| b == b'\n') {
        let indent = line
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let content = trim_end(&line[indent..]);
        if content.is_empty() {
            continue;
        }
        held += 1;
        while open.last().is_some_and(|&(at, _)| at >= indent) {
            open.pop();
        }
        // Every line under a header is one of its rows (in a document that
        // decodes; in one that does not, the count only grows).
        if let Some(&(_, keys)) = open.last() {
            repeated_key_bytes = repeated_key_bytes.saturating_add(keys);
        }
        if let Some(list) = field_list(content) {
            let keys = list.len();
            // A field follows `{` or a delimiter.
            held = held.saturating_add(
                1 + list
                    .iter()
                    .filter(|&&b| matches!(b, b',' | b'|' | b'\t' | b'{'))
                    .count(),
            );
            // A table that opens a list item (`- rows[2]{a}:`) has the
            // item's other fields beside it, at the item's indentation
            // past the hyphen; its rows are deeper.
            let mut item = content;
            let mut at = indent;
            while let Some(rest) = item.strip_prefix(b"- ") {
                item = rest;
                at += 2;
            }
            open.push((at, keys));
        }
    }
    ToonShape {
        values,
        repeated_key_bytes,
        held,
    }
}

impl ToonShape {
    /// An upper bound on the JSON text the body decodes to, before the
    /// output bound: every byte may need escaping (6 bytes for a control
    /// character), every value quotes and separators and a number its
    /// widest spelling (`1e19` is 20 digits), every repeated key quotes.
    pub(crate) fn json_bytes(&self, toon_bytes: usize) -> usize {
        toon_bytes
            .saturating_mul(6)
            .saturating_add(self.values.saturating_mul(24))
            .saturating_add(self.repeated_key_bytes.saturating_mul(2))
    }

    /// An upper bound on what decoding allocates beside the body: what it
    /// holds per line and header field ([`HELD_BYTES`], and the names
    /// longer than a few bytes, at most twice the body), its stack, and
    /// the JSON it writes (at most `max_output`, twice while its buffer
    /// grows).
    pub(crate) fn working_bytes(&self, toon_bytes: usize, max_output: usize) -> usize {
        self.held
            .saturating_mul(HELD_BYTES)
            .saturating_add(toon_bytes.saturating_mul(2))
            .saturating_add(STACK_BYTES)
            .saturating_add(
                self.json_bytes(toon_bytes)
                    .min(max_output)
                    .saturating_mul(2),
            )
            .saturating_add(FIXED_BYTES)
    }
}

/// A tabular header's field list (`users[2]{id,name}:` has `id,name`),
/// or `None` for a line that opens no table. Quoted keys that look like
/// headers only over-count.
fn field_list(content: &[u8]) -> Option<&[u8]> {
    let inner = content.strip_suffix(b":")?.strip_suffix(b"}")?;
    let open = inner.windows(2).position(|pair| pair == b"]{")?;
    Some(&inner[open + 2..])
}

fn trim_end(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t' | b'\r'] = line {
        line = rest;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_repeat_their_header_keys() {
        let toon = b"users[3]{id,name}:\n  1,Ada\n  2,Bob\n  3,Cy\ncount: 3";
        let shape = shape(toon);
        assert_eq!(shape.repeated_key_bytes, 3 * "id,name".len());
        assert!(shape.values >= 10);
    }

    #[test]
    fn nested_tables_count_the_innermost_header() {
        let toon = b"teams[1]:\n  - name: core\n    members[2]{id}:\n      1\n      2\n  - x: 1";
        // `members` repeats `id` twice; the list has no field list.
        assert_eq!(shape(toon).repeated_key_bytes, 4);
    }

    #[test]
    fn fields_beside_a_table_in_a_list_item_are_not_its_rows() {
        let toon = b"items[1]:\n  - rows[2]{a,b}:\n      1,2\n      3,4\n    x: 1\n    y: 2";
        assert_eq!(shape(toon).repeated_key_bytes, 2 * 3);
    }

    /// Decoding straight to JSON holds no more than the bound, on shapes
    /// that hold the most per byte: one-letter keys of one large object
    /// (each in its hash set too), deep nesting, a wide header, long
    /// names, escapes, a large table.
    #[test]
    fn decoding_stays_within_its_bound() {
        let mut docs = Vec::new();
        docs.push(
            (0..20_000)
                .map(|i| format!("k{i}: {}", i % 10))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        docs.push(
            (0..200)
                .map(|d| format!("{}k:", " ".repeat(2 * d)))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        let fields: Vec<String> = (0..5_000).map(|i| format!("f{i}")).collect();
        docs.push(format!(
            "t[2]{{{}}}:\n  {}\n  {}",
            fields.join(","),
            vec!["1"; 5_000].join(","),
            vec!["2"; 5_000].join(",")
        ));
        docs.push(format!(
            "{}: \"{}\"",
            "n".repeat(50_000),
            "\\t".repeat(20_000)
        ));
        let mut table = String::from("rows[20000]{a,b,c{d,e}}:\n");
        table.push_str(&"  1,x,3.5,\"y z\"\n".repeat(20_000));
        docs.push(table);
        let mut list = String::from("[5000]:");
        for i in 0..5_000 {
            list.push_str(&format!(
                "\n  - id: {i}\n    tags[3]: a,b,c\n    o:\n      p: q"
            ));
        }
        docs.push(list);
        for doc in docs {
            let shape = shape(doc.as_bytes());
            let bound = shape.working_bytes(doc.len(), usize::MAX >> 1);
            let peak = crate::render::peak_of(|| {
                let json =
                    crate::toon::decode_to_json(doc.as_bytes(), &Default::default(), usize::MAX)
                        .expect("decodes");
                assert!(!json.is_empty());
            });
            assert!(
                peak <= bound,
                "peak {peak} over the bound {bound} ({} bytes of TOON)",
                doc.len()
            );
        }
    }

    #[test]
    fn rows_and_inline_values_hold_nothing_beyond_their_text() {
        let mut table = String::from("rows[1000]{a,b,c{d,e}}:\n");
        table.push_str(&"  1,2,3,4\n".repeat(1000));
        // A line each, and the header's five fields.
        assert_eq!(shape(table.as_bytes()).held, 1001 + 5);
        let inline = format!("xs[1000]: {}", vec!["7"; 1000].join(","));
        assert_eq!(shape(inline.as_bytes()).held, 1);
    }

    #[test]
    fn a_long_key_over_many_rows_is_counted_not_built() {
        let key = "k".repeat(1 << 16);
        let mut toon = format!("t[1000]{{{key}}}:\n");
        toon.push_str(&"  x\n".repeat(1000));
        let shape = shape(toon.as_bytes());
        assert_eq!(shape.repeated_key_bytes, 1000 << 16);
        assert!(shape.json_bytes(toon.len()) >= 1000 << 16);
    }

    #[test]
    fn the_decoded_json_stays_under_the_bound() {
        let docs = [
            "a: 1\nb[3]: x,\"y z\",1e19",
            "rows[2]{id,tags}:\n  1,\"\\t\"\n  2,",
            "[3]: ,,",
            "o:\n  p:\n    q[2|]{a|b}:\n      1|2\n      3|4",
        ];
        for doc in docs {
            let value = crate::toon::decode(doc, &Default::default()).expect(doc);
            let json = serde_json::to_vec(&value).unwrap();
            assert!(
                json.len() <= shape(doc.as_bytes()).json_bytes(doc.len()),
                "{doc}"
            );
        }
    }
}
