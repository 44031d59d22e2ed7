//! What the layer did with a response, left on it as an [`Outcome`]
//! extension, and the `X-Response-Format` header's words for it.

pub use crate::render::{Fallback, Outcome, ResponseFormat};
