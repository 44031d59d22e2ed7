//! Line classification (§5.2) and array headers (§6): key, bracket segment,
//! field list with nested groups, colon.

use super::fail::{Fail, PResult};
use super::table::{Field, Table, TableCache};
use super::{MAX_DEPTH, scalar};
use std::rc::Rc;

/// A parsed array or keyed-table header.
#[derive(Debug)]
pub(super) struct Header {
    /// `None` for a keyless header (`[2]: a,b`).
    pub key: Option<String>,
    /// The declared length N.
    pub len: usize,
    /// Offset of the length digits, where count errors point.
    pub len_pos: usize,
    /// `[N:]`: a keyed table (§9.5).
    pub keyed: bool,
    pub delim: u8,
    /// The field list, ready to build rows.
    pub fields: Option<Rc<Table>>,
    /// Offset just after the header's colon.
    pub rest: usize,
    /// End of the line's content.
    pub end: usize,
}

/// What a line (or the part after a list-item `- `) is.
pub(super) enum Kind {
    /// `key: value`, or `key:` opening a block; `value` is the offset after
    /// the colon.
    KeyValue {
        key: String,
        value: usize,
    },
    Header(Header),
    /// No unquoted colon: a lone value token. `header` holds the reason a
    /// bracket in the line did not make it a header, if there was one.
    Scalar {
        header: Option<Fail>,
    },
}

/// Why a header candidate is not a header.
enum NotHeader {
    /// Malformed header syntax: an error in strict mode; lenient mode reads
    /// the line as `key: value` with a literal key (§6).
    Soft(Fail),
    /// An error in every mode (bad escape, nesting too deep).
    Hard(Fail),
}

impl From<Fail> for NotHeader {
    fn from(fail: Fail) -> Self {
        NotHeader::Hard(fail)
    }
}

fn soft<T>(pos: usize, msg: impl Into<String>) -> Result<T, NotHeader> {
    Err(NotHeader::Soft(Fail::new(pos, msg)))
}

/// Classifies the content `start..end` of a line.
pub(super) fn classify<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    strict: bool,
    tables: &mut TableCache<'a>,
) -> PResult<Kind> {
    let b = text.as_bytes();
    if b[start] == b'"' {
        let (key, after) = scalar::quoted(text, start, end)?;
        if after < end && b[after] == b'[' {
            return header_or_fallback(text, Some(key), start, after, end, strict, tables);
        }
        let mut i = after;
        while i < end && b[i] == b' ' {
            i += 1;
        }
        if i == end {
            return Ok(Kind::Scalar { header: None });
        }
        if b[i] != b':' {
            return Err(Fail::new(
                i,
                "unexpected characters after the closing quote",
            ));
        }
        return Ok(Kind::KeyValue { key, value: i + 1 });
    }
    let line = &b[..end];
    let mut i = start;
    while let Some(offset) = line[i..]
        .iter()
        .position(|&c| matches!(c, b':' | b'[' | b'"'))
    {
        i += offset;
        match line[i] {
            b':' => {
                return Ok(Kind::KeyValue {
                    key: text[start..trim_end(b, start, i)].to_owned(),
                    value: i + 1,
                });
            }
            b'[' => return header_or_fallback(text, None, start, i, end, strict, tables),
            _ => i = skip_quoted(line, i + 1),
        }
    }
    Ok(Kind::Scalar { header: None })
}

/// The offset after the quoted run whose body starts at `i` (the end of
/// `line` when it is unterminated; the token decoder reports that).
#[inline]
pub(super) fn skip_quoted(line: &[u8], mut i: usize) -> usize {
    while let Some(offset) = line[i..].iter().position(|&c| c == b'"' || c == b'\\') {
        i += offset;
        if line[i] == b'"' {
            return i + 1;
        }
        i = (i + 2).min(line.len());
    }
    line.len()
}

/// The line read as `literal key: value` at its first unquoted colon (the
/// lenient reading of a malformed header, §6).
pub(super) fn literal_key_value(text: &str, start: usize, end: usize) -> Option<Kind> {
    let colon = first_unquoted_colon(text.as_bytes(), start, end)?;
    Some(Kind::KeyValue {
        key: text[start..trim_end(text.as_bytes(), start, colon)].to_owned(),
        value: colon + 1,
    })
}

