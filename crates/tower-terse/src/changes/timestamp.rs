//! A UTC instant with microsecond precision, read and written as RFC 3339.

use crate::calendar;
use crate::rfc3339::{self, Leniency};
use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

const MICROS_PER_SEC: i64 = 1_000_000;
const SECS_PER_DAY: i64 = 86_400;

/// A UTC instant with microsecond precision.
///
/// Written as RFC 3339 in UTC: `2026-02-18T09:00:00Z`, with six fraction
/// digits only when the instant is not a whole second, so the common case
/// stays short. Parsing accepts any RFC 3339 date-time (`T` or space between
/// date and time, any fraction length, `Z` or a `±HH:MM` offset).
///
/// ```
/// use tower_terse::changes::Timestamp;
///
/// let t: Timestamp = "2026-02-18T10:30:00+01:00".parse().unwrap();
/// assert_eq!(t.to_string(), "2026-02-18T09:30:00Z");
/// assert_eq!(Timestamp::from_unix_micros(t.unix_micros()), t);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    micros: i64,
}

/// Why a text is not an RFC 3339 date-time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimestampError {
    reason: &'static str,
}

impl fmt::Display for TimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl std::error::Error for TimestampError {}

impl Timestamp {
    /// The current time from the system clock.
    pub fn now() -> Self {
        let micros = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_micros()).unwrap_or(i64::MAX),
        };
        Self { micros }
    }

    /// The instant `micros` microseconds after 1970-01-01T00:00:00Z.
    pub const fn from_unix_micros(micros: i64) -> Self {
        Self { micros }
    }

    /// Microseconds since 1970-01-01T00:00:00Z.
    pub const fn unix_micros(self) -> i64 {
        self.micros
    }

    /// This instant moved by `micros` microseconds (saturating).
    pub const fn add_micros(self, micros: i64) -> Self {
        Self {
            micros: self.micros.saturating_add(micros),
        }
    }

    /// Parses an RFC 3339 date-time such as `2026-02-18T09:00:00Z`.
    ///
    /// Seconds and an offset are required (a stamp without an offset means
    /// a different instant in every zone); a fraction past microseconds is
    /// cut, and a leap second (`:60`) is read as the last second of its
    /// minute.
    pub fn parse(text: &str) -> Result<Self, TimestampError> {
        rfc3339::parse(text, Leniency::STRICT)
            .map(|dt| Self {
                micros: dt.unix_micros(),
            })
            .map_err(|reason| TimestampError { reason })
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.micros.div_euclid(MICROS_PER_SEC);
        let fraction = self.micros.rem_euclid(MICROS_PER_SEC);
        let (year, month, day) = calendar::civil_from_days(secs.div_euclid(SECS_PER_DAY));
        let tod = secs.rem_euclid(SECS_PER_DAY);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
            tod / 3600,
            tod / 60 % 60,
            tod % 60
        )?;
        if fraction != 0 {
            write!(f, ".{fraction:06}")?;
        }
        f.write_str("Z")
    }
}

impl FromStr for Timestamp {
    type Err = TimestampError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn any_text_parses_or_not_without_panicking(text in "\\PC{0,40}|[0-9:T.+Zz -]{0,60}") {
            if let Ok(ts) = text.parse::<super::Timestamp>() {
                let _ = ts.to_string();
            }
        }
    }

    use super::*;

    #[test]
    fn round_trips_whole_and_fractional_seconds() {
        for text in [
            "1970-01-01T00:00:00Z",
            "2026-02-18T09:00:00Z",
            "2024-02-29T23:59:59.000001Z",
            "1969-12-31T23:59:59.500000Z",
            "9999-12-31T23:59:59Z",
        ] {
            assert_eq!(Timestamp::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn normalises_offsets_and_fractions() {
        let t = Timestamp::parse("2026-02-18 01:00:00.25-03:30").unwrap();
        assert_eq!(t.to_string(), "2026-02-18T04:30:00.250000Z");
        let t = Timestamp::parse("2026-02-18t09:00:00.1234567z").unwrap();
        assert_eq!(t.unix_micros() % 1_000_000, 123_456);
    }

    #[test]
    fn rejects_what_is_not_a_date_time() {
        for bad in [
            "",
            "yesterday",
            "2026-02-18",
            "2026-02-18T09:00:00",
            "2026-02-30T09:00:00Z",
            "2025-02-29T09:00:00Z",
            "2026-13-01T09:00:00Z",
            "2026-02-18T24:00:00Z",
            "2026-02-18T09:00:00.Z",
            "2026-02-18T09:00:00+0100",
            "2026-02-18T09:00:00Zjunk",
            "２026-02-18T09:00:00Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn orders_like_time() {
        let a = Timestamp::parse("2026-02-18T09:00:00Z").unwrap();
        let b = Timestamp::parse("2026-02-18T09:00:00.000001Z").unwrap();
        assert!(a < b);
        assert_eq!(a.add_micros(1), b);
    }
}
