//! Logs to stderr for the long-running subcommands.
//!
//! The gateway writes one line per request: written straight to stderr,
//! that is a `write` system call per request, a few percent of the
//! gateway's CPU. [`init_buffered`] gathers the lines in memory instead and
//! writes them out every [`FLUSH_EVERY`], at once for a warning or an
//! error, and when its [`Flush`] guard is dropped on a clean stop. A crash
//! (a kill with SIGKILL, an abort) loses the lines of the last
//! [`FLUSH_EVERY`] at most.
//!
//! Lines are written by [`LineFormat`]: the layout of `tracing_subscriber`'s
//! default format, at well under half its cost per request line, with
//! control characters in every value escaped.

use std::io::{self, BufWriter, IsTerminal as _, Stderr, Write};
use std::sync::Mutex;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

mod line;

pub use line::LineFormat;

/// `text` with its control characters escaped as the log lines write them
/// (`\n`, `\r`, `\t`, `\u{1b}`, C1 controls as `\u{9b}`): a message quoting
/// its input takes exactly one line on standard error and drives no
/// terminal.
///
/// ```
/// use terse_bin::logging::one_line;
///
/// assert_eq!(one_line("a\nb\tc\u{1}\u{9b}"), "a\\nb\\tc\\u{1}\\u{9b}");
/// assert_eq!(one_line("ünïcode stays"), "ünïcode stays");
/// ```
pub fn one_line(text: &str) -> String {
    use std::fmt::Write as _;
    let mut line = String::with_capacity(text.len());
    // Writing to a `String` cannot fail.
    let _ = line::Escaped(&mut line).write_str(text);
    line
}

/// How long a buffered line waits at most before it is written out.
pub const FLUSH_EVERY: Duration = Duration::from_millis(100);

/// Room for a few hundred request lines between two flushes.
const BUFFER: usize = 64 * 1024;

/// The buffered lines of [`init_buffered`].
static BUFFERED: Mutex<Option<BufWriter<Stderr>>> = Mutex::new(None);

/// Logs to stderr at `default` (`RUST_LOG` overrides, e.g.
/// `RUST_LOG=tower_terse=debug`), coloured only on a terminal.
pub fn init(default: &str) {
    let _ = subscriber(default).with_writer(io::stderr).try_init();
}

/// Like [`init`], but lines wait in memory up to [`FLUSH_EVERY`] (see the
/// module's documentation); on a terminal they are written at once. Keep
/// the returned guard until the end: dropping it writes what is left.
#[must_use = "dropping the guard writes out the buffered lines"]
pub fn init_buffered(default: &str) -> Flush {
    if io::stderr().is_terminal() {
        init(default);
        return Flush(());
    }
    *lock() = Some(BufWriter::with_capacity(BUFFER, io::stderr()));
    let _ = subscriber(default).with_writer(Buffered).try_init();
    // Detached: it sleeps between flushes and dies with the process.
    let _ = std::thread::Builder::new()
        .name("terse-log-flush".into())
        .spawn(|| {
            loop {
                std::thread::sleep(FLUSH_EVERY);
                flush();
            }
        });
    Flush(())
}

/// Lines of [`LineFormat`]'s format, filtered by `RUST_LOG` or else `default`.
fn subscriber(
    default: &str,
) -> tracing_subscriber::fmt::SubscriberBuilder<LineFormat, LineFormat, tracing_subscriber::EnvFilter>
{
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(io::stderr().is_terminal())
        .event_format(LineFormat)
        .fmt_fields(LineFormat)
}

/// A panic while holding the lock leaves whole lines in the buffer: they
/// are still worth writing.
fn lock() -> std::sync::MutexGuard<'static, Option<BufWriter<Stderr>>> {
    BUFFERED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn flush() {
    if let Some(writer) = lock().as_mut() {
        let _ = writer.flush();
    }
}

/// Writes out the lines [`init_buffered`] still holds when dropped.
///
/// ```
/// let flush = terse_bin::logging::init_buffered("info");
/// tracing::info!("written by the time the guard is dropped");
/// drop(flush);
/// ```
#[derive(Debug)]
pub struct Flush(());

impl Drop for Flush {
    fn drop(&mut self) {
        flush();
    }
}

/// The subscriber's writer for [`init_buffered`].
struct Buffered;

/// One line's writer: `urgent` for a warning or an error, written at once.
struct Line {
    urgent: bool,
}

impl Write for Line {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    /// The subscriber writes a whole line in one call: under one lock, lines
    /// from several threads never interleave.
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let mut guard = lock();
        let Some(writer) = guard.as_mut() else {
            return io::stderr().write_all(buf);
        };
        writer.write_all(buf)?;
        if self.urgent {
            writer.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        lock().as_mut().map_or(Ok(()), Write::flush)
    }
}

impl<'a> MakeWriter<'a> for Buffered {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line { urgent: true }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> Line {
        Line {
            urgent: *meta.level() <= tracing::Level::WARN,
        }
    }
}
