//! Byte classes for the token estimator.
//!
//! The estimator only looks at pairs of byte classes, so these classes are the
//! whole of what it knows about text. They follow the places where the o200k
//! pre-tokenizer cuts: letters by case, digits, each kind of whitespace, the
//! punctuation that JSON, TOON and log lines are made of, and UTF-8 lead bytes
//! split by the scripts that tokenize differently (accented Latin, Cyrillic,
//! Indic, symbols, CJK, Hangul, emoji).
//!
//! The weight-fitting tool reads this file through `tokens::model`, so the fitted
//! weights and the estimator always agree on what a class is.

/// How many classes there are.
pub const CLASSES: usize = 34;

/// The class the first byte of a text is paired with: a text starts the way a
/// line does.
pub const START: u8 = NEWLINE;

/// `a`-`f`: hex digits as well as letters, so UUIDs and hashes read apart.
pub const HEX_LOWER: u8 = 0;
/// `g`-`z`.
pub const LOWER: u8 = 1;
/// `A`-`F`.
pub const HEX_UPPER: u8 = 2;
/// `G`-`Z`.
pub const UPPER: u8 = 3;
/// `0`-`9`.
pub const DIGIT: u8 = 4;
/// ` `.
pub const SPACE: u8 = 5;
/// `\n` and `\r`.
pub const NEWLINE: u8 = 6;
/// `\t`.
pub const TAB: u8 = 7;
/// `"`.
pub const QUOTE: u8 = 8;
/// `{`, `[` and `(`.
pub const OPEN: u8 = 9;
/// `}`, `]` and `)`.
pub const CLOSE: u8 = 10;
/// `,`.
pub const COMMA: u8 = 11;
/// `:`.
pub const COLON: u8 = 12;
/// `.`.
pub const DOT: u8 = 13;
/// `-`.
pub const DASH: u8 = 14;
/// `_`.
pub const UNDERSCORE: u8 = 15;
/// `/` and `\`.
pub const SLASH: u8 = 16;
/// `+` and `=`: base64 padding and alphabet, arithmetic.
pub const PLUS_EQ: u8 = 17;
/// `|`: the TOON pipe delimiter.
pub const PIPE: u8 = 18;
/// `'`.
pub const APOSTROPHE: u8 = 19;
/// Other ASCII punctuation.
pub const PUNCT: u8 = 20;
/// `0xC2`: Latin-1 symbols (`¿`, `¡`, `°`, no-break space).
pub const LEAD2_SYMBOL: u8 = 21;
/// `0xC3`-`0xCA`: accented Latin letters.
pub const LEAD2_LATIN: u8 = 22;
/// `0xCB`-`0xCF` and `0xD5`-`0xDF`: Greek, Armenian, Hebrew, Arabic and the
/// rest of the two-byte range.
pub const LEAD2_OTHER: u8 = 23;
/// `0xE1`-`0xE2`: general punctuation, symbols, arrows.
pub const LEAD3_SYMBOL: u8 = 24;
/// `0xE3`: CJK punctuation, kana.
pub const LEAD3_KANA: u8 = 25;
/// `0xE4`-`0xE9`: CJK ideographs.
pub const LEAD3_HAN: u8 = 26;
/// `0xEA`-`0xED`: Hangul syllables.
pub const LEAD3_HANGUL: u8 = 27;
/// `0xEE`-`0xEF`: private use, full-width forms, variation selectors.
pub const LEAD3_OTHER: u8 = 28;
/// `0xF0`-`0xF4`: emoji and other supplementary-plane characters.
pub const LEAD4: u8 = 29;
/// `0x80`-`0xBF`: UTF-8 continuation bytes.
pub const CONTINUATION: u8 = 30;
/// Control bytes, `DEL` and bytes that never occur in UTF-8.
pub const OTHER: u8 = 31;
/// `0xD0`-`0xD4`: Cyrillic, which o200k knows far better than the rest of
/// the two-byte range.
pub const LEAD2_CYRILLIC: u8 = 32;
/// `0xE0`: Devanagari and the other Indic scripts.
pub const LEAD3_INDIC: u8 = 33;

