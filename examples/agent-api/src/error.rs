//! The service's error answers, in terse's error envelope, so an agent reads
//! one shape whether the layer or a handler refused.

use axum::http::StatusCode;

/// An error answer: `{"error":{"code","message","hint"}}` with its status.
pub use tower_terse::ErrorEnvelope as ApiError;

/// A 400 answer.
pub fn bad_request(
    code: &'static str,
    message: impl Into<String>,
    hint: impl Into<String>,
) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message).with_hint(hint)
}

/// A 404 answer for a record of `kind` that does not exist.
pub fn not_found(kind: &str, id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no {kind} with id {id}"),
    )
    .with_hint("take an id from the `ids` or `data[].id` of a list")
}

/// A 500 answer; the cause is logged to stderr, not shown to the client.
pub fn internal(cause: impl std::fmt::Display) -> ApiError {
    eprintln!("agent-api: internal error: {cause}");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "the service failed to answer",
    )
    .with_hint("try again; if it persists, check the service log")
}
