//! JSON text as `serde_json` writes it, for the decoder's writer and the
//! row fragments of tables: strings escaped the same way, byte for byte.

/// Bytes a JSON string cannot hold as they are: `"`, `\` and the control
/// characters below U+0020 (`serde_json` leaves U+007F and all non-ASCII
/// text unescaped).
static ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Appends `text` as a JSON string: copied as one span when nothing in it
/// needs escaping (most keys and values), else escaped as `serde_json`
/// escapes it.
#[inline]
pub(super) fn write_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    match bytes.iter().position(|&b| ESCAPE[usize::from(b)]) {
        None => {
            out.reserve(bytes.len() + 2);
            out.push(b'"');
            out.extend_from_slice(bytes);
            out.push(b'"');
        }
        Some(first) => write_escaped(out, bytes, first),
    }
}

/// The slow half of [`write_str`]: the text has an escape at `first`.
#[cold]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8], first: usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    out.extend_from_slice(&bytes[..first]);
    let mut run = first;
    for (i, &b) in bytes.iter().enumerate().skip(first) {
        if !ESCAPE[usize::from(b)] {
            continue;
        }
        out.extend_from_slice(&bytes[run..i]);
        run = i + 1;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::write_str;

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut every: String = (0u8..0x80).map(char::from).collect();
        every.push_str("é\u{2028}\"\\/");
        for text in ["", "plain", "a\"b", "tab\there", &every] {
            let mut out = Vec::new();
            write_str(&mut out, text);
            assert_eq!(out, serde_json::to_vec(text).unwrap(), "{text:?}");
        }
    }
}