/// Class of every byte value.
pub const BYTE_CLASS: [u8; 256] = byte_classes();

const fn byte_classes() -> [u8; 256] {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = class_of(b as u8);
        b += 1;
    }
    table
}

const fn class_of(b: u8) -> u8 {
    match b {
        b'a'..=b'f' => HEX_LOWER,
        b'g'..=b'z' => LOWER,
        b'A'..=b'F' => HEX_UPPER,
        b'G'..=b'Z' => UPPER,
        b'0'..=b'9' => DIGIT,
        b' ' => SPACE,
        b'\n' | b'\r' => NEWLINE,
        b'\t' => TAB,
        b'"' => QUOTE,
        b'{' | b'[' | b'(' => OPEN,
        b'}' | b']' | b')' => CLOSE,
        b',' => COMMA,
        b':' => COLON,
        b'.' => DOT,
        b'-' => DASH,
        b'_' => UNDERSCORE,
        b'/' | b'\\' => SLASH,
        b'+' | b'=' => PLUS_EQ,
        b'|' => PIPE,
        b'\'' => APOSTROPHE,
        b'!'..=b'~' => PUNCT,
        0x80..=0xBF => CONTINUATION,
        0xC2 => LEAD2_SYMBOL,
        0xC3..=0xCA => LEAD2_LATIN,
        0xD0..=0xD4 => LEAD2_CYRILLIC,
        0xCB..=0xDF => LEAD2_OTHER,
        0xE0 => LEAD3_INDIC,
        0xE1..=0xE2 => LEAD3_SYMBOL,
        0xE3 => LEAD3_KANA,
        0xE4..=0xE9 => LEAD3_HAN,
        0xEA..=0xED => LEAD3_HANGUL,
        0xEE..=0xEF => LEAD3_OTHER,
        0xF0..=0xF4 => LEAD4,
        _ => OTHER,
    }
}

/// Short names of the classes, in class order, for the fitting tool's report
/// and the generated weight table.
#[cfg_attr(not(feature = "fitting"), allow(dead_code))] // read by the fitting tool
pub const NAMES: [&str; CLASSES] = [
    "hex_lower",
    "lower",
    "hex_upper",
    "upper",
    "digit",
    "space",
    "newline",
    "tab",
    "quote",
    "open",
    "close",
    "comma",
    "colon",
    "dot",
    "dash",
    "underscore",
    "slash",
    "plus_eq",
    "pipe",
    "apostrophe",
    "punct",
    "lead2_symbol",
    "lead2_latin",
    "lead2_other",
    "lead3_symbol",
    "lead3_kana",
    "lead3_han",
    "lead3_hangul",
    "lead3_other",
    "lead4",
    "continuation",
    "other",
    "lead2_cyrillic",
    "lead3_indic",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_is_in_range_and_named() {
        assert!(BYTE_CLASS.iter().all(|&c| usize::from(c) < CLASSES));
        let mut names = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CLASSES);
    }

    #[test]
    fn utf8_structure_is_classified() {
        for (text, classes) in [
            ("ñ", &[LEAD2_LATIN, CONTINUATION][..]),
            ("用", &[LEAD3_HAN, CONTINUATION, CONTINUATION]),
            ("ま", &[LEAD3_KANA, CONTINUATION, CONTINUATION]),
            ("습", &[LEAD3_HANGUL, CONTINUATION, CONTINUATION]),
            ("🎉", &[LEAD4, CONTINUATION, CONTINUATION, CONTINUATION]),
            ("д", &[LEAD2_CYRILLIC, CONTINUATION]),
            ("ش", &[LEAD2_OTHER, CONTINUATION]),
            ("ह", &[LEAD3_INDIC, CONTINUATION, CONTINUATION]),
        ] {
            let got: Vec<u8> = text.bytes().map(|b| BYTE_CLASS[usize::from(b)]).collect();
            assert_eq!(got, classes, "{text}");
        }
        assert_eq!(BYTE_CLASS[0xff], OTHER);
        assert_eq!(BYTE_CLASS[0xc0], OTHER);
    }
}
