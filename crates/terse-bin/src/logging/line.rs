//! The log line: `2026-01-02T03:04:05.678901Z  INFO message key=value ...`,
//! the layout of `tracing_subscriber`'s default format (with the target
//! left out), written by hand.
//!
//! The gateway writes one such line per request, and the default format
//! spends more on it than the request log itself: a `core::fmt` pass for
//! every field, the date's numbers padded through `fmt`, and its styling
//! code run even with colours off. Here integers are written with `itoa`,
//! the date down to the second is kept per thread and only the
//! microseconds are written anew, and colours are a few constant strings,
//! written on a terminal only.
//!
//! Every value from outside ends up in a line through [`Escaped`]: a
//! control character (a line break, an ESC that starts a terminal
//! sequence, a C1 control) is written as `\n`, `\r`, `\t` or `\u{1b}`, so
//! no request can forge a line or drive the terminal of whoever reads the
//! log. Plain strings are quoted as Rust's `Debug` writes them, which
//! escapes the same characters.

use std::cell::Cell;
use std::fmt::{self, Write as _};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// Formats an event as one line (see the module's documentation); also the
/// formatter of span fields, so that both read alike.
///
/// ```
/// use terse_bin::logging::LineFormat;
///
/// let subscriber = tracing_subscriber::fmt()
///     .event_format(LineFormat)
///     .fmt_fields(LineFormat)
///     .with_writer(std::io::sink)
///     .finish();
/// tracing::subscriber::with_default(subscriber, || tracing::info!(status = 200u64, "request"));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LineFormat;

impl<S, N> FormatEvent<S, N> for LineFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let ansi = writer.has_ansi_escapes();
        if ansi {
            writer.write_str(DIMMED)?;
        }
        timestamp(&mut writer, SystemTime::now())?;
        if ansi {
            writer.write_str(RESET)?;
        }
        writer.write_char(' ')?;
        writer.write_str(level(*event.metadata().level(), ansi))?;
        writer.write_char(' ')?;
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                writer.write_str(span.name())?;
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<N>>()
                    && !fields.is_empty()
                {
                    write!(writer, "{{{fields}}}")?;
                }
                writer.write_str(": ")?;
            }
        }
        ctx.format_fields(writer.by_ref(), event)?;
        writer.write_char('\n')
    }
}

impl<'writer> FormatFields<'writer> for LineFormat {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = Fields {
            writer,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

const DIMMED: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// The level as the default format writes it: five columns, coloured on a
/// terminal.
fn level(level: Level, ansi: bool) -> &'static str {
    match (level, ansi) {
        (Level::TRACE, false) => "TRACE",
        (Level::DEBUG, false) => "DEBUG",
        (Level::INFO, false) => " INFO",
        (Level::WARN, false) => " WARN",
        (Level::ERROR, false) => "ERROR",
        (Level::TRACE, true) => "\x1b[35mTRACE\x1b[0m",
        (Level::DEBUG, true) => "\x1b[34mDEBUG\x1b[0m",
        (Level::INFO, true) => "\x1b[32m INFO\x1b[0m",
        (Level::WARN, true) => "\x1b[33m WARN\x1b[0m",
        (Level::ERROR, true) => "\x1b[31mERROR\x1b[0m",
    }
}

thread_local! {
    /// The last second this thread wrote and its `YYYY-MM-DDTHH:MM:SS.`:
    /// lines come many to a second, and only their microseconds differ.
    static SECOND: Cell<(u64, [u8; 20])> = const { Cell::new((u64::MAX, [0; 20])) };
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds), as the default format
/// writes it.
fn timestamp(writer: &mut Writer<'_>, now: SystemTime) -> fmt::Result {
    let Ok(since) = now.duration_since(UNIX_EPOCH) else {
        return writer.write_str("<unknown time>");
    };
    let (seconds, micros) = (since.as_secs(), since.subsec_micros());
    let (cached, mut prefix) = SECOND.get();
    if cached != seconds {
        match second_prefix(seconds) {
            Some(made) => prefix = made,
            // Past the year 9999: not worth a cache.
            None => return write!(writer, "{}", Civil::from_unix(seconds).long(micros)),
        }
        SECOND.set((seconds, prefix));
    }
    let mut line = [0u8; 27];
    line[..20].copy_from_slice(&prefix);
    let mut rest = micros;
    for digit in line[20..26].iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    line[26] = b'Z';
    // Only ASCII digits and separators were written.
    writer.write_str(std::str::from_utf8(&line).map_err(|_| fmt::Error)?)
}

/// `YYYY-MM-DDTHH:MM:SS.` of a Unix second; `None` past the year 9999.
fn second_prefix(seconds: u64) -> Option<[u8; 20]> {
    let civil = Civil::from_unix(seconds);
    if civil.year > 9999 {
        return None;
    }
    let mut out = [0u8; 20];
    let mut put = |at: usize, width: usize, value: u64| {
        let mut rest = value;
        for digit in out[at..at + width].iter_mut().rev() {
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
    };
    put(0, 4, civil.year);
    put(5, 2, civil.month);
    put(8, 2, civil.day);
    put(11, 2, civil.hour);
    put(14, 2, civil.minute);
    put(17, 2, civil.second);
    for (at, separator) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
    ] {
        out[at] = separator;
    }
    Some(out)
}

/// A Unix second as a UTC date and time.
#[derive(Debug, PartialEq, Eq)]
struct Civil {
    year: u64,
    month: u64,
    day: u64,
    hour: u64,
    minute: u64,
    second: u64,
}

impl Civil {
    /// Days to a date by the proleptic Gregorian calendar, counted in
    /// 400-year eras that start on March 1st (Hinnant's `civil_from_days`).
    fn from_unix(seconds: u64) -> Self {
        let (days, of_day) = (seconds / 86_400, seconds % 86_400);
        let z = days + 719_468;
        let era = z / 146_097;
        let day_of_era = z % 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let shifted_month = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
        let month = if shifted_month < 10 {
            shifted_month + 3
        } else {
            shifted_month - 9
        };
        Self {
            year: year_of_era + era * 400 + u64::from(month <= 2),
            month,
            day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
        }
    }

