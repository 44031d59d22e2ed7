//! What decoding a TOON request body may cost, known before it starts.
//!
//! Decoding builds a `serde_json::Value` tree, a few hundred bytes per
//! value, and one thing in TOON grows faster than its text: a table's
//! field names are written once in its header and repeated in every row's
//! object. A header of one 1 MiB key over a million one-byte rows is a few
//! MiB of TOON and a TiB of JSON. So one pass over the lines, before
//! anything is decoded, counts the values and the key bytes the rows will
//! repeat; the layer refuses a body whose repeated keys alone would pass
//! its output bound, and holds the rest against the memory budget.

use crate::render::{FIXED_BYTES, TREE_VALUE_BYTES};

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
    for line in toon.split(|&b| b == b'\n') {
        let indent = line
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let content = trim_end(&line[indent..]);
        if content.is_empty() {
            continue;
        }
        while open.last().is_some_and(|&(at, _)| at >= indent) {
            open.pop();
        }
        // Every line under a header is one of its rows (in a document that
        // decodes; in one that does not, the count only grows).
        if let Some(&(_, keys)) = open.last() {
            repeated_key_bytes = repeated_key_bytes.saturating_add(keys);
        }
        if let Some(keys) = field_list_bytes(content) {
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

    /// An upper bound on what decoding allocates beside the body: the tree
    /// (a node per value, and the repeated keys) and the JSON written from
    /// it (at most `max_output`, twice while its buffer grows).
    pub(crate) fn working_bytes(&self, toon_bytes: usize, max_output: usize) -> usize {
        self.values
            .saturating_mul(TREE_VALUE_BYTES)
            .saturating_add(self.repeated_key_bytes.saturating_mul(2))
            .saturating_add(
                self.json_bytes(toon_bytes)
                    .min(max_output)
                    .saturating_mul(2),
            )
            .saturating_add(FIXED_BYTES)
    }
}

/// The bytes of a tabular header's field list (`users[2]{id,name}:` has
/// `id,name`), or `None` for a line that opens no table. Quoted keys that
/// look like headers only over-count.
fn field_list_bytes(content: &[u8]) -> Option<usize> {
    let inner = content.strip_suffix(b":")?.strip_suffix(b"}")?;
    let open = inner.windows(2).position(|pair| pair == b"]{")?;
    Some(inner.len() - (open + 2))
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
