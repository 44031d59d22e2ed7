//! A realistic JSON list body and a service that answers it, shared by the
//! layer benches.

use std::convert::Infallible;

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use serde_json::json;
use tower::{Service, ServiceExt};
use tower_layer::Layer;
use tower_terse::{Terse, TerseLayer};

const TITLES: [&str; 4] = [
    "Standup",
    "Design review: onboarding",
    "Cena familiar",
    "Gym 💪",
];

/// A current-thread runtime with its timer: the layers' wait for a slot
/// of their `BlockingLimit` (a rewrite past `offload_threshold`) ends on
/// it, and panics without one.
pub fn timed_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime")
}

/// `{"data":[...],"meta":{...}}` with `records` calendar events.
pub fn list_body(records: usize) -> Bytes {
    let data: Vec<_> = (0..records)
        .map(|n| {
            json!({
                "id": format!("5f0c{n:04x}-8b1e-4c7a-9d2e-{:012x}", n * 7919),
                "title": TITLES[n % TITLES.len()],
                "start_at": format!("2026-03-{:02}T{:02}:00:00Z", 1 + n % 28, 8 + n % 10),
                "end_at": format!("2026-03-{:02}T{:02}:30:00Z", 1 + n % 28, 8 + n % 10),
                "location": if n % 3 == 0 { None } else { Some("Room 4.12") },
                "attendees": n % 9,
                "all_day": n % 5 == 0,
                "status": "confirmed",
            })
        })
        .collect();
    let body = json!({"data": data, "meta": {"total": records, "limit": records, "offset": 0}});
    Bytes::from(body.to_string())
}

/// The service [`handler`] makes: it answers its body as JSON to any
/// request (cloned cheaply, as the layer clones the service it wraps).
#[derive(Clone)]
pub struct Handler {
    body: Bytes,
}

impl<B> Service<Request<B>> for Handler {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response<Full<Bytes>>, Infallible>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: Request<B>) -> Self::Future {
        let response = Response::builder()
            .header(CONTENT_TYPE, "application/json")
            .header(CONTENT_LENGTH, self.body.len())
            .body(Full::new(self.body.clone()))
            .expect("valid response");
        std::future::ready(Ok(response))
    }
}

/// A handler that answers `body` as JSON.
pub fn handler(body: Bytes) -> Handler {
    Handler { body }
}

/// The layer around [`handler`], with the rewrite memo off: the handler
/// answers the same bytes every time, which the memo would answer from
/// memory, and the benches measure the rewrite itself.
pub fn layered(body: Bytes) -> Terse<Handler> {
    TerseLayer::new().rewrite_memo_bytes(0).layer(handler(body))
}

/// One request through `service`: headers and the whole body out.
pub async fn call<S, B>(service: &mut S, uri: &str) -> (http::response::Parts, Bytes)
where
    S: Service<Request<String>, Response = Response<B>, Error = Infallible>,
    B: http_body::Body,
    B::Error: std::fmt::Debug,
{
    let request = Request::get(uri)
        .body(String::new())
        .expect("valid request");
    let response = service
        .ready()
        .await
        .expect("always ready")
        .call(request)
        .await
        .expect("infallible");
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.expect("infallible").to_bytes();
    (parts, bytes)
}
