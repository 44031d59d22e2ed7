//! [`Passthrough`]: one response out of the layer's hands.

/// A response extension that keeps the layer away from one response: its
/// status, headers and body go out exactly as the handler made them, with
/// no rewrite, no `X-Token-Count` and no `Vary`, whatever the request asked.
///
/// For a handler whose bytes must not change: a signed document, a body an
/// exact client checks by its hash. Under axum it is also a response part.
///
/// ```
/// use axum::{Json, Router, body::Body, routing::get};
/// use http_body_util::BodyExt;
/// use serde_json::json;
/// use tower_terse::{Passthrough, TerseLayer};
/// use tower::ServiceExt;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let app = Router::new()
///     .route("/signed", get(|| async { (Passthrough, Json(json!([{"id": 1}, {"id": 2}]))) }))
///     .layer(TerseLayer::new());
///
/// let request = http::Request::get("/signed?format=toon").body(Body::empty()).unwrap();
/// let response = app.oneshot(request).await.unwrap();
/// assert_eq!(response.headers()["content-type"], "application/json");
/// assert!(!response.headers().contains_key("x-token-count"));
/// let body = response.into_body().collect().await.unwrap().to_bytes();
/// assert_eq!(body, r#"[{"id":1},{"id":2}]"#);
/// # }
/// ```
///
/// Without axum, insert it into the response's extensions:
/// `response.extensions_mut().insert(tower_terse::Passthrough)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Passthrough;

#[cfg(feature = "axum")]
impl axum::response::IntoResponseParts for Passthrough {
    type Error = std::convert::Infallible;

    fn into_response_parts(
        self,
        mut parts: axum::response::ResponseParts,
    ) -> Result<axum::response::ResponseParts, Self::Error> {
        parts.extensions_mut().insert(self);
        Ok(parts)
    }
}