    /// The slow way, for years of more than four digits: `+YYYYY-...`.
    fn long(&self, micros: u32) -> impl fmt::Display + '_ {
        struct Long<'a>(&'a Civil, u32);
        impl fmt::Display for Long<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let Long(c, micros) = self;
                write!(
                    f,
                    "+{}-{:02}-{:02}T{:02}:{:02}:{:02}.{micros:06}Z",
                    c.year, c.month, c.day, c.hour, c.minute, c.second
                )
            }
        }
        Long(self, micros)
    }
}

/// Writes fields as `name=value`, separated by spaces, the message first
/// and bare.
struct Fields<'writer> {
    writer: Writer<'writer>,
    first: bool,
    result: fmt::Result,
}

impl Fields<'_> {
    /// The separator and `name=` (nothing for the message); `false` once
    /// a write failed.
    fn name(&mut self, field: &Field) -> bool {
        if self.result.is_err() {
            return false;
        }
        let name = field.name();
        self.result = (|| {
            if !std::mem::take(&mut self.first) {
                self.writer.write_str(" ")?;
            }
            if name != "message" {
                self.writer
                    .write_str(name.strip_prefix("r#").unwrap_or(name))?;
                self.writer.write_str("=")?;
            }
            Ok(())
        })();
        self.result.is_ok()
    }

    fn integer(&mut self, field: &Field, value: impl itoa::Integer) {
        if self.name(field) {
            self.result = self.writer.write_str(itoa::Buffer::new().format(value));
        }
    }
}

impl Visit for Fields<'_> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.integer(field, value);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.integer(field, value);
    }

    fn record_u128(&mut self, field: &Field, value: u128) {
        self.integer(field, value);
    }

    fn record_i128(&mut self, field: &Field, value: i128) {
        self.integer(field, value);
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.name(field) {
            self.result = self.writer.write_str(if value { "true" } else { "false" });
        }
    }

    /// The message bare, other strings quoted (`Debug` escapes them).
    fn record_str(&mut self, field: &Field, value: &str) {
        if !self.name(field) {
            return;
        }
        self.result = if field.name() == "message" {
            Escaped(&mut self.writer).write_str(value)
        } else {
            write!(self.writer, "{value:?}")
        };
    }

    /// The error's text and then, when it has causes, `name.sources=[...]`.
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        if !self.name(field) {
            return;
        }
        self.result = (|| {
            write!(Escaped(&mut self.writer), "{value}")?;
            let mut source = value.source();
            if source.is_none() {
                return Ok(());
            }
            write!(self.writer, " {}.sources=[", field.name())?;
            let mut first = true;
            while let Some(error) = source {
                if !std::mem::take(&mut first) {
                    self.writer.write_str(", ")?;
                }
                write!(Escaped(&mut self.writer), "{error}")?;
                source = error.source();
            }
            self.writer.write_char(']')
        })();
    }

    /// `%value` and `?value` fields, and the message.
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.name(field) {
            self.result = write!(Escaped(&mut self.writer), "{value:?}");
        }
    }
}