/// Offset of the first `:` outside double quotes in `start..end`.
pub(super) fn first_unquoted_colon(b: &[u8], start: usize, end: usize) -> Option<usize> {
    let line = &b[..end];
    let mut i = start;
    while let Some(offset) = line[i..].iter().position(|&c| c == b':' || c == b'"') {
        i += offset;
        if line[i] == b':' {
            return Some(i);
        }
        i = skip_quoted(line, i + 1);
    }
    None
}

/// `end` moved back over trailing spaces, not before `start`.
pub(super) fn trim_end(b: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && b[end - 1] == b' ' {
        end -= 1;
    }
    end
}

fn header_or_fallback<'a>(
    text: &'a str,
    quoted_key: Option<String>,
    start: usize,
    bracket: usize,
    end: usize,
    strict: bool,
    tables: &mut TableCache<'a>,
) -> PResult<Kind> {
    match header(text, quoted_key, start, bracket, end, strict, tables) {
        Ok(header) => Ok(Kind::Header(header)),
        Err(NotHeader::Hard(fail)) => Err(fail),
        Err(NotHeader::Soft(fail)) => {
            // A line whose `[` comes before its first colon must be a valid
            // header (spec 4.3); non-strict mode no longer reads it as a
            // key-value line either (unreleased after 4.3).
            if first_unquoted_colon(text.as_bytes(), start, end).is_some() {
                return Err(fail);
            }
            Ok(literal_key_value(text, start, end).unwrap_or(Kind::Scalar { header: Some(fail) }))
        }
    }
}

/// Parses the header whose bracket segment opens at `bracket`.
fn header<'a>(
    text: &'a str,
    quoted_key: Option<String>,
    start: usize,
    bracket: usize,
    end: usize,
    strict: bool,
    tables: &mut TableCache<'a>,
) -> Result<Header, NotHeader> {
    let b = text.as_bytes();
    let key = match quoted_key {
        Some(key) => Some(key),
        None if bracket == start => None,
        None if b[bracket - 1] == b' ' => {
            return soft(bracket - 1, "space between a key and its `[` array length");
        }
        None => Some(text[start..bracket].to_owned()),
    };

    let len_pos = bracket + 1;
    let mut i = len_pos;
    while i < end && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == len_pos {
        return soft(
            len_pos,
            "invalid array length: expected a number like `[3]`",
        );
    }
    if i - len_pos > 1 && b[len_pos] == b'0' {
        return soft(
            len_pos,
            "invalid array length: leading zeros are not allowed",
        );
    }
    let Ok(len) = text[len_pos..i].parse::<usize>() else {
        return soft(len_pos, "invalid array length: too large");
    };
    let keyed = i < end && b[i] == b':';
    i += usize::from(keyed);
    let delim = match b.get(i).filter(|_| i < end) {
        Some(&d @ (b'\t' | b'|')) => {
            i += 1;
            d
        }
        _ => b',',
    };
    if i >= end || b[i] != b']' {
        return soft(
            i.min(end),
            "invalid array header: expected `]` after the length (and optional `:` and tab or `|` delimiter)",
        );
    }
    i += 1;

    let mut fields = None;
    if i < end && b[i] == b'{' {
        if let Some((table, len)) = tables.get(delim, &text[i..end]) {
            fields = Some(table);
            i += len;
        } else {
            let mut duplicates = false;
            let (list, after) = field_list(text, i, end, delim, strict, 1, &mut duplicates)?;
            let table = Rc::new(Table::new(list, duplicates));
            tables.put(delim, &text[i..after], Rc::clone(&table));
            fields = Some(table);
            i = after;
        }
    }
    if i >= end || b[i] != b':' {
        return soft(i.min(end), "expected `:` right after the array header");
    }
    let rest = i + 1;
    if keyed && fields.is_none() {
        return soft(
            len_pos,
            "a keyed header `[N:]` needs a field list, as in `[2:]{a,b}:`",
        );
    }
    if fields.is_some() && rest < end {
        return soft(
            rest,
            "a table header takes no values after its `:`; rows go on the following lines",
        );
    }
    Ok(Header {
        key,
        len,
        len_pos,
        keyed,
        delim,
        fields,
        rest,
        end,
    })
}

