//! When TOON text needs double quotes, and how quoted text is escaped.
//!
//! These rules (spec §7) are shared by every writer in the crate: object keys,
//! tabular field names and entry keys follow [`is_unquoted_key`]; string
//! values follow [`needs_quotes`]; anything quoted is escaped by
//! [`write_quoted`].

use crate::encode::out::{Out, Sink};
use crate::words::{HIGH, ascii_digits};

/// Bytes that force a string value into quotes wherever they appear: the
/// structural characters `: " \ [ ] { }`, every C0 control character, and
/// `delimiter`. The plain statement of what [`any_forces`] finds, for its
/// tests.
#[cfg(test)]
const fn forces_quotes(delimiter: u8) -> [bool; 256] {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    let structural = b":\"\\[]{}";
    let mut i = 0;
    while i < structural.len() {
        table[structural[i] as usize] = true;
        i += 1;
    }
    table[delimiter as usize] = true;
    table
}

/// Per byte, whether it may start an unquoted key (`KEY_START`) and
/// whether it may follow the start (`KEY_REST`): one table lookup and one
/// branch per byte, as every key of a document goes through this check.
const KEY_START: u8 = 1;
const KEY_REST: u8 = 2;
static KEY_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        if b.is_ascii_alphabetic() || b == b'_' {
            table[byte] = KEY_START | KEY_REST;
        } else if b.is_ascii_digit() || b == b'.' {
            table[byte] = KEY_REST;
        }
        byte += 1;
    }
    table
};

/// Whether `key` may be written without quotes (`^[A-Za-z_][A-Za-z0-9_.]*$`).
#[inline]
pub(crate) fn is_unquoted_key(key: &str) -> bool {
    is_unquoted_key_bytes(key.as_bytes())
}

/// [`is_unquoted_key`] of the bytes of a key.
#[inline]
fn is_unquoted_key_bytes(key: &[u8]) -> bool {
    let Some((&first, rest)) = key.split_first() else {
        return false;
    };
    // `&` over the bytes: no early exit, so the loop has no branch per byte
    // (keys are short; a key that fails is rare).
    let rest_ok = rest
        .iter()
        .fold(KEY_REST, |ok, &b| ok & KEY_BYTES[b as usize]);
    KEY_BYTES[first as usize] & KEY_START != 0 && rest_ok != 0
}

/// Whether the string value `value` must be quoted when `delimiter` is the
/// delimiter that matters at its position (spec §7.2, §11.1).
pub(crate) fn needs_quotes(value: &str, delimiter: u8) -> bool {
    needs_quotes_bytes(value.as_bytes(), delimiter)
}

/// [`needs_quotes`] of the bytes of a string value.
#[inline(always)]
fn needs_quotes_bytes(bytes: &[u8], delimiter: u8) -> bool {
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return true;
    };
    // What the first byte asks for, in one lookup: most values start with
    // a letter that asks for nothing, which a chain of range checks took
    // a dozen instructions to find.
    let lead = FIRST_BYTES[first as usize];
    // Tabs at either end are control characters, caught by the scan below.
    if lead == FIRST_QUOTES || last == b' ' {
        return true;
    }
    if any_forces(bytes, delimiter) {
        return true;
    }
    match lead {
        FIRST_PLAIN => false,
        FIRST_DIGIT => is_numeric_like_quick(bytes),
        FIRST_PLUS => is_numeric_like(bytes),
        _ => matches!(bytes, b"true" | b"false" | b"null"),
    }
}

/// What the first byte of a string value asks of it ([`FIRST_BYTES`]).
const FIRST_PLAIN: u8 = 0;
/// ` `, `-` or `#`: quoted whatever follows.
const FIRST_QUOTES: u8 = 1;
/// A digit: quoted when the value reads as a number.
const FIRST_DIGIT: u8 = 2;
/// `+`: quoted when the value reads as a number.
const FIRST_PLUS: u8 = 3;
/// `t`, `f` or `n`: quoted when the value is `true`, `false` or `null`.
const FIRST_WORD: u8 = 4;
static FIRST_BYTES: [u8; 256] = {
    let mut table = [FIRST_PLAIN; 256];
    table[b' ' as usize] = FIRST_QUOTES;
    table[b'-' as usize] = FIRST_QUOTES;
    table[b'#' as usize] = FIRST_QUOTES;
    let mut digit = b'0';
    while digit <= b'9' {
        table[digit as usize] = FIRST_DIGIT;
        digit += 1;
    }
    table[b'+' as usize] = FIRST_PLUS;
    table[b't' as usize] = FIRST_WORD;
    table[b'f' as usize] = FIRST_WORD;
    table[b'n' as usize] = FIRST_WORD;
    table
};

