//! Numbers of a document: canonical text plus how `serde_json` holds them.

use std::fmt;

use crate::words::{HIGH, ascii_digits};

/// Which of `serde_json`'s number representations a number has. Kept beside
/// the canonical text, which alone cannot tell `1.0` (a float) from `1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberClass {
    /// A non-negative integer within `u64`.
    U64,
    /// A negative integer within `i64`.
    I64,
    /// Any other number.
    F64,
    /// `-0` and `-0.0`: a float whose canonical text (`0`) has lost its sign.
    NegativeZero,
}

impl NumberClass {
    /// The class of a `serde_json` number.
    pub(crate) fn of(number: &serde_json::Number) -> Self {
        if number.is_u64() {
            NumberClass::U64
        } else if number.is_i64() {
            NumberClass::I64
        } else if number
            .as_f64()
            .is_some_and(|f| f == 0.0 && f.is_sign_negative())
        {
            NumberClass::NegativeZero
        } else {
            NumberClass::F64
        }
    }
}

/// A number's value as `serde_json` holds it, for the serde impls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Exact {
    U64(u64),
    I64(i64),
    F64(f64),
}

/// A number of a [`Document`](super::Document).
///
/// It reads as `serde_json` reads the same token: an integer within `u64` or
/// `i64` stays exact, anything else (`1.0`, `1e3`, an integer too large) is an
/// `f64`.
///
/// ```
/// use terse_toon::document::Document;
///
/// let doc = Document::parse("[7, -2, 1.50, 1e3]")?;
/// let numbers: Vec<_> = doc.root().items().filter_map(|n| n.as_number()).collect();
/// assert_eq!(numbers[0].as_u64(), Some(7));
/// assert_eq!(numbers[1].as_i64(), Some(-2));
/// assert_eq!(numbers[2].as_f64(), 1.5);
/// assert_eq!(numbers[3].as_u64(), None);
/// // Display is serde_json's; `canonical` is TOON's.
/// assert_eq!(numbers[3].to_string(), "1000.0");
/// assert_eq!(numbers[3].canonical(), "1000");
/// # Ok::<(), terse_toon::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Number<'t> {
    text: &'t str,
    class: NumberClass,
}

impl<'t> Number<'t> {
    #[inline]
    pub(super) fn new(text: &'t str, class: NumberClass) -> Self {
        Number { text, class }
    }

    /// The value as a `u64`, when it is an integer in that range.
    #[inline]
    pub fn as_u64(self) -> Option<u64> {
        match self.class {
            NumberClass::U64 => self.text.parse().ok(),
            NumberClass::I64 => None,
            NumberClass::F64 | NumberClass::NegativeZero => None,
        }
    }

    /// The value as an `i64`, when it is an integer in that range.
    #[inline]
    pub fn as_i64(self) -> Option<i64> {
        match self.class {
            NumberClass::U64 | NumberClass::I64 => self.text.parse().ok(),
            NumberClass::F64 | NumberClass::NegativeZero => None,
        }
    }

    /// The value as an `f64` (integers converted, as `serde_json` does).
    #[inline]
    pub fn as_f64(self) -> f64 {
        match self.class {
            NumberClass::NegativeZero => -0.0,
            // The canonical text is the shortest decimal of the float (or an
            // integer), so parsing it gives back the same value.
            _ => self.text.parse().unwrap_or(f64::NAN),
        }
    }

    /// Whether `serde_json` holds this number as a float.
    pub fn is_f64(self) -> bool {
        matches!(self.class, NumberClass::F64 | NumberClass::NegativeZero)
    }

    /// The canonical text TOON writes (spec §2): shortest round-trip digits,
    /// plain decimal from 1e-6 up to 1e21 and exponent form outside
    /// (`1e-7`, `1e+21`), no trailing zeros, `-0` as `0`.
    #[inline]
    pub fn canonical(self) -> &'t str {
        self.text
    }

    /// Appends what [`Display`](fmt::Display) writes (`serde_json`'s text
    /// of the number) to `out`. Integers and most decimals are written as
    /// their text is, without the formatting machinery, which costs more
    /// than the copy.
    ///
    /// ```
    /// use terse_toon::document::Document;
    ///
    /// let doc = Document::parse("[7, 1.50, 1e3]")?;
    /// let mut out = String::new();
    /// for n in doc.root().items().filter_map(|n| n.as_number()) {
    ///     n.push_json_text(&mut out);
    ///     out.push(' ');
    /// }
    /// assert_eq!(out, "7 1.5 1000.0 ");
    /// # Ok::<(), terse_toon::Error>(())
    /// ```
    #[inline]
    pub fn push_json_text(self, out: &mut String) {
        match self.json_text() {
            Some(text) => out.push_str(text),
            None => {
                use fmt::Write as _;
                // Writing into a String cannot fail.
                let _ = write!(out, "{}", self.to_json());
            }
        }
    }

    /// `serde_json`'s text of the number when it is the canonical text.
    #[inline]
    fn json_text(self) -> Option<&'t str> {
        match self.class {
            NumberClass::U64 | NumberClass::I64 => Some(self.text),
            NumberClass::F64 if writes_as_read(self.text) => Some(self.text),
            NumberClass::F64 | NumberClass::NegativeZero => None,
        }
    }

    /// The value in the representation `serde_json` holds it in.
    pub(crate) fn exact(self) -> Exact {
        let float = || Exact::F64(self.as_f64());
        match self.class {
            NumberClass::U64 => self.as_u64().map_or_else(float, Exact::U64),
            NumberClass::I64 => self.as_i64().map_or_else(float, Exact::I64),
            NumberClass::F64 | NumberClass::NegativeZero => float(),
        }
    }

    /// The same number as a `serde_json::Number`.
    pub(crate) fn to_json(self) -> serde_json::Number {
        match self.exact() {
            Exact::U64(n) => n.into(),
            Exact::I64(n) => n.into(),
            Exact::F64(f) => serde_json::Number::from_f64(f).unwrap_or_else(|| 0.into()),
        }
    }
}

