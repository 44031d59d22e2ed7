//! What a line is rendered against, besides the record itself.

use std::time::{SystemTime, UNIX_EPOCH};

/// The context of one rendering: the request time, which the `ago` filter
/// measures from, and the largest envelope to write. Build one per response
/// so every line of a list agrees.
///
/// ```
/// use tower_terse::compact::RenderContext;
///
/// let cx = RenderContext::at_unix(1_700_000_000);
/// assert_eq!(cx.now_unix(), 1_700_000_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderContext {
    now_unix: i64,
    max_output_bytes: usize,
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
        Self::at_unix(now_unix)
    }

    /// A context for the given Unix time, in seconds.
    pub fn at_unix(seconds: i64) -> Self {
        RenderContext {
            now_unix: seconds,
            max_output_bytes: usize::MAX,
        }
    }

    /// The same context with a bound on the envelope's text: an envelope
    /// that would be larger is not finished, and rendering ends with
    /// [`NotCompact::TooLarge`](crate::compact::NotCompact::TooLarge).
    /// Unbounded unless set.
    ///
    /// ```
    /// use serde_json::json;
    /// use tower_terse::compact::{compact_envelope, CompactResource, NotCompact, RenderContext, Template};
    ///
    /// let notes = CompactResource::new("note", Template::parse("{title}")?);
    /// let body = json!([{"id": 1, "title": "a long title, longer than the bound"}]);
    /// let cx = RenderContext::now().with_max_output_bytes(32);
    /// let err = compact_envelope(&body, &["data"], &notes, &cx).unwrap_err();
    /// assert_eq!(err, NotCompact::TooLarge { limit: 32 });
    /// # Ok::<(), tower_terse::compact::TemplateError>(())
    /// ```
    pub fn with_max_output_bytes(mut self, limit: usize) -> Self {
        self.max_output_bytes = limit;
        self
    }

    /// The bound on the envelope's text, in bytes.
    pub fn max_output_bytes(&self) -> usize {
        self.max_output_bytes
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