/// [`is_numeric_like`] of a value that starts with a digit, answered
/// inline where the run of leading digits is one to seven bytes and the
/// value's end or a byte other than a point or an exponent closes it (a
/// date, a code with a dash, a short count): most such values, which the
/// call cost as much again as the rest of the check.
#[inline(always)]
fn is_numeric_like_quick(bytes: &[u8]) -> bool {
    let word = match bytes.first_chunk::<8>() {
        Some(first) => u64::from_le_bytes(*first),
        None => short_u64(bytes),
    };
    let run = ((!ascii_digits(word) & HIGH).trailing_zeros() / 8) as usize;
    match bytes.get(run) {
        _ if run >= 8 => is_numeric_like(bytes),
        None => true,
        Some(b'.' | b'e' | b'E') => is_numeric_like(bytes),
        Some(_) => false,
    }
}

/// Whether any byte of `bytes` forces quotes ([`forces_quotes`] of
/// `delimiter`), sixteen bytes a step. Short values are read as
/// overlapping words, their bytes repeated to fill sixteen (a repeat
/// changes no answer), so no value needs a loop or padding; longer ones
/// sixteen bytes a step, the last step overlapping the one before.
#[inline(always)]
fn any_forces(bytes: &[u8], delimiter: u8) -> bool {
    let n = bytes.len();
    match n {
        0 => false,
        // The repeated bytes are put together as integers: built as byte
        // arrays, they were taken apart and put back a byte at a time.
        1..=3 => {
            let (a, b, c) = (bytes[0], bytes[n / 2], bytes[n - 1]);
            let word = u64::from(u32::from_le_bytes([a, b, c, a])) * 0x1_0000_0001;
            forces_in(twice(word), delimiter)
        }
        4..=7 => {
            let (low, high) = (half(bytes, 0), half(bytes, n - 4));
            let word =
                u64::from(u32::from_le_bytes(low)) | u64::from(u32::from_le_bytes(high)) << 32;
            forces_in(twice(word), delimiter)
        }
        8..=16 => forces_in(join(word(bytes, 0), word(bytes, n - 8)), delimiter),
        // Two steps, the second overlapping the first, without the loop's
        // count (an e-mail address, a URL path, a short sentence).
        17..=32 => {
            forces_in(join(word(bytes, 0), word(bytes, 8)), delimiter)
                | forces_in(join(word(bytes, n - 16), word(bytes, n - 8)), delimiter)
        }
        _ => {
            let mut found = false;
            let mut at = 0;
            while at + 16 < n {
                found |= forces_in(join(word(bytes, at), word(bytes, at + 8)), delimiter);
                at += 16;
            }
            found | forces_in(join(word(bytes, n - 16), word(bytes, n - 8)), delimiter)
        }
    }
}

/// The eight bytes of `bytes` from `at`.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> [u8; 8] {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    word
}

/// The four bytes of `bytes` from `at`.
#[inline(always)]
fn half(bytes: &[u8], at: usize) -> [u8; 4] {
    let mut half = [0; 4];
    half.copy_from_slice(&bytes[at..at + 4]);
    half
}

/// A word's eight bytes twice, as sixteen.
#[inline(always)]
fn twice(word: u64) -> [u8; 16] {
    (u128::from(word) * ((1 << 64) | 1)).to_le_bytes()
}

/// Two words as sixteen bytes, `low` first.
#[inline(always)]
fn join(low: [u8; 8], high: [u8; 8]) -> [u8; 16] {
    let mut both = [0; 16];
    both[..8].copy_from_slice(&low);
    both[8..].copy_from_slice(&high);
    both
}