/// A writer that writes control characters escaped: `\n`, `\r`, `\t`, and
/// `\u{..}` for the others (C0, DEL, C1).
pub(super) struct Escaped<W>(pub(super) W);

impl<W: fmt::Write> fmt::Write for Escaped<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        // 0xC2 leads the two-byte forms of U+0080..U+00BF, C1 among them.
        if !text.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) {
            return self.0.write_str(text);
        }
        let mut plain = 0;
        for (at, c) in text.char_indices() {
            if c.is_control() {
                self.0.write_str(&text[plain..at])?;
                match c {
                    '\n' => self.0.write_str("\\n")?,
                    '\r' => self.0.write_str("\\r")?,
                    '\t' => self.0.write_str("\\t")?,
                    _ => write!(self.0, "\\u{{{:x}}}", u32::from(c))?,
                }
                plain = at + c.len_utf8();
            }
        }
        self.0.write_str(&text[plain..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(write: impl FnOnce(&mut Writer<'_>) -> fmt::Result) -> String {
        let mut out = String::new();
        write(&mut Writer::new(&mut out)).unwrap();
        out
    }

    /// The lines a subscriber with `format` (or else the default format)
    /// writes while `events` runs.
    fn lines_of(format: Option<LineFormat>, ansi: bool, events: impl FnOnce()) -> Vec<String> {
        #[derive(Clone, Default)]
        struct Capture(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Capture {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let capture = Capture::default();
        let writer = capture.clone();
        let builder = tracing_subscriber::fmt()
            .with_ansi(ansi)
            .with_max_level(Level::TRACE)
            .with_writer(move || writer.clone());
        match format {
            Some(LineFormat) => {
                let subscriber = builder.event_format(LineFormat).fmt_fields(LineFormat);
                tracing::subscriber::with_default(subscriber.finish(), events);
            }
            // The default format, as the logs were written before.
            None => tracing::subscriber::with_default(builder.with_target(false).finish(), events),
        }
        let bytes = capture.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn lines(ansi: bool, events: impl FnOnce()) -> Vec<String> {
        lines_of(Some(LineFormat), ansi, events)
    }

    /// A line without its timestamp, checked to be one of 27 characters.
    fn after_time(line: &str) -> &str {
        let (time, rest) = line.split_at(27);
        let digits = time.bytes().filter(u8::is_ascii_digit).count();
        assert_eq!(digits, 20, "{line}");
        assert!(time.ends_with('Z') && time.as_bytes()[10] == b'T', "{line}");
        rest
    }

    #[derive(Debug)]
    struct Outer(Inner);
    #[derive(Debug)]
    struct Inner(&'static str);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("upstream unreachable")
        }
    }
    impl fmt::Display for Inner {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }
    impl std::error::Error for Inner {}

    #[test]
    fn every_event_reads_as_the_default_format_writes_it() {
        let lines = lines(false, || {
            tracing::info!(
                method = %"GET",
                status = 200u64,
                delta = -3i64,
                share = 0.5,
                complete = true,
                "request"
            );
            let error = Outer(Inner("connection refused\n\x1b[2J"));
            tracing::warn!(
                route = "/a b",
                error = &error as &dyn std::error::Error,
                "fault"
            );
            let span = tracing::info_span!("connection", peer = %"127.0.0.1:9");
            let _inside = span.enter();
            tracing::error!("closed: {}", 7);
        });
        let lines: Vec<&str> = lines.iter().map(|line| after_time(line)).collect();
        assert_eq!(
            lines,
            [
                "  INFO request method=GET status=200 delta=-3 share=0.5 complete=true",
                "  WARN fault route=\"/a b\" error=upstream unreachable \
                 error.sources=[connection refused\\n\\u{1b}[2J]",
                " ERROR connection{peer=127.0.0.1:9}: closed: 7",
            ]
        );
    }

    #[test]
    fn lines_without_control_characters_are_those_of_the_default_format() {
        let events = || {
            tracing::info!(
                target: "terse_gateway",
                method = %"GET",
                path = %"/items/\"7\"",
                status = 200u64,
                format = %"toon",
                fallback = %"-",
                tokens = %"1234",
                upstream_ms = %"3",
                total_ms = 5u64,
                bytes = 14_800u64,
                complete = true,
                "request"
            );
            let error = Outer(Inner("connection refused"));
            tracing::warn!(
                route = "/a b",
                error = &error as &dyn std::error::Error,
                "fault"
            );
            tracing::debug!(r#type = "x", n = -1i64, "{} requests", 3);
            let span = tracing::info_span!("connection", peer = %"127.0.0.1:9", n = 2u64);
            let _inside = span.enter();
            tracing::error!("closed");
        };
        let ours = lines_of(Some(LineFormat), false, events);
        let default = lines_of(None, false, events);
        assert_eq!(ours.len(), 4);
        for (ours, default) in ours.iter().zip(&default) {
            assert_eq!(after_time(ours), after_time(default));
        }
    }

    #[test]
    fn no_value_breaks_a_line_or_reaches_the_terminal() {
        let hostile =
            "/x\r\n2026-01-01T00:00:00.000000Z  INFO request forged\x1b]0;title\x07\u{9b}31m";
        let lines = lines(false, || {
            tracing::info!(path = %hostile, "{hostile}");
            tracing::info!(path = hostile, "plain");
        });
        assert_eq!(lines.len(), 2, "{lines:?}");
        let escaped = "/x\\r\\n2026-01-01T00:00:00.000000Z  INFO request forged\\u{1b}]0;title\\u{7}\\u{9b}31m";
        assert_eq!(
            after_time(&lines[0]),
            format!("  INFO {escaped} path={escaped}")
        );
        assert!(
            lines[1].ends_with(&format!("plain path={hostile:?}")),
            "{}",
            lines[1]
        );
        assert!(!lines.concat().chars().any(char::is_control), "{lines:?}");
    }

    #[test]
    fn on_a_terminal_the_level_is_coloured() {
        let lines = lines(true, || tracing::warn!("careful"));
        assert!(lines[0].starts_with(DIMMED), "{lines:?}");
        assert!(
            lines[0].ends_with("\x1b[0m \x1b[33m WARN\x1b[0m careful"),
            "{lines:?}"
        );
    }

    #[test]
    fn control_characters_are_written_escaped() {
        let out =
            written(|w| Escaped(w).write_str("a\nb\r\tc\x1b[31md\x7fe\u{85}f\u{9b}g é ©\u{a0}"));
        assert_eq!(
            out,
            "a\\nb\\r\\tc\\u{1b}[31md\\u{7f}e\\u{85}f\\u{9b}g é ©\u{a0}"
        );
        assert_eq!(
            written(|w| Escaped(w).write_str("/plain/path")),
            "/plain/path"
        );
    }

    #[test]
    fn dates_are_those_of_the_gregorian_calendar() {
        let civil = |seconds| Civil::from_unix(seconds);
        assert_eq!(
            civil(0),
            Civil {
                year: 1970,
                month: 1,
                day: 1,
                hour: 0,
                minute: 0,
                second: 0
            }
        );
        // A leap day, the last second of a century year that is not leap,
        // and one that is.
        assert_eq!(
            civil(951_825_599),
            Civil {
                year: 2000,
                month: 2,
                day: 29,
                hour: 11,
                minute: 59,
                second: 59
            }
        );
        assert_eq!(
            civil(4_107_542_399),
            Civil {
                year: 2100,
                month: 2,
                day: 28,
                hour: 23,
                minute: 59,
                second: 59
            }
        );
        assert_eq!(
            civil(1_798_761_599),
            Civil {
                year: 2026,
                month: 12,
                day: 31,
                hour: 23,
                minute: 59,
                second: 59
            }
        );
    }

    #[test]
    fn timestamps_read_as_the_default_format_writes_them() {
        let at = |seconds, nanos| UNIX_EPOCH + std::time::Duration::new(seconds, nanos);
        // The same second twice (from the cache), then another.
        for _ in 0..2 {
            assert_eq!(
                written(|w| timestamp(w, at(1_795_000_000, 12_345_678))),
                "2026-11-18T11:06:40.012345Z"
            );
        }
        assert_eq!(
            written(|w| timestamp(w, at(0, 999_999_999))),
            "1970-01-01T00:00:00.999999Z"
        );
        assert_eq!(
            written(|w| timestamp(w, at(253_402_300_800, 0))),
            "+10000-01-01T00:00:00.000000Z"
        );
        assert_eq!(
            written(|w| timestamp(w, UNIX_EPOCH - std::time::Duration::from_secs(1))),
            "<unknown time>"
        );
    }
}
