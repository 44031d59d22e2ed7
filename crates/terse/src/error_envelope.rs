//! The one shape of the layer's own refusals, always JSON:
//! `{"error":{"code":"...","message":"...","hint":"..."}}`.

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderValue, Response, StatusCode};
use serde_json::json;

/// A request the layer refuses before the handler sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) status: StatusCode,
    /// Stable, machine-readable reason.
    pub(crate) code: &'static str,
    /// What is wrong, for a person or an agent.
    pub(crate) message: String,
    /// How to get a good answer instead.
    pub(crate) hint: String,
}

impl Refusal {
    /// The refusal as a complete JSON response.
    pub(crate) fn into_response(self) -> Response<Bytes> {
        let body = json!({"error": {
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }});
        let body = Bytes::from(body.to_string());
        let length = HeaderValue::from(body.len());
        let mut response = Response::new(body);
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(CONTENT_LENGTH, length);
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_is_escaped_json_with_a_matching_length() {
        let response = Refusal {
            status: StatusCode::BAD_REQUEST,
            code: "invalid_fields",
            message: "field path `a..b` has an \"empty\" segment".into(),
            hint: "Write paths like a.b".into(),
        }
        .into_response();
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
}
