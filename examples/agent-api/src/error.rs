//! The service's error answer, in the same envelope as the terse layer's.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// An error answer: `{"error":{"code","message","hint"}}` with its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable, machine-readable code such as `not_found`.
    pub code: &'static str,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl ApiError {
    /// A 400 answer.
    pub fn bad_request(
        code: &'static str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            code,
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// A 404 answer for a record of `kind` that does not exist.
    pub fn not_found(kind: &str, id: &str) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            code: "not_found",
            message: format!("no {kind} with id {id}"),
            hint: "take an id from the `ids` or `data[].id` of a list".to_owned(),
        }
    }

    /// A 500 answer; the cause is logged to stderr, not shown to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        eprintln!("agent-api: internal error: {cause}");
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: "internal",
            message: "the service failed to answer".to_owned(),
            hint: "try again; if it persists, check the service log".to_owned(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": {"code": self.code, "message": self.message, "hint": self.hint}
        });
        (self.status, Json(body)).into_response()
    }
}
