//! The headers of a `304 Not Modified` for a representation the layer
//! rewrites.
//!
//! A cache that gets a 304 updates the headers it stored with the
//! response from those of the 304 (RFC 9111 §4.3.4). The handler only
//! knows its own representation: a `Content-Type: application/json` (or
//! a `Content-Length`) it sends on its 304 would relabel a stored TOON
//! body as JSON. So the 304 for a rewritten representation carries that
//! representation's tag and type, and no length.

use http::HeaderMap;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};

use super::headers::mark_rewritten;
use super::plan::Plan;
use crate::fields::Fields;

/// Makes the handler's 304 headers those of the representation `plan`
/// serves: its weak tag (`W/"v1-toon"`), its `Content-Type` in place of
/// the handler's (JSON projected by `fields` keeps the handler's, as its
/// 200 does), and no `Content-Length`, which would be the handler's body's.
pub(super) fn relabel_not_modified(headers: &mut HeaderMap, plan: &Plan) {
    if !plan.rewrites() {
        return;
    }
    let fields = plan.fields.as_ref().map(Fields::fingerprint);
    mark_rewritten(headers, plan.format, false, fields);
    if headers.contains_key(CONTENT_TYPE) {
        if let Some(content_type) = plan.format.rewritten_content_type() {
            headers.insert(CONTENT_TYPE, content_type);
        }
    }
    headers.remove(CONTENT_LENGTH);
}
