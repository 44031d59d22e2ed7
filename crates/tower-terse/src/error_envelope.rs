//! The one JSON shape of every error terse answers, and that services can
//! answer their own errors in: `{"error":{"code","message","hint"}}`.

use std::borrow::Cow;
use std::fmt;

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderValue, Response, StatusCode};
use serde::Serialize;

/// An error answer: a status and the JSON body
/// `{"error":{"code":"...","message":"...","hint":"..."}}`.
///
/// The layer refuses requests in this shape (a `fields` list that is too
/// large, `fields` with compact lines), and so do the `since` extractor and
/// a gateway whose upstream is down. Services can answer their own errors in
/// it too, so that an agent reads one shape whoever answered:
///
/// ```
/// use http::StatusCode;
/// use tower_terse::ErrorEnvelope;
///
/// let error = ErrorEnvelope::new(StatusCode::NOT_FOUND, "not_found", "no event 42")
///     .with_hint("take an id from the `ids` of a list");
/// assert_eq!(
///     error.to_json(),
///     r#"{"error":{"code":"not_found","message":"no event 42","hint":"take an id from the `ids` of a list"}}"#
/// );
///
/// let response: http::Response<bytes::Bytes> = error.into_http_response();
/// assert_eq!(response.status(), StatusCode::NOT_FOUND);
/// assert_eq!(response.headers()["content-type"], "application/json");
/// ```
///
/// With the `axum` feature it is an `IntoResponse`, so a handler can return
/// `Result<Json<T>, ErrorEnvelope>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorEnvelope {
    status: StatusCode,
    code: Cow<'static, str>,
    message: String,
    hint: Option<String>,
}

/// The body's shape, borrowed from an envelope.
#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
}

impl ErrorEnvelope {
    /// An error with its status, a stable machine-readable `code` (such as
    /// `not_found`) and a `message` saying what is wrong.
    pub fn new(
        status: StatusCode,
        code: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Self {
        ErrorEnvelope {
            status,
            code: code.into(),
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint: what to do to get a good answer instead.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The machine-readable code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What to do about it, when there is a hint.
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// The body as compact JSON text.
    pub fn to_json(&self) -> String {
        let body = Body {
            error: Inner {
                code: &self.code,
                message: &self.message,
                hint: self.hint.as_deref(),
            },
        };
        // Serializing plain strings into a `String` cannot fail.
        serde_json::to_string(&body).unwrap_or_default()
    }

    /// The envelope as a complete response: its status, the JSON body,
    /// `Content-Type: application/json` and `Content-Length`.
    pub fn into_http_response<B: From<Bytes>>(self) -> Response<B> {
        let body = Bytes::from(self.to_json());
        let length = HeaderValue::from(body.len());
        let mut response = Response::new(B::from(body));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(CONTENT_LENGTH, length);
        response
    }
}

impl fmt::Display for ErrorEnvelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.code,
            self.message
        )
    }
}

impl std::error::Error for ErrorEnvelope {}

#[cfg(feature = "axum")]
impl axum::response::IntoResponse for ErrorEnvelope {
    fn into_response(self) -> axum::response::Response {
        self.into_http_response::<Bytes>()
            .map(axum::body::Body::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_is_escaped_json_with_a_matching_length() {
        let response: Response<Bytes> = ErrorEnvelope::new(
            StatusCode::BAD_REQUEST,
            "invalid_fields",
            "field path `a..b` has an \"empty\" segment",
        )
        .with_hint("Write paths like a.b")
        .into_http_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let value: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(value["error"]["code"], "invalid_fields");
        assert_eq!(
            value["error"]["message"],
            "field path `a..b` has an \"empty\" segment"
        );
        assert_eq!(value["error"]["hint"], "Write paths like a.b");
        assert_eq!(
            response.headers()[CONTENT_LENGTH],
            response.body().len().to_string()
        );
    }

    #[test]
    fn no_hint_leaves_the_key_out() {
        let error = ErrorEnvelope::new(StatusCode::BAD_GATEWAY, "upstream_unavailable", "down");
        assert_eq!(
            error.to_json(),
            r#"{"error":{"code":"upstream_unavailable","message":"down"}}"#
        );
        assert_eq!(error.to_string(), "502 upstream_unavailable: down");
    }
}
