//! The order of a session's requests kept through the gateway: a POST
//! waits for the standalone GET stream its client opened just before it.
//!
//! An MCP server sends requests of its own (sampling, elicitation) on the
//! session's standalone GET stream, and drops them when that stream is not
//! open yet. Clients open the stream and POST their next call at once,
//! without waiting for the stream's answer: straight to the server, the GET
//! comes first, but through a proxy the two travel on different upstream
//! connections (one reused, one new), and the POST can overtake the GET.
//! So while a session's GET is on its way, its POSTs wait until the
//! upstream has answered it (the server has registered the stream), up to
//! [`OPEN_WAIT`].

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http::{HeaderValue, Method, Request};
use tokio::sync::watch;

/// The header naming a request's MCP session.
const SESSION: &str = "mcp-session-id";

/// Longest a POST waits for its session's GET stream to open upstream; an
/// upstream that answers its GET streams late delays one POST by this much.
pub(crate) const OPEN_WAIT: Duration = Duration::from_secs(1);

/// Most sessions tracked at once; past it, new streams are not waited for
/// (nothing grows with what anonymous clients send).
const MAX_OPENING: usize = 1024;

/// Longest session id tracked; longer ones are not waited for.
const MAX_SESSION_ID: usize = 256;

/// The sessions whose standalone GET stream is on its way upstream.
#[derive(Debug, Default)]
pub(crate) struct Opening {
    streams: Mutex<HashMap<HeaderValue, (u64, watch::Sender<()>)>>,
    next: AtomicU64,
}

/// What the future of a request to the MCP endpoint owes the ordering: an
/// [`Opened`] to drop once a GET has its answer, or a wait for a POST.
pub(crate) enum Order {
    /// Nothing to keep.
    Free,
    /// A GET stream being opened: drop it when the upstream has answered.
    Opening(Opened),
    /// A POST to hold until its session's GET stream is open.
    Wait(Pin<Box<dyn Future<Output = ()> + Send>>),
}

impl Opening {
    fn lock(&self) -> MutexGuard<'_, HashMap<HeaderValue, (u64, watch::Sender<()>)>> {
        // The map holds plain data: a panic elsewhere leaves it usable.
        self.streams
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What `request` (to the MCP endpoint) owes the order of its session.
    pub(crate) fn order<B>(self: &Arc<Self>, request: &Request<B>) -> Order {
        let Some(session) = request
            .headers()
            .get(SESSION)
            .filter(|id| id.len() <= MAX_SESSION_ID)
        else {
            return Order::Free;
        };
        match *request.method() {
            Method::GET => {
                let ticket = self.next.fetch_add(1, Ordering::Relaxed);
                let mut streams = self.lock();
                if streams.len() >= MAX_OPENING && !streams.contains_key(session) {
                    return Order::Free;
                }
                // A second GET for the session replaces the first: POSTs
                // wait for the latest.
                let (sender, _) = watch::channel(());
                streams.insert(session.clone(), (ticket, sender));
                Order::Opening(Opened {
                    opening: self.clone(),
                    session: session.clone(),
                    ticket,
                })
            }
            Method::POST => {
                let Some(mut opened) = self.lock().get(session).map(|(_, s)| s.subscribe()) else {
                    return Order::Free;
                };
                Order::Wait(Box::pin(async move {
                    // Ends when the sender goes: the GET was answered or
                    // given up.
                    let _ = tokio::time::timeout(OPEN_WAIT, opened.changed()).await;
                }))
            }
            _ => Order::Free,
        }
    }
}

/// A GET stream on its way upstream; dropped when the upstream has
/// answered it (or the request ended otherwise), which lets its session's
/// POSTs go.
pub(crate) struct Opened {
    opening: Arc<Opening>,
    session: HeaderValue,
    ticket: u64,
}

impl Drop for Opened {
    fn drop(&mut self) {
        let mut streams = self.opening.lock();
        if streams
            .get(&self.session)
            .is_some_and(|(ticket, _)| *ticket == self.ticket)
        {
            streams.remove(&self.session);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, session: &str) -> Request<()> {
        Request::builder()
            .method(method)
            .uri("/mcp")
            .header(SESSION, session)
            .body(())
            .unwrap()
    }

    #[tokio::test]
    async fn a_post_waits_for_its_sessions_get_until_answered() {
        let opening = Arc::new(Opening::default());
        let Order::Opening(opened) = opening.order(&request(Method::GET, "a")) else {
            panic!("a GET with a session is tracked");
        };
        assert!(matches!(
            opening.order(&request(Method::POST, "b")),
            Order::Free
        ));
        let Order::Wait(wait) = opening.order(&request(Method::POST, "a")) else {
            panic!("a POST of the session waits");
        };
        let waiting = tokio::spawn(wait);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(opened);
        waiting.await.unwrap();
        assert!(matches!(
            opening.order(&request(Method::POST, "a")),
            Order::Free
        ));
        assert!(opening.lock().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn the_wait_is_bounded() {
        let opening = Arc::new(Opening::default());
        let _opened = opening.order(&request(Method::GET, "a"));
        let Order::Wait(wait) = opening.order(&request(Method::POST, "a")) else {
            panic!("a POST of the session waits");
        };
        let started = tokio::time::Instant::now();
        wait.await;
        assert_eq!(started.elapsed(), OPEN_WAIT);
    }

    #[test]
    fn anonymous_sessions_cannot_grow_the_table() {
        let opening = Arc::new(Opening::default());
        let held: Vec<Order> = (0..MAX_OPENING + 10)
            .map(|i| opening.order(&request(Method::GET, &format!("s{i}"))))
            .collect();
        assert_eq!(opening.lock().len(), MAX_OPENING);
        assert!(matches!(held.last(), Some(Order::Free)));
        drop(held);
        assert!(opening.lock().is_empty());
    }
}
