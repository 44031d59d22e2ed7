//! The one RFC 3339 reader of the crate, for `?since=`
//! ([`Timestamp`](crate::changes::Timestamp)) and for the `time`, `date` and
//! `ago` template filters.
//!
//! Written by hand rather than pulling in `chrono` or `time`: both callers
//! need one format, read-only, with no time zone database, and a hundred
//! lines keep the layer's dependency tree small.
//!
//! The two callers differ only in what they let a text leave out, and say so
//! with [`Leniency`]: `?since=` is a full date-time ([`Leniency::STRICT`]),
//! since a stamp that means less than it seems would lose changes; a filter
//! reads what records hold in practice ([`Leniency::LENIENT`]), since a value
//! it cannot read is only shown as it is.

use crate::calendar;

const SECS_PER_DAY: i128 = 86_400;
#[cfg_attr(
    not(feature = "changes"),
    allow(dead_code, reason = "read by `?since=` only")
)]
const MICROS_PER_SEC: i128 = 1_000_000;

/// What a text may leave out of a full RFC 3339 date-time
/// (`2026-02-18T09:00:00.5+01:00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leniency {
    /// A date alone (`2026-02-18`), with no time of day.
    pub(crate) date_only: bool,
    /// A time without seconds (`09:00`); a fraction needs the seconds.
    pub(crate) no_seconds: bool,
    /// No offset at all, read as UTC.
    pub(crate) no_offset: bool,
}

impl Leniency {
    /// A full date-time and nothing less.
    #[cfg_attr(
        not(feature = "changes"),
        allow(dead_code, reason = "read by `?since=` only")
    )]
    pub(crate) const STRICT: Leniency = Leniency {
        date_only: false,
        no_seconds: false,
        no_offset: false,
    };

    /// Everything of [`Leniency`] allowed.
    pub(crate) const LENIENT: Leniency = Leniency {
        date_only: true,
        no_seconds: true,
        no_offset: true,
    };
}

/// A date-time as the text wrote it, in its own offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateTime {
    pub(crate) year: i64,
    pub(crate) month: u32,
    pub(crate) day: u32,
    /// Hour, minute and second (60 for a leap second), when the text has a
    /// time of day.
    pub(crate) clock: Option<(u32, u32, u32)>,
    /// The fraction of the second in microseconds; digits past the sixth are
    /// below the precision kept.
    pub(crate) micros: u32,
    /// Offset from UTC in seconds (0 for `Z` or no offset).
    pub(crate) offset: i64,
}