/// Whether any of sixteen bytes forces quotes: a control byte (at most
/// 0x1F), `"`, `:`, `\\`, the delimiter, and the brackets and braces,
/// which are two bytes each once bit 5 is set (`[` and `{` both read 0x7B,
/// `]` and `}` 0x7D; nothing else does). Written as a mask per byte over a
/// fixed sixteen, without a branch or a table, so that the compiler turns
/// it into a few vector compares (SSE2 on x86-64) rather than sixteen
/// lookups.
#[inline(always)]
fn forces_in(bytes: [u8; 16], delimiter: u8) -> bool {
    let mut hits = [0u8; 16];
    for (hit, b) in hits.iter_mut().zip(bytes) {
        let folded = b | 0x20;
        *hit = u8::from(
            (b <= 0x1f)
                | (b == b'"')
                | (b == b':')
                | (b == b'\\')
                | (folded == b'{')
                | (folded == b'}')
                | (b == delimiter),
        );
    }
    u128::from_le_bytes(hits) != 0
}

/// [`any_forces`] by the flag table of the delimiter: the plain reading
/// the scan is tested against.
#[cfg(test)]
fn any_forces_by_table(bytes: &[u8], delimiter: u8) -> bool {
    let forces = forces_quotes(delimiter);
    bytes.iter().any(|&b| forces[b as usize])
}

/// `^[+-]?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$`, case-insensitive.
///
/// Most values that start with a digit are digits alone (a code) or
/// digits and then a separator (a date): the run of leading digits is
/// counted from the value's first word, and only a value with a sign, a
/// point or an exponent after its digits, or a run that fills the word,
/// takes the pattern's walk. A call of its own: inlined into the writers
/// of cells and fields, it made them slower.
#[inline(never)]
fn is_numeric_like(bytes: &[u8]) -> bool {
    // The first eight bytes; past a shorter value, zeros, which are not
    // digits, so the run ends inside it unless it is eight digits.
    let word = match bytes.first_chunk::<8>() {
        Some(first) => u64::from_le_bytes(*first),
        None => short_u64(bytes),
    };
    let others = !ascii_digits(word) & HIGH;
    let run = (others.trailing_zeros() / 8) as usize;
    match bytes.get(run) {
        None => run > 0,
        Some(b'.' | b'e' | b'E') if run > 0 => is_numeric_like_walk(bytes),
        // Eight digits, and more of the value: the run may go on.
        Some(_) if run == 8 => is_numeric_like_walk(bytes),
        Some(_) if run > 0 => false,
        Some(_) => is_numeric_like_walk(bytes),
    }
}

/// [`is_numeric_like`] by a walk of the pattern.
fn is_numeric_like_walk(bytes: &[u8]) -> bool {
    let mut i = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == bytes.len()
}

/// Writes `text` in double quotes, escaped per spec §7.1: `\\`, `\"`, `\n`,
/// `\r`, `\t`, and `\u00xx` (lowercase hex) for the other C0 controls.
pub(crate) fn write_quoted(out: &mut impl Sink, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    // Most quoted values (a number as a string, a value with a colon or a
    // delimiter) escape nothing: the quotes and the text in one write.
    if escapes_nothing(bytes) {
        out.push_quoted(text);
        return;
    }
    out.push('"');
    let mut run_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[run_start..i]);
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 0xf) as usize] as char);
        } else {
            out.push_str(escape);
        }
        run_start = i + 1;
    }
    out.push_str(&text[run_start..]);
    out.push('"');
}

