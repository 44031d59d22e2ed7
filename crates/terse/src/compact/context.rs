//! What a line is rendered against, besides the record itself.

use std::time::{SystemTime, UNIX_EPOCH};

/// The context of one rendering: the request time, which the `ago` filter
/// measures from. Build one per response so every line of a list agrees.
///
/// ```
/// use terse::compact::RenderContext;
///
/// let cx = RenderContext::at_unix(1_700_000_000);
/// assert_eq!(cx.now_unix(), 1_700_000_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderContext {
    now_unix: i64,
}

impl RenderContext {
    /// A context for the current time.
    pub fn now() -> Self {
        Self::at(SystemTime::now())
    }

    /// A context for the given instant.
    pub fn at(time: SystemTime) -> Self {
        let now_unix = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            Err(before) => i64::try_from(before.duration().as_secs())
                .map(|s| -s)
                .unwrap_or(i64::MIN),
        };
        RenderContext { now_unix }
    }

    /// A context for the given Unix time, in seconds.
    pub fn at_unix(seconds: i64) -> Self {
        RenderContext { now_unix: seconds }
    }

    /// The render instant as Unix seconds.
    pub fn now_unix(&self) -> i64 {
        self.now_unix
    }
}

impl Default for RenderContext {
    /// The current time.
    fn default() -> Self {
        Self::now()
    }
}