/// Reads `text` as an RFC 3339 date-time, leaving out no more than
/// `leniency` allows; the error says what is wrong in a few words.
pub(crate) fn parse(text: &str, leniency: Leniency) -> Result<DateTime, &'static str> {
    const TOO_SHORT: &str = "too short for an RFC 3339 date-time (2026-02-18T09:00:00Z)";
    let b = text.as_bytes();
    let year = digits(b, 0, 4)?;
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return Err("the date must be written YYYY-MM-DD");
    }
    // Two digits each, so the casts cannot truncate.
    let month = digits(b, 5, 2)? as u32;
    let day = digits(b, 8, 2)? as u32;
    if !(1..=12).contains(&month)
        || day == 0
        || i64::from(day) > calendar::days_in_month(year, i64::from(month))
    {
        return Err("no such calendar date");
    }
    let mut dt = DateTime {
        year,
        month,
        day,
        clock: None,
        micros: 0,
        offset: 0,
    };
    if b.len() == 10 {
        return if leniency.date_only {
            Ok(dt)
        } else {
            Err(TOO_SHORT)
        };
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return Err("expected 'T' between the date and the time");
    }
    let hour = digits(b, 11, 2)? as u32;
    if b.get(13) != Some(&b':') {
        return Err("the time must be written HH:MM:SS");
    }
    let minute = digits(b, 14, 2)? as u32;
    let mut i = 16;
    let mut second = 0;
    match b.get(i) {
        Some(b':') => {
            second = digits(b, i + 1, 2)? as u32;
            i += 3;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let start = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    if i - start < 6 {
                        dt.micros = dt.micros * 10 + u32::from(b[i] - b'0');
                    }
                    i += 1;
                }
                if i == start {
                    return Err("a '.' must be followed by fraction digits");
                }
                for _ in (i - start)..6 {
                    dt.micros *= 10;
                }
            }
        }
        _ if leniency.no_seconds => {}
        None => return Err(TOO_SHORT),
        Some(_) => return Err("the time must be written HH:MM:SS"),
    }
    // 60 is a leap second, which RFC 3339 allows.
    if hour > 23 || minute > 59 || second > 60 {
        return Err("no such time of day");
    }
    dt.clock = Some((hour, minute, second));
    dt.offset = match &b[i..] {
        [] if leniency.no_offset => 0,
        [] => return Err("missing the UTC offset ('Z' or +HH:MM)"),
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] if rest.len() == 5 && rest[2] == b':' => {
            let hours = digits(rest, 0, 2)?;
            let minutes = digits(rest, 3, 2)?;
            if hours > 23 || minutes > 59 {
                return Err("no such UTC offset");
            }
            let offset = hours * 3600 + minutes * 60;
            if *sign == b'-' { -offset } else { offset }
        }
        _ => return Err("the UTC offset must be 'Z' or +HH:MM"),
    };
    Ok(dt)
}

fn digits(b: &[u8], at: usize, len: usize) -> Result<i64, &'static str> {
    let Some(slice) = b.get(at..at + len) else {
        return Err("too short for an RFC 3339 date-time");
    };
    slice.iter().try_fold(0i64, |acc, &c| {
        if c.is_ascii_digit() {
            Ok(acc * 10 + i64::from(c - b'0'))
        } else {
            Err("expected a digit")
        }
    })
}

impl DateTime {
    /// The UTC instant `seconds` after the Unix epoch.
    pub(crate) fn from_unix(seconds: i64) -> DateTime {
        let days = seconds.div_euclid(86_400);
        let rest = seconds.rem_euclid(86_400);
        let (year, month, day) = calendar::civil_from_days(days);
        // A month is 1-12, a day 1-31 and `rest` below 86 400, so the casts
        // cannot truncate.
        let clock = (
            (rest / 3600) as u32,
            (rest % 3600 / 60) as u32,
            (rest % 60) as u32,
        );
        DateTime {
            year,
            month: month as u32,
            day: day as u32,
            clock: Some(clock),
            micros: 0,
            offset: 0,
        }
    }

    /// Whole seconds since the Unix epoch (a leap second counts as the
    /// first second of the next minute), saturating at the ends of `i64`.
    pub(crate) fn unix_seconds(&self) -> i64 {
        let (h, m, s) = self.clock.unwrap_or((0, 0, 0));
        saturate(self.seconds_in_i128(h, m, s))
    }

    /// Microseconds since the Unix epoch (a leap second is read as the last
    /// second of its minute, so instants keep their order), saturating at
    /// the ends of `i64`.
    #[cfg_attr(
        not(feature = "changes"),
        allow(dead_code, reason = "read by `?since=` only")
    )]
    pub(crate) fn unix_micros(&self) -> i64 {
        let (h, m, s) = self.clock.unwrap_or((0, 0, 0));
        let seconds = self.seconds_in_i128(h, m, s.min(59));
        saturate(seconds * MICROS_PER_SEC + i128::from(self.micros))
    }

    /// Reckoned in `i128`: a year read from a number ([`from_unix`] of
    /// `i64::MIN`) is far outside `i64` seconds once multiplied out.
    ///
    /// [`from_unix`]: Self::from_unix
    fn seconds_in_i128(&self, h: u32, m: u32, s: u32) -> i128 {
        let days = calendar::days_from_civil(self.year, self.month.into(), self.day.into());
        i128::from(days) * SECS_PER_DAY + i128::from(h) * 3600 + i128::from(m) * 60 + i128::from(s)
            - i128::from(self.offset)
    }
}