/// Whether quoting `bytes` escapes nothing (no control byte, quote or backslash):
/// then the quotes and the text go out in one write.
#[inline(always)]
fn escapes_nothing(bytes: &[u8]) -> bool {
    !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// The keys found to need no quotes lately, by their bytes: a document's
/// objects repeat a few keys many times (every record of a list has the
/// same ones), and finding a key here is a multiply, a load and two
/// compares where [`is_unquoted_key`] reads it byte by byte. Keys of up to
/// eight bytes, the most common, are kept: the bytes and the length are
/// the whole key.
pub(crate) struct PlainKeys {
    words: [u64; 64],
    /// The keys' lengths; 0 for an empty place.
    lens: [u8; 64],
}

impl PlainKeys {
    pub(crate) fn new() -> Self {
        PlainKeys {
            words: [0; 64],
            lens: [0; 64],
        }
    }

    /// The bytes of `key` as the low bytes of a word (zeros above), when
    /// it is a key of one to eight bytes that needs no quotes
    /// ([`is_unquoted_key`]); a key that does is remembered.
    #[inline(always)]
    pub(crate) fn plain_word(&mut self, key: &[u8]) -> Option<u64> {
        let bytes = key;
        let n = bytes.len();
        if !(1..=8).contains(&n) {
            return None;
        }
        let word = short_u64(bytes);
        // The top six bits of a multiplicative hash: below 64.
        let place = (word.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        if self.words[place] == word && usize::from(self.lens[place]) == n {
            return Some(word);
        }
        if !is_unquoted_key_bytes(key) {
            return None;
        }
        self.words[place] = word;
        // `n` is at most 8.
        self.lens[place] = n as u8;
        Some(word)
    }
}

/// `bytes` (1 to 8 of them) as the low bytes of a `u64`, zeros above: two
/// overlapping reads, or three bytes.
#[inline(always)]
fn short_u64(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let u32_at = |i: usize| {
        bytes
            .get(i..i + 4)
            .and_then(|w| w.try_into().ok())
            .map_or(0, |w| u64::from(u32::from_le_bytes(w)))
    };
    let at = |i: usize| u64::from(bytes.get(i).copied().unwrap_or(0));
    match n {
        8 => bytes
            .first_chunk::<8>()
            .map_or(0, |w| u64::from_le_bytes(*w)),
        4..=7 => u32_at(0) | (u32_at(n - 4) << (8 * (n - 4))),
        1..=3 => at(0) | (at(n / 2) << (8 * (n / 2))) | (at(n - 1) << (8 * (n - 1))),
        _ => 0,
    }
}

/// Writes an object key, tabular field name or entry key (spec §7.3).
/// Always inlined: every key of a document goes through it, and as a call
/// it cost more than its body.
#[inline(always)]
pub(crate) fn write_key(out: &mut impl Sink, key: &str) {
    if is_unquoted_key(key) {
        out.push_str(key);
    } else {
        write_quoted(out, key);
    }
}

/// [`write_key`] of a key given as its bytes (whole text) and then
/// `suffix` (`": "`, `":"` or nothing), in one write when the key needs no
/// quotes and both are short; whether it needs them is asked of `plain`
/// first. The key is looked at as a `&str` only to be quoted.
#[inline(always)]
pub(crate) fn write_key_then(out: &mut Out, plain: &mut PlainKeys, key: &[u8], suffix: &str) {
    if let Some(word) = plain.plain_word(key) {
        out.push_word_then(word, key.len(), suffix);
    } else if is_unquoted_key_bytes(key) {
        out.push_bytes_then(key, suffix);
    } else {
        write_quoted_bytes(out, key);
        out.push_str(suffix);
    }
}

/// [`write_quoted`] of whole text given as its bytes: looked at as a
/// `&str` only when something in it is escaped.
fn write_quoted_bytes(out: &mut Out, text: &[u8]) {
    if escapes_nothing(text) {
        out.push_quoted_bytes(text);
        return;
    }
    write_escaped_bytes(out, text);
}

/// [`write_quoted`] of whole text given as its bytes, which escapes
/// something.
#[cold]
fn write_escaped_bytes(out: &mut Out, text: &[u8]) {
    match std::str::from_utf8(text) {
        Ok(text) => write_quoted(out, text),
        // Never taken: the bytes are whole text.
        Err(_) => write_quoted(out, &String::from_utf8_lossy(text)),
    }
}

/// Writes a root string value (the whole document): as [`write_string`],
/// and quoted when it starts with U+FEFF, which a decoder would drop as a
/// byte order mark at the start of the document (spec 4.1.2, §7.2). Elsewhere
/// U+FEFF is content like any other character.
pub(crate) fn write_root_string(out: &mut impl Sink, value: &str, delimiter: u8) {
    if value.starts_with('\u{feff}') {
        write_quoted(out, value);
    } else {
        write_string(out, value, delimiter);
    }
}

/// [`write_string`] of a value given as its bytes (whole text of the
/// document), into the emitter's output, which takes bytes: the text is
/// looked at as a `&str` only to be quoted.
// Always inlined: a table's cells and an object's fields write one each,
// and as a call it cost about a fifth of its body.
#[inline(always)]
pub(crate) fn write_string_bytes(out: &mut Out, value: &[u8], delimiter: u8) {
    write_string_bytes_led(out, None, value, delimiter);
}

/// [`write_string_bytes`] led by `lead` (a table's delimiter) when there
/// is one: written with the value in one word when both fit one.
///
/// A value of eight to sixteen bytes (a name, a date, a code) is checked
/// and written as its first and last eight bytes, one of four to seven
/// (a state, a city, a short code) as its first and last four, its length
/// looked at once: asked apart, the check and the write each went through
/// the lengths again and read the value again, and a long value's check
/// had to find out whether a literal such as `true` could be among them.
/// Values under four bytes and over sixteen take the general check.
#[inline(always)]
pub(crate) fn write_string_bytes_led(out: &mut Out, lead: Option<u8>, value: &[u8], delimiter: u8) {
    let n = value.len();
    if n < 8 {
        if let Some((low, high)) = value.first_chunk::<4>().zip(value.last_chunk::<4>()) {
            // Four to seven bytes: the first four and the last four, read
            // once for the check and the write.
            let (low, high) = (u32::from_le_bytes(*low), u32::from_le_bytes(*high));
            // The last four bytes over the first's end: at most seven
            // bytes, so the shift is less than 32.
            let word = || u64::from(low) | u64::from(high) << (8 * (n - 4));
            match short_quotes(low, high, value, delimiter) {
                Quotes::No => {
                    out.push_short_led(lead, word(), n);
                    return;
                }
                // A zip code or an id that reads as a number, quoted: with
                // its quotes (and the lead) in one word when they fit.
                Quotes::Whole if n + usize::from(lead.is_some()) <= 5 + 1 => {
                    let quote = u64::from(b'"');
                    let quoted = quote | word() << 8 | quote << (8 * (n + 1));
                    out.push_short_led(lead, quoted, n + 2);
                    return;
                }
                Quotes::Whole => {
                    write_whole_quoted_led(out, lead, value);
                    return;
                }
                Quotes::Escaped => {}
            }
        } else if !needs_quotes_bytes(value, delimiter) {
            out.push_bytes_led(lead, value);
            return;
        }
    } else if let Some((head, tail)) = value.first_chunk::<8>().zip(value.last_chunk::<8>()) {
        if n <= 16 {
            if !mid_needs_quotes(head, tail, value, delimiter) {
                out.push_mid_led(lead, value);
                return;
            }
        } else if !needs_quotes_bytes(value, delimiter) {
            out.push_bytes_led(lead, value);
            return;
        }
    }
    if let Some(lead) = lead {
        out.push_byte(lead);
    }
    write_quoted_bytes(out, value);
}

/// Whether a short string value is quoted, and how.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quotes {
    /// Written as it is.
    No,
    /// Quoted, and found to hold no byte that forces quotes, so none that
    /// is escaped (a number or a literal as a string, a zip code).
    Whole,
    /// Quoted, escaped as it needs.
    Escaped,
}

/// [`needs_quotes_bytes`] of a value of four to seven bytes, `bytes`,
/// given also as its first four (`low`) and last four (`high`), and
/// whether a quoted one escapes nothing.
#[inline(always)]
fn short_quotes(low: u32, high: u32, bytes: &[u8], delimiter: u8) -> Quotes {
    let lead = FIRST_BYTES[(low & 0xff) as usize];
    if lead == FIRST_QUOTES
        || high >> 24 == u32::from(b' ')
        || forces_in(twice(u64::from(low) | u64::from(high) << 32), delimiter)
    {
        return Quotes::Escaped;
    }
    let quoted = match lead {
        FIRST_PLAIN => false,
        FIRST_DIGIT => is_numeric_like_quick(bytes),
        FIRST_PLUS => is_numeric_like(bytes),
        _ => matches!(bytes, b"true" | b"false" | b"null"),
    };
    if quoted { Quotes::Whole } else { Quotes::No }
}

/// `lead` when there is one, then `text` (whole text that escapes
/// nothing) in quotes, without the look for escapes: a short code or zip
/// that reads as a number. A call of its own, out of the way of the
/// values written as they are.
#[cold]
#[inline(never)]
fn write_whole_quoted_led(out: &mut Out, lead: Option<u8>, text: &[u8]) {
    if let Some(lead) = lead {
        out.push_byte(lead);
    }
    out.push_quoted_bytes(text);
}

/// [`needs_quotes_bytes`] of a value of eight to sixteen bytes, `bytes`,
/// given also as its first and last eight.
#[inline(always)]
fn mid_needs_quotes(head: &[u8; 8], tail: &[u8; 8], bytes: &[u8], delimiter: u8) -> bool {
    let lead = FIRST_BYTES[usize::from(head[0])];
    if lead == FIRST_QUOTES || tail[7] == b' ' || forces_in(join(*head, *tail), delimiter) {
        return true;
    }
    match lead {
        FIRST_DIGIT => {
            let run = non_digits(u64::from_le_bytes(*head)).trailing_zeros() / 8;
            match head.get(run as usize) {
                Some(b'.' | b'e' | b'E') => is_numeric_like(bytes),
                Some(_) => false,
                // Eight digits, and more of the value: the run may go on.
                None => is_numeric_like(bytes),
            }
        }
        FIRST_PLUS => is_numeric_like(bytes),
        // `true`, `false` and `null` are shorter.
        _ => false,
    }
}

/// The high bit of each byte of `word` that is not an ASCII digit, and no
/// other bit: less to compute than the complement of [`ascii_digits`], as
/// the digits are the bytes that read 0 to 9 once `0` is taken off by an
/// exclusive or, whose low seven bits plus 0x76 carry into the byte's high
/// bit past 9 (never into the next byte).
#[inline(always)]
fn non_digits(word: u64) -> u64 {
    let from_zero = word ^ 0x3030_3030_3030_3030;
    (((from_zero & !HIGH) + 0x7676_7676_7676_7676) | from_zero) & HIGH
}

/// Writes a string value, quoted only when [`needs_quotes`] says so.
pub(crate) fn write_string(out: &mut impl Sink, value: &str, delimiter: u8) {
    if needs_quotes(value, delimiter) {
        write_quoted(out, value);
    } else {
        out.push_str(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The count of a short value's leading digits answers as the walk
        /// of the pattern does, at every length around a word's.
        #[test]
        fn numeric_like_by_count_is_the_walk(value in "[0-9+.eE/:\u{0}-]{0,3}[0-9]{0,10}[0-9a.eE+ :/\u{80}-]{0,3}") {
            proptest::prop_assert_eq!(
                is_numeric_like(value.as_bytes()),
                is_numeric_like_walk(value.as_bytes()),
                "{:?}", value
            );
        }
    }

    proptest::proptest! {
        /// The inline answer for a value that starts with a digit is the
        /// walk's, around every length of the leading run (none to past a
        /// word) and every kind of byte that may close it.
        #[test]
        fn numeric_like_inline_is_the_walk(value in "[0-9][0-9]{0,9}[0-9+.eE/:\u{0}\t a\u{80}-]{0,3}[0-9a.eE+ :/\u{7f}-]{0,4}") {
            proptest::prop_assert_eq!(
                is_numeric_like_quick(value.as_bytes()),
                is_numeric_like_walk(value.as_bytes()),
                "{:?}", value
            );
        }
    }

    proptest::proptest! {
        /// A cell or field written from its bytes into the emitter's
        /// output, led by a delimiter or not, is the general writer's text:
        /// every length around the inline stores' widths, every kind of byte
        /// (controls, quotes, structure, delimiters, digits, signs, spaces,
        /// non-ASCII) at every place.
        #[test]
        fn cells_from_bytes_are_the_general_writers(
            value in r##"[a-z0-9 \x00-\x1f\x7f\\":,|\t\[\]{}#+.eE\-é€]{0,40}|(true|false|null|[0-9]{1,12}([.eE][0-9]{0,3})?)|[+0-9][0-9]{0,9}[-.eE:/ a]?[0-9+\-]{0,6}[ a]?"##,
            lead in proptest::option::of(proptest::sample::select(vec![b',', b'|', b'\t'])),
            delimiter in proptest::sample::select(vec![b',', b'|', b'\t']),
            before in 0usize..40,
        ) {
            let mut out = Out::new(0, 1 << 20);
            let mut expected = "x".repeat(before);
            out.push_bytes(expected.as_bytes());
            write_string_bytes_led(&mut out, lead, value.as_bytes(), delimiter);
            write_string_bytes(&mut out, value.as_bytes(), delimiter);
            if let Some(lead) = lead {
                expected.push(char::from(lead));
            }
            write_string(&mut expected, &value, delimiter);
            write_string(&mut expected, &value, delimiter);
            proptest::prop_assert_eq!(out.finish(), Some(expected));
        }
    }

    #[test]
    fn non_digits_are_every_byte_but_the_digits() {
        for byte in 0..=u8::MAX {
            for place in 0..8 {
                for fill in [b'5', b'a', 0xff, 0, b'/', b':'] {
                    let mut bytes = [fill; 8];
                    bytes[place] = byte;
                    let want = bytes.iter().enumerate().fold(0, |mask, (i, b)| {
                        mask | u64::from(!b.is_ascii_digit()) << (8 * i + 7)
                    });
                    assert_eq!(non_digits(u64::from_le_bytes(bytes)), want, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn unquoted_keys_follow_the_identifier_pattern() {
        for key in ["a", "_", "user.name", "A1_b.c", "__proto__"] {
            assert!(is_unquoted_key(key), "{key}");
        }
        for key in ["", "1a", ".a", "a-b", "a b", "café", "a:b", "-x"] {
            assert!(!is_unquoted_key(key), "{key}");
        }
    }

    proptest::proptest! {
        /// Whatever keys came before (a key and the same bytes with a NUL
        /// after them, keys that share a place), a key's word is its bytes
        /// exactly when it is a short key that needs no quotes.
        #[test]
        fn remembered_keys_are_those_that_need_no_quotes(
            keys in proptest::collection::vec("[a-c_.0-9 é\u{0}]{0,9}", 1..60),
        ) {
            let mut plain = PlainKeys::new();
            for key in keys.iter().chain(&keys) {
                let expected = (1..=8).contains(&key.len()) && is_unquoted_key(key);
                let word = plain.plain_word(key.as_bytes());
                proptest::prop_assert_eq!(word.is_some(), expected, "{:?}", key);
                if let Some(word) = word {
                    proptest::prop_assert_eq!(&word.to_le_bytes()[..key.len()], key.as_bytes());
                    if key.len() < 8 {
                        proptest::prop_assert_eq!(word >> (8 * key.len()), 0);
                    }
                }
            }
        }

        #[test]
        fn the_key_table_is_the_identifier_pattern(key in "[a-zA-Z0-9_. :é\\-]{0,6}") {
            let bytes = key.as_bytes();
            let expected = bytes.first().is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
                && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
            proptest::prop_assert_eq!(is_unquoted_key(&key), expected);
        }
    }

    #[test]
    fn values_are_quoted_when_ambiguous_or_structural() {
        let quoted = [
            "",
            " a",
            "a ",
            "\ta",
            "true",
            "false",
            "null",
            "42",
            "-3.14",
            "05",
            "+1",
            "1e-6",
            "1E+9",
            "a:b",
            "say \"hi\"",
            "C:\\x",
            "[3]",
            "{k}",
            "a\nb",
            "-",
            "- item",
            "#",
            "#x",
            "a,b",
        ];
        for value in quoted {
            assert!(needs_quotes(value, b','), "{value:?}");
        }
        let bare = [
            "hello",
            "a b",
            "café",
            "🚀",
            "1.",
            ".5",
            "1e",
            "1.2.3",
            "True",
            "a|b",
            "x-y",
            "a#",
            "\u{a0}x\u{a0}",
        ];
        for value in bare {
            assert!(!needs_quotes(value, b','), "{value:?}");
        }
        assert!(needs_quotes("a|b", b'|'));
        assert!(needs_quotes("a\tb", b'\t'));
        assert!(!needs_quotes("a,b", b'|'));
    }

    /// [`needs_quotes`] by the plainest reading of spec §7.2.
    fn needs_quotes_plainly(value: &str, delimiter: u8) -> bool {
        value.is_empty()
            || value.starts_with([' ', '-', '#'])
            || value.ends_with(' ')
            || value
                .bytes()
                .any(|b| b < 0x20 || b":\"\\[]{}".contains(&b) || b == delimiter)
            || matches!(value, "true" | "false" | "null")
            || (value.starts_with(|c: char| c.is_ascii_digit() || c == '+')
                && numeric_plainly(value))
    }

    /// `^[+-]?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$`, case-insensitive, by
    /// splitting the text.
    fn numeric_plainly(value: &str) -> bool {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let unsigned = value.strip_prefix(['+', '-']).unwrap_or(value);
        let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
            Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
            None => (unsigned, None),
        };
        let mantissa_ok = match mantissa.split_once('.') {
            Some((int, frac)) => digits(int) && digits(frac),
            None => digits(mantissa),
        };
        mantissa_ok && exponent.is_none_or(digits)
    }

    #[test]
    fn a_forcing_byte_is_found_at_every_offset_of_a_word() {
        // The scan takes eight bytes a step and the rest one by one: each
        // byte that forces quotes, at each offset of strings of up to 40
        // bytes, between fillers that do not.
        let forcing: &[u8] = b":\"\\[]{},|\t\n\r\x00\x1f";
        for delimiter in [b',', b'\t', b'|'] {
            for len in 1..40 {
                for filler in ["a", "_", "~", "\u{7f}", "é"] {
                    let plain = filler.repeat(len);
                    assert!(!needs_quotes(&plain, delimiter), "{plain:?}");
                    for at in 0..len {
                        for &byte in forcing {
                            let mut value: Vec<char> = plain.chars().collect();
                            value[at] = char::from(byte);
                            let value: String = value.into_iter().collect();
                            assert_eq!(
                                needs_quotes(&value, delimiter),
                                needs_quotes_plainly(&value, delimiter),
                                "{value:?} with {delimiter}"
                            );
                            let mut out = String::new();
                            write_string(&mut out, &value, delimiter);
                            let quoted = needs_quotes_plainly(&value, delimiter);
                            assert_eq!(out.starts_with('"'), quoted, "{value:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_scan_agrees_with_the_table_on_every_byte_at_every_length() {
        for delimiter in [b',', b'\t', b'|'] {
            for len in 1..48 {
                for at in 0..len {
                    for byte in 0..=255u8 {
                        let mut bytes = vec![b'a'; len];
                        bytes[at] = byte;
                        assert_eq!(
                            any_forces(&bytes, delimiter),
                            any_forces_by_table(&bytes, delimiter),
                            "{byte:#x} at {at} of {len}, delimiter {delimiter}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn escapes_at_word_edges_are_written_in_place() {
        // Escapes at each offset around the eight-byte steps come out in
        // order, the text between them copied whole.
        for len in 1..20 {
            for at in 0..len {
                for (raw, escaped) in [
                    ('"', "\\\""),
                    ('\\', "\\\\"),
                    ('\n', "\\n"),
                    ('\u{1}', "\\u0001"),
                ] {
                    let mut value: Vec<char> = "x".repeat(len).chars().collect();
                    value[at] = raw;
                    let value: String = value.into_iter().collect();
                    let mut out = String::new();
                    write_string(&mut out, &value, b',');
                    let expected = format!(
                        "\"{}{}{}\"",
                        "x".repeat(at),
                        escaped,
                        "x".repeat(len - at - 1)
                    );
                    assert_eq!(out, expected);
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn quoting_is_the_plain_rule(value in "[a-z0-9 .:,|\\-+#\"\\\\\\[\\]{}é\t\n]{0,24}") {
            for delimiter in [b',', b'\t', b'|'] {
                proptest::prop_assert_eq!(needs_quotes(&value, delimiter), needs_quotes_plainly(&value, delimiter));
            }
        }

        #[test]
        fn numbers_and_literals_are_quoted_at_every_length(
            digits in "[0-9]{1,30}", cut in 0usize..31, tail in "(|[eE][+-]?[0-9]{1,3}|\\.[0-9]{1,5})"
        ) {
            let cut = cut.min(digits.len());
            for value in [
                format!("{digits}{tail}"),
                format!("+{digits}{tail}"),
                format!("{}.{}", &digits[..cut.max(1)], &digits[cut..]),
                format!("{}x{}", &digits[..cut], &digits[cut..]),
            ] {
                proptest::prop_assert_eq!(needs_quotes(&value, b','), needs_quotes_plainly(&value, b','), "{}", value);
            }
        }
    }

    #[test]
    fn escapes_follow_the_table() {
        let mut out = String::new();
        write_quoted(&mut out, "a\"b\\c\nd\re\tf\u{4}g\u{1f}h\u{7f}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\re\\tf\\u0004g\\u001fh\u{7f}é\"");
    }
}
