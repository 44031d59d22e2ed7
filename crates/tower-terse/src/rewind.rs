//! [`Rewind`]: a way back to a response body as it came, for a service
//! inside the layer that changed it.

use std::fmt;
use std::sync::Arc;

use http::HeaderMap;

/// A response extension, put there by a service inside the layer that
/// changed the body (a proxy decompressing its upstream's gzip), that turns
/// the body back into what it was: the layer calls it when a body turns
/// out larger than `max_body_bytes` while it reads it, instead of sending
/// on the rest as it is. A decompressed body then goes out compressed as it
/// came, so that the rest of a gzip bomb is never inflated.
///
/// The function is given the response's headers (to set
/// `Content-Encoding` back) and says whether the body was rewound: from
/// then on, the body yields its bytes as they came, from the first. On
/// `false` nothing changed, and the layer sends the rest as it is.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use http::{HeaderMap, HeaderValue, header::CONTENT_ENCODING};
/// use tower_terse::proxy::Rewind;
///
/// let rewound = Arc::new(AtomicBool::new(false));
/// let flag = rewound.clone();
/// let rewind = Rewind::new(move |headers: &mut HeaderMap| {
///     headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
///     flag.store(true, Ordering::Release);
///     true
/// });
/// let mut headers = HeaderMap::new();
/// assert!(rewind.rewind(&mut headers));
/// assert_eq!(headers[CONTENT_ENCODING], "gzip");
/// assert!(rewound.load(Ordering::Acquire));
/// ```
#[derive(Clone)]
pub struct Rewind(Arc<dyn Fn(&mut HeaderMap) -> bool + Send + Sync>);

impl Rewind {
    /// A rewind that `rewind` carries out (see [`Rewind`]).
    pub fn new(rewind: impl Fn(&mut HeaderMap) -> bool + Send + Sync + 'static) -> Self {
        Rewind(Arc::new(rewind))
    }

    /// Turns the body back into what it was, setting `headers` to match;
    /// `false` when it cannot be (nothing changed then).
    pub fn rewind(&self, headers: &mut HeaderMap) -> bool {
        (self.0)(headers)
    }
}

impl fmt::Debug for Rewind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rewind").finish_non_exhaustive()
    }
}