/// The text `serde_json` writes for this number (`7`, `-2`, `1.5`, `1000.0`).
impl fmt::Display for Number<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.json_text() {
            Some(text) => f.write_str(text),
            // serde_json's float formatting, whichever it is.
            None => fmt::Display::fmt(&self.to_json(), f),
        }
    }
}

/// Whether `serde_json` writes the float whose canonical text is `text` as
/// that same text, so that it need not be read into an `f64` and formatted
/// back: a plain decimal with a fractional part, at most 15 significant
/// digits (any such decimal is the shortest that reads back as its float,
/// as an `f64` holds 15 decimal digits exactly), and at least 1e-4 (the
/// plain range `serde_json` writes runs from 1e-5 to below 1e16).
///
/// One pass over the bytes, which finds the point as it counts the digits:
/// floats are most numbers of a list of records, and this runs for each.
#[inline]
fn writes_as_read(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text).as_bytes();
    if digits.starts_with(b"0.0000") {
        return false;
    }
    if let Some(short) = short_decimal(digits) {
        return short;
    }
    if digits.len() <= 16 {
        // Sixteen bytes with a point hold at most 15 digits: no count.
        let mut point = false;
        for &byte in digits {
            match byte {
                b'0'..=b'9' => {}
                b'.' => point = true,
                _ => return false,
            }
        }
        return point;
    }
    let mut significant = 0usize;
    let mut point = false;
    for &byte in digits {
        match byte {
            b'0' if significant == 0 => {}
            b'0'..=b'9' => significant += 1,
            b'.' => point = true,
            // An exponent, or text this check does not know.
            _ => return false,
        }
    }
    point && significant <= 15
}

/// For four to eight bytes (the usual price, score or rate), what
/// [`writes_as_read`] answers of them, told by one word test rather than a
/// loop over the bytes: whether they are digits and points with a point
/// among them. `None` for other lengths.
///
/// The bytes are read as two halves of four that overlap in text shorter
/// than eight.
#[inline]
fn short_decimal(digits: &[u8]) -> Option<bool> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let n = digits.len();
    if !(4..=8).contains(&n) {
        return None;
    }
    let half = |at: usize| {
        digits
            .get(at..at + 4)
            .and_then(|w| w.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    };
    let word = half(0) | half(n - 4) << 32;
    // High bit set in each byte that is not zero, exactly.
    let nonzero = |v: u64| ((v & LOW7).wrapping_add(LOW7) | v) & HIGH;
    let not_digit = !ascii_digits(word) & HIGH;
    let point = !nonzero(word ^ 0x2e2e_2e2e_2e2e_2e2e) & HIGH;
    Some(not_digit & !point == 0 && point != 0)
}

impl fmt::Debug for Number<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::{short_decimal, writes_as_read};

    #[test]
    fn short_decimals_are_told_by_their_bytes() {
        for yes in ["84.49", "1.87", "-260.05", "0.001", "12345.6", "1234567."] {
            assert!(writes_as_read(yes), "{yes}");
            let digits = yes.strip_prefix('-').unwrap_or(yes).as_bytes();
            assert_eq!(short_decimal(digits), Some(true), "{yes}");
        }
        for no in [
            "100", "12345678", "0.00001", "1e-7", "1.5e3", "ab.c", "1/2.", "1:2.",
        ] {
            assert!(!writes_as_read(no), "{no}");
        }
        // Lengths past the word test's go the way of the loop.
        assert_eq!(short_decimal(b"1.5"), None);
        assert_eq!(short_decimal(b"123456789.5"), None);
        assert!(writes_as_read("1.5") && writes_as_read("123456789.5"));
    }

    proptest::proptest! {
        /// The word test agrees with a byte-by-byte reading of the rule on
        /// any short text.
        #[test]
        fn the_word_test_is_the_bytewise_rule(text in "[0-9.:/a-]{0,10}") {
            let digits = text.as_bytes();
            let rule = digits.iter().all(|b| b.is_ascii_digit() || *b == b'.')
                && digits.contains(&b'.');
            let expected = (4..=8).contains(&digits.len()).then_some(rule);
            proptest::prop_assert_eq!(short_decimal(digits), expected);
        }
    }
}
