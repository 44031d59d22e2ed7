//! The `?since=` query parameter as an axum extractor.

use std::fmt;

use axum::extract::FromRequestParts;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use http::request::Parts;

use super::{SINCE_PARAM, Timestamp};
use crate::query;

/// The optional `?since=<RFC 3339>` of a list request.
///
/// `Since(None)` when the parameter is absent: the handler answers its usual
/// list. `Since(Some(t))` asks for the records created, updated or deleted at
/// or after `t` (see [`Changes`](super::Changes)). A value that is not an
/// RFC 3339 date-time is refused with a 400 in the layer's error envelope,
/// `{"error":{"code":"invalid_since","message":...,"hint":...}}`, before the
/// handler runs. Remember to percent-encode a `+` offset (`%2B01:00`); a bare
/// `+` that a form decoder turned into a space is read as `+` all the same.
///
/// ```
/// use axum::{Router, routing::get};
/// use tower_terse::changes::Since;
///
/// async fn list(Since(since): Since) -> String {
///     match since {
///         Some(t) => format!("changes since {t}"),
///         None => "everything".to_owned(),
///     }
/// }
///
/// let app: Router = Router::new().route("/api/v1/notes", get(list));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Since(pub Option<Timestamp>);

impl Since {
    /// Reads `since` from a raw query string (`a=1&since=...`).
    pub fn from_query(query: Option<&str>) -> Result<Self, SinceRejection> {
        let Some(query) = query else {
            return Ok(Self(None));
        };
        let mut found = None;
        for (key, value) in query::pairs(query) {
            if key != SINCE_PARAM {
                continue;
            }
            if found.is_some() {
                return Err(SinceRejection::new(
                    "the `since` parameter is given more than once".to_owned(),
                ));
            }
            found = Some(value);
        }
        let Some(raw) = found else {
            return Ok(Self(None));
        };
        let Some(text) = query::decode_utf8(raw) else {
            return Err(SinceRejection::new(
                "the `since` value is not valid percent-encoded UTF-8".to_owned(),
            ));
        };
        // `+` means a space in form encoding; in a timestamp it can only be an
        // offset sign, so take it back rather than refuse the request.
        let text = text.replace(' ', "+");
        let text = restore_date_time_separator(&text);
        Timestamp::parse(&text).map(|t| Self(Some(t))).map_err(|e| {
            SinceRejection::new(format!("`since={text}` is not an RFC 3339 date-time: {e}"))
        })
    }
}

/// Undoes the `+` restoration for a space between date and time (`2026-02-18 09:00:00Z`).
fn restore_date_time_separator(text: &str) -> String {
    let mut s = text.to_owned();
    if s.len() > 10 && s.as_bytes()[10] == b'+' {
        s.replace_range(10..11, "T");
    }
    s
}

impl<S: Send + Sync> FromRequestParts<S> for Since {
    type Rejection = SinceRejection;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Self::from_query(parts.uri.query())
    }
}

/// A `since` value that could not be read; answers 400 in the error envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinceRejection {
    message: String,
}

impl SinceRejection {
    fn new(message: String) -> Self {
        Self { message }
    }

    /// What was wrong with the value.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SinceRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SinceRejection {}

impl IntoResponse for SinceRejection {
    fn into_response(self) -> Response {
        crate::ErrorEnvelope::new(StatusCode::BAD_REQUEST, "invalid_since", self.message)
            .with_hint(
                "use an RFC 3339 date-time such as 2026-02-18T09:00:00Z, \
                 or the meta.response_timestamp of the previous answer",
            )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn since(query: &str) -> Result<Option<String>, SinceRejection> {
        Since::from_query(Some(query)).map(|s| s.0.map(|t| t.to_string()))
    }

    #[test]
    fn absent_is_none() {
        assert_eq!(Since::from_query(None).unwrap(), Since(None));
        assert_eq!(since("limit=5&format=compact").unwrap(), None);
    }

    #[test]
    fn reads_encoded_and_unencoded_offsets() {
        let want = Some("2026-02-18T08:00:00Z".to_owned());
        assert_eq!(since("since=2026-02-18T09:00:00%2B01:00").unwrap(), want);
        assert_eq!(since("since=2026-02-18T09:00:00+01:00").unwrap(), want);
        assert_eq!(since("x=1&since=2026-02-18T08%3A00%3A00Z").unwrap(), want);
        assert_eq!(since("since=2026-02-18+08:00:00Z").unwrap(), want);
    }

    #[test]
    fn refuses_bad_values() {
        for q in ["since=", "since=yesterday", "since=%FF", "since=a&since=b"] {
            assert!(since(q).is_err(), "{q}");
        }
    }
}
