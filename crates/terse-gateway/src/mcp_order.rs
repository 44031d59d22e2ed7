//! The order of a session's requests kept through the gateway: a POST
//! waits for the standalone GET stream its client opens before it.
//!
//! An MCP server sends requests of its own (sampling, elicitation) on the
//! session's standalone GET stream, and drops them when that stream is not
//! open yet. The MCP SDKs' clients open the stream as soon as their
//! `notifications/initialized` is accepted (202), and POST their next call
//! at once, without waiting for the stream's answer. Straight to the
//! server, the GET comes first. Through the gateway the POST can overtake
//! it twice:
//!
//! - on the way in: the two come on two client connections, which the
//!   gateway serves in parallel, so the POST can reach [`Opening::order`]
//!   a few milliseconds before the GET (the server itself, on one thread,
//!   reads them in the order they came);
//! - on the way up: they travel on two upstream connections (one reused,
//!   one new), and the POST can reach the server first.
//!
//! So once a session's first 202 after `initialize` has been answered (the
//! client's `notifications/initialized`), its POSTs wait for its GET to
//! arrive; and while a GET is on its way upstream, they wait until the
//! upstream has answered it (the server has registered the stream). Both
//! waits are bounded by [`OPEN_WAIT`]: a client that never opens the
//! stream has the first call of each session held that long, once.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http::{HeaderValue, Method, Request, Response, StatusCode};
use tokio::sync::watch;
use tokio::time::Instant;

/// The header naming a request's MCP session.
const SESSION: &str = "mcp-session-id";

/// Longest a POST waits for its session's GET stream to reach the gateway
/// (after the session's first 202), and then to open upstream; an upstream
/// that answers its GET streams late delays POSTs by this much.
pub(crate) const OPEN_WAIT: Duration = Duration::from_secs(1);

/// How long after `initialize` is answered the session's first 202 still
/// announces its GET stream.
const SETUP_WAIT: Duration = Duration::from_secs(10);

/// Most sessions tracked at once; past it (once the expired ones are
/// gone), new ones are not waited for: nothing grows with what anonymous
/// clients send.
const MAX_OPENING: usize = 1024;

/// Longest session id tracked; longer ones are not waited for.
const MAX_SESSION_ID: usize = 256;

/// Where a tracked session stands.
#[derive(Debug)]
enum Stage {
    /// `initialize` was answered: the session's first 202 (the client's
    /// `notifications/initialized`) says its GET stream comes next.
    Initialized { until: Instant },
    /// The GET stream expected (`ticket` is `None`) or on its way upstream
    /// (the GET's ticket). POSTs wait on `open` up to the instant it holds,
    /// or until it closes: the GET was answered or given up.
    Held {
        ticket: Option<u64>,
        open: watch::Sender<Instant>,
    },
}

impl Stage {
    /// Whether the entry still has a use at `now` (a GET on its way stays
    /// until it ends).
    fn live(&self, now: Instant) -> bool {
        match self {
            Stage::Initialized { until } => *until > now,
            Stage::Held {
                ticket: Some(_), ..
            } => true,
            Stage::Held { ticket: None, open } => *open.borrow() > now,
        }
    }
}

/// The sessions whose standalone GET stream is expected or on its way
/// upstream.
#[derive(Debug, Default)]
pub(crate) struct Opening {
    streams: Mutex<HashMap<HeaderValue, Stage>>,
    next: AtomicU64,
}

/// What a request to the MCP endpoint owes the order of its session: a
/// wait before it goes upstream, and a [`Ticket`] to hand its answer to.
pub(crate) struct Order {
    /// Holds a POST until its session's GET stream is open.
    pub(crate) wait: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Told of the upstream's answer ([`Ticket::answered`]).
    pub(crate) ticket: Option<Ticket>,
}

impl Order {
    fn free(ticket: Option<Ticket>) -> Self {
        Order { wait: None, ticket }
    }
}

type Streams<'a> = MutexGuard<'a, HashMap<HeaderValue, Stage>>;

impl Opening {
    fn lock(&self) -> Streams<'_> {
        // The map holds plain data: a panic elsewhere leaves it usable.
        self.streams
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether `session` has (or can have) an entry: at the cap, expired
    /// entries are dropped first.
    fn room(streams: &mut Streams<'_>, session: &HeaderValue) -> bool {
        if streams.len() < MAX_OPENING || streams.contains_key(session) {
            return true;
        }
        let now = Instant::now();
        streams.retain(|_, stage| stage.live(now));
        streams.len() < MAX_OPENING
    }