/// Parses the field list whose `{` is at `open`; returns it and the offset
/// after its `}`.
fn field_list(
    text: &str,
    open: usize,
    end: usize,
    delim: u8,
    strict: bool,
    depth: usize,
    duplicates: &mut bool,
) -> Result<(Vec<Field>, usize), NotHeader> {
    if depth > MAX_DEPTH {
        return Err(NotHeader::Hard(Fail::new(
            open,
            format!("field groups nested deeper than {MAX_DEPTH} levels"),
        )));
    }
    let b = text.as_bytes();
    let mut fields: Vec<Field> = Vec::new();
    let mut i = open + 1;
    loop {
        while i < end && b[i] == b' ' {
            i += 1;
        }
        if i >= end {
            return soft(open, "unmatched `{` in the field list");
        }
        let name_pos = i;
        let name = if b[i] == b'"' {
            let (name, after) = scalar::quoted(text, i, end)?;
            i = after;
            name
        } else {
            while i < end && !matches!(b[i], b'{' | b'}') && b[i] != delim {
                i += 1;
            }
            let name_end = trim_end(b, name_pos, i);
            if name_end == name_pos {
                let msg = if b.get(i) == Some(&b'}') && fields.is_empty() {
                    "empty field list `{}`: name at least one field"
                } else {
                    "empty field name in the field list"
                };
                return soft(name_pos, msg);
            }
            let name = &text[name_pos..name_end];
            if let Some(other) = name.bytes().find(|c| matches!(c, b',' | b'|' | b'\t')) {
                if strict {
                    return soft(
                        name_pos,
                        format!(
                            "delimiter mismatch: the field list uses {} but the brackets declare {}",
                            describe(other),
                            describe(delim)
                        ),
                    );
                }
            }
            name.to_owned()
        };
        while i < end && b[i] == b' ' {
            i += 1;
        }
        let children = if i < end && b[i] == b'{' {
            let (list, after) = field_list(text, i, end, delim, strict, depth + 1, duplicates)?;
            i = after;
            Some(list)
        } else {
            None
        };
        fields.push(Field {
            name,
            pos: name_pos,
            children,
        });
        while i < end && b[i] == b' ' {
            i += 1;
        }
        match b.get(i).filter(|_| i < end) {
            Some(&c) if c == delim => i += 1,
            Some(b'}') => {
                if let Some(at) = first_duplicate(&fields) {
                    if strict {
                        return Err(NotHeader::Hard(Fail::new(
                            fields[at].pos,
                            format!("duplicate field `{}` in the header", fields[at].name),
                        )));
                    }
                    *duplicates = true;
                }
                return Ok((fields, i + 1));
            }
            None => return soft(open, "unmatched `{` in the field list"),
            Some(_) => {
                return soft(
                    i,
                    format!("expected {} or `}}` in the field list", describe(delim)),
                );
            }
        }
    }
}

/// Index of the first field whose name an earlier field already has.
fn first_duplicate(fields: &[Field]) -> Option<usize> {
    if fields.len() <= 16 {
        return (1..fields.len()).find(|&i| fields[..i].iter().any(|f| f.name == fields[i].name));
    }
    let mut order: Vec<usize> = (0..fields.len()).collect();
    order.sort_unstable_by(|&a, &b| fields[a].name.cmp(&fields[b].name).then(a.cmp(&b)));
    order
        .windows(2)
        .filter(|pair| fields[pair[0]].name == fields[pair[1]].name)
        .map(|pair| pair[1])
        .min()
}

/// A delimiter as people call it in messages.
pub(super) fn describe(delim: u8) -> &'static str {
    match delim {
        b'\t' => "tab",
        b'|' => "`|`",
        _ => "`,`",
    }
}