fn saturate(n: i128) -> i64 {
    i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenient(text: &str) -> Option<DateTime> {
        parse(text, Leniency::LENIENT).ok()
    }

    #[test]
    fn parses_rfc3339_forms() {
        let ts = lenient("2025-03-01T09:30:15Z").unwrap();
        assert_eq!((ts.year, ts.month, ts.day), (2025, 3, 1));
        assert_eq!(ts.clock, Some((9, 30, 15)));
        assert_eq!(ts.unix_seconds(), 1_740_821_415);
        let ts = lenient("2025-03-01t09:30:15.123456+01:30").unwrap();
        assert_eq!(ts.offset, 5400);
        assert_eq!(ts.micros, 123_456);
        assert_eq!(ts.unix_seconds(), 1_740_821_415 - 5400);
        assert_eq!(lenient("2025-03-01 09:30-02:00").unwrap().offset, -7200);
        assert_eq!(lenient("2025-03-01").unwrap().clock, None);
        assert_eq!(lenient("1970-01-01T00:00:00Z").unwrap().unix_seconds(), 0);
        assert_eq!(
            lenient("2024-02-29T00:00:00Z").unwrap().unix_seconds(),
            1_709_164_800
        );
        assert_eq!(
            lenient("2016-12-31T23:59:60Z").unwrap().clock,
            Some((23, 59, 60))
        );
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in [
            "",
            "hello",
            "2025-13-01",
            "2025-02-30",
            "2023-02-29",
            "2025-03-01T24:00:00Z",
            "2025-03-01T09:60Z",
            "2025-03-01T09:30:00.Z",
            "2025-03-01T09:30:00+1:00",
            "2025-03-01T09:30:00Zjunk",
            "2025-03-01X09:30",
            "२०२५-03-01",
            "2025-03-01T09:30:00+24:00",
        ] {
            assert_eq!(lenient(bad), None, "{bad}");
        }
    }

    #[test]
    fn strict_wants_seconds_and_an_offset() {
        for bad in [
            "2026-02-18",
            "2026-02-18T09:00",
            "2026-02-18T09:00Z",
            "2026-02-18T09:00:00",
        ] {
            assert!(lenient(bad).is_some(), "{bad}");
            assert!(parse(bad, Leniency::STRICT).is_err(), "{bad}");
        }
    }

    #[test]
    fn extreme_instants_neither_overflow_nor_panic() {
        for secs in [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 86_399] {
            let ts = DateTime::from_unix(secs);
            assert_eq!(ts.unix_seconds(), secs, "{secs}");
            let _ = ts.unix_micros();
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_not_without_panicking(text in "\\PC{0,40}|[0-9:T.+Zz -]{0,40}") {
            for leniency in [Leniency::STRICT, Leniency::LENIENT] {
                if let Ok(ts) = parse(&text, leniency) {
                    let _ = (ts.unix_seconds(), ts.unix_micros());
                }
            }
        }

        #[test]
        fn any_instant_round_trips(secs in proptest::num::i64::ANY) {
            proptest::prop_assert_eq!(DateTime::from_unix(secs).unix_seconds(), secs);
        }
    }

    #[test]
    fn unix_seconds_round_trip() {
        for secs in [
            0,
            1,
            86_399,
            86_400,
            1_740_821_415,
            -1,
            -86_401,
            4_102_444_800,
        ] {
            let ts = DateTime::from_unix(secs);
            assert_eq!(ts.unix_seconds(), secs, "{secs}");
        }
        let ts = DateTime::from_unix(-1);
        assert_eq!(
            (ts.year, ts.month, ts.day, ts.clock),
            (1969, 12, 31, Some((23, 59, 59)))
        );
    }
}