    /// What `request` (to the MCP endpoint) owes the order of its session.
    pub(crate) fn order<B>(self: &Arc<Self>, request: &Request<B>) -> Order {
        let session = request
            .headers()
            .get(SESSION)
            .filter(|id| id.len() <= MAX_SESSION_ID);
        match (request.method(), session) {
            (&Method::GET, Some(session)) => self.get(session),
            (&Method::POST, session) => {
                let ticket = Some(Ticket {
                    opening: self.clone(),
                    kind: Kind::Post(session.cloned()),
                });
                match session {
                    Some(session) => Order {
                        wait: self.post(session),
                        ticket,
                    },
                    None => Order::free(ticket),
                }
            }
            _ => Order::free(None),
        }
    }

    fn get(self: &Arc<Self>, session: &HeaderValue) -> Order {
        let ticket = self.next.fetch_add(1, Ordering::Relaxed);
        let until = Instant::now() + OPEN_WAIT;
        let mut streams = self.lock();
        match streams.get_mut(session) {
            // POSTs waiting for this GET to arrive now wait for its answer.
            // A second GET for the session replaces the first: POSTs wait
            // for the latest.
            Some(Stage::Held { ticket: held, open }) => {
                *held = Some(ticket);
                open.send_replace(until);
            }
            _ => {
                if !Self::room(&mut streams, session) {
                    return Order::free(None);
                }
                let (open, _) = watch::channel(until);
                let held = Stage::Held {
                    ticket: Some(ticket),
                    open,
                };
                streams.insert(session.clone(), held);
            }
        }
        Order::free(Some(Ticket {
            opening: self.clone(),
            kind: Kind::Get {
                session: session.clone(),
                ticket,
            },
        }))
    }

    fn post(&self, session: &HeaderValue) -> Option<Pin<Box<dyn Future<Output = ()> + Send>>> {
        let mut streams = self.lock();
        let now = Instant::now();
        let stage = streams.get(session)?;
        if let Stage::Held { open, .. } = stage {
            if *open.borrow() > now {
                return Some(Box::pin(wait(open.subscribe())));
            }
        }
        if !stage.live(now) {
            // The GET expected never came: the next POSTs go at once.
            streams.remove(session);
        }
        None
    }

    /// A session-less POST was answered with a session: `initialize`.
    fn initialized(&self, session: &HeaderValue) {
        let mut streams = self.lock();
        if Self::room(&mut streams, session) {
            let until = Instant::now() + SETUP_WAIT;
            streams.insert(session.clone(), Stage::Initialized { until });
        }
    }

    /// A POST of `session` was answered 202: the first one after
    /// `initialize` announces the GET stream.
    fn accepted(&self, session: &HeaderValue) {
        let mut streams = self.lock();
        let now = Instant::now();
        if let Some(stage @ Stage::Initialized { .. }) = streams.get_mut(session) {
            if stage.live(now) {
                let (open, _) = watch::channel(now + OPEN_WAIT);
                *stage = Stage::Held { ticket: None, open };
            } else {
                streams.remove(session);
            }
        }
    }

    /// A GET ended (answered, or its request gone): its session's POSTs go.
    fn opened(&self, session: &HeaderValue, ticket: u64) {
        let mut streams = self.lock();
        if matches!(
            streams.get(session),
            Some(Stage::Held { ticket: Some(t), .. }) if *t == ticket
        ) {
            streams.remove(session);
        }
    }
}

/// Waits until the instant `open` holds (it moves when the GET arrives),
/// or until it closes.
async fn wait(mut open: watch::Receiver<Instant>) {
    loop {
        let until = *open.borrow_and_update();
        match tokio::time::timeout_at(until, open.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => return,
        }
    }
}

/// A request to the MCP endpoint on its way upstream: told of the
/// upstream's answer, or dropped without one.
pub(crate) struct Ticket {
    opening: Arc<Opening>,
    kind: Kind,
}

enum Kind {
    /// A POST, with its session if it has one.
    Post(Option<HeaderValue>),
    /// A GET stream of a session.
    Get { session: HeaderValue, ticket: u64 },
}

impl Ticket {
    /// The upstream answered with `response`'s head.
    pub(crate) fn answered<B>(self, response: &Response<B>) {
        let Kind::Post(session) = &self.kind else {
            // A GET: dropping the ticket lets the session's POSTs go.
            return;
        };
        match session {
            Some(session) if response.status() == StatusCode::ACCEPTED => {
                self.opening.accepted(session);
            }
            None if response.status().is_success() => {
                if let Some(session) = response
                    .headers()
                    .get(SESSION)
                    .filter(|id| id.len() <= MAX_SESSION_ID)
                {
                    self.opening.initialized(session);
                }
            }
            _ => {}
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Kind::Get { session, ticket } = &self.kind {
            self.opening.opened(session, *ticket);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, session: Option<&str>) -> Request<()> {
        let mut builder = Request::builder().method(method).uri("/mcp");
        if let Some(session) = session {
            builder = builder.header(SESSION, session);
        }
        builder.body(()).unwrap()
    }

    fn answer(status: u16, session: Option<&str>) -> Response<()> {
        let mut builder = Response::builder().status(status);
        if let Some(session) = session {
            builder = builder.header(SESSION, session);
        }
        builder.body(()).unwrap()
    }

    /// `initialize` and `notifications/initialized` of session `id`,
    /// answered.
    fn set_up(opening: &Arc<Opening>, id: &str) {
        let initialize = opening.order(&request(Method::POST, None));
        assert!(initialize.wait.is_none());
        initialize.ticket.unwrap().answered(&answer(200, Some(id)));
        let initialized = opening.order(&request(Method::POST, Some(id)));
        assert!(initialized.wait.is_none(), "the notification goes at once");
        initialized.ticket.unwrap().answered(&answer(202, None));
    }

    #[tokio::test]
    async fn a_post_waits_for_its_sessions_get_until_answered() {
        let opening = Arc::new(Opening::default());
        let get = opening.order(&request(Method::GET, Some("a")));
        assert!(get.wait.is_none());
        assert!(
            opening
                .order(&request(Method::POST, Some("b")))
                .wait
                .is_none()
        );
        let wait = opening.order(&request(Method::POST, Some("a"))).wait;
        let waiting = tokio::spawn(wait.expect("a POST of the session waits"));
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        get.ticket.unwrap().answered(&answer(200, None));
        waiting.await.unwrap();
        let after = opening.order(&request(Method::POST, Some("a")));
        assert!(after.wait.is_none());
        drop(after);
        assert!(opening.lock().is_empty());
    }

    #[tokio::test]
    async fn after_the_first_202_a_post_waits_for_the_get_to_arrive_then_its_answer() {
        let opening = Arc::new(Opening::default());
        set_up(&opening, "a");
        // The call overtook the GET the client sent before it.
        let wait = opening.order(&request(Method::POST, Some("a"))).wait;
        let waiting = tokio::spawn(wait.expect("the call waits for the GET"));
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        let get = opening.order(&request(Method::GET, Some("a")));
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the GET is not answered yet");
        drop(get);
        waiting.await.unwrap();
        assert!(opening.lock().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_get_one_post_waits_once() {
        let opening = Arc::new(Opening::default());
        set_up(&opening, "a");
        let started = Instant::now();
        let first = opening.order(&request(Method::POST, Some("a")));
        first.wait.expect("the first call waits").await;
        assert_eq!(started.elapsed(), OPEN_WAIT);
        first.ticket.unwrap().answered(&answer(202, None));
        assert!(
            opening
                .order(&request(Method::POST, Some("a")))
                .wait
                .is_none()
        );
        assert!(opening.lock().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn the_wait_for_an_answer_is_bounded() {
        let opening = Arc::new(Opening::default());
        let _get = opening.order(&request(Method::GET, Some("a")));
        let wait = opening.order(&request(Method::POST, Some("a"))).wait;
        let started = Instant::now();
        wait.expect("a POST of the session waits").await;
        assert_eq!(started.elapsed(), OPEN_WAIT);
        // A GET answered late holds no further POST.
        assert!(
            opening
                .order(&request(Method::POST, Some("a")))
                .wait
                .is_none()
        );
    }

    #[tokio::test]
    async fn only_the_first_202_announces_the_stream() {
        let opening = Arc::new(Opening::default());
        set_up(&opening, "a");
        drop(opening.order(&request(Method::GET, Some("a"))));
        for _ in 0..3 {
            let post = opening.order(&request(Method::POST, Some("a")));
            assert!(post.wait.is_none());
            post.ticket.unwrap().answered(&answer(202, None));
        }
        // A session the gateway did not see begin is never held.
        let post = opening.order(&request(Method::POST, Some("b")));
        post.ticket.unwrap().answered(&answer(202, None));
        assert!(
            opening
                .order(&request(Method::POST, Some("b")))
                .wait
                .is_none()
        );
        assert!(opening.lock().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn anonymous_sessions_cannot_grow_the_table() {
        let opening = Arc::new(Opening::default());
        let held: Vec<Order> = (0..MAX_OPENING + 10)
            .map(|i| opening.order(&request(Method::GET, Some(&format!("s{i}")))))
            .collect();
        assert_eq!(opening.lock().len(), MAX_OPENING);
        assert!(held.last().is_some_and(|o| o.ticket.is_none()));
        drop(held);
        assert!(opening.lock().is_empty());
        // Sessions that begin and never go on fill the table only until
        // they expire.
        for i in 0..MAX_OPENING + 10 {
            let post = opening.order(&request(Method::POST, None));
            post.ticket
                .unwrap()
                .answered(&answer(200, Some(&format!("i{i}"))));
        }
        assert_eq!(opening.lock().len(), MAX_OPENING);
        tokio::time::advance(SETUP_WAIT).await;
        set_up(&opening, "late");
        assert_eq!(opening.lock().len(), 1);
    }
}
