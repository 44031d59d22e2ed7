//! A session's call that reaches the gateway before the standalone GET
//! stream its client opened waits for that stream, so that the request the
//! server sends on it while handling the call (sampling, elicitation) is
//! not lost.
//!
//! MCP clients open the GET stream when their `notifications/initialized`
//! is accepted and POST their next call at once; the gateway serves the
//! two connections in parallel, and the POST can come first. Here the
//! client sends the call first on purpose, and the GET only once the call
//! has reached the server (straight) or has reached it or been held for a
//! while (through the gateway): a server that got the call first has no
//! stream for its request and says so.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use terse_tests::python::spawn_gateway;
use terse_tests::server::{TestServer, raw_client};
use tokio::sync::{Notify, mpsc};

const SESSION: &str = "mcp-session-id";

/// An MCP server that sends a request to the client on the session's
/// standalone stream while handling a call, and drops it when that stream
/// is not open (as the MCP SDKs' servers do).
#[derive(Default)]
struct Server {
    /// What reached the server, in order.
    arrived: Mutex<Vec<&'static str>>,
    /// The standalone stream, once opened.
    stream: Mutex<Option<mpsc::UnboundedSender<Result<Bytes, std::io::Error>>>>,
    /// A call arrived.
    called: Notify,
}

async fn on_post(State(server): State<Arc<Server>>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).expect("a JSON-RPC message");
    match message["method"].as_str() {
        Some("initialize") => {
            server.arrived.lock().unwrap().push("initialize");
            let result = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "serverInfo": {"name": "order", "version": "1"}}});
            ([(SESSION, "s1")], axum::Json(result)).into_response()
        }
        Some("tools/call") => {
            server.arrived.lock().unwrap().push("call");
            let request = json!({"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 1}});
            let sent = server
                .stream
                .lock()
                .unwrap()
                .as_ref()
                .is_some_and(|stream| {
                    let event = format!("event: message\ndata: {request}\n\n");
                    stream.send(Ok(Bytes::from(event))).is_ok()
                });
            // Told only once the stream was looked for: a client that
            // opens it on hearing of the call must not win that look.
            server.called.notify_one();
            let text = if sent {
                "asked"
            } else {
                "no stream: request lost"
            };
            let result = json!({"jsonrpc": "2.0", "id": message["id"],
                "result": {"content": [{"type": "text", "text": text}]}});
            axum::Json(result).into_response()
        }
        _ => {
            server.arrived.lock().unwrap().push("notification");
            StatusCode::ACCEPTED.into_response()
        }
    }
}

async fn on_get(State(server): State<Arc<Server>>) -> Response {
    server.arrived.lock().unwrap().push("GET");
    let (sender, mut receiver) = mpsc::unbounded_channel();
    *server.stream.lock().unwrap() = Some(sender);
    let events = futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx));
    (
        [("content-type", "text/event-stream")],
        Body::from_stream(events),
    )
        .into_response()
}

async fn spawn_server() -> (TestServer, Arc<Server>) {
    let server = Arc::new(Server::default());
    let router = Router::new()
        .route("/mcp", post(on_post).get(on_get))
        .with_state(server.clone());
    (TestServer::spawn(router).await, server)
}

fn headers(session: Option<&str>, accept: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("accept", accept.parse().unwrap());
    headers.insert("content-type", "application/json".parse().unwrap());
    if let Some(session) = session {
        headers.insert(SESSION, session.parse().unwrap());
    }
    headers
}

const BOTH: &str = "application/json, text/event-stream";

/// Begins a session at `url`: `initialize`, then `notifications/initialized`.
async fn begin(client: &reqwest::Client, url: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"sampling": {}},
        "clientInfo": {"name": "t", "version": "1"}}});
    let response = client
        .post(url)
        .headers(headers(None, BOTH))
        .body(initialize.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let session = response.headers()[SESSION].to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = client
        .post(url)
        .headers(headers(Some(&session), BOTH))
        .body(initialized.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    session
}

/// Sends the call first, then, once the server has it (or, when `held`,
/// it has been held that long), opens the GET stream; gives the call's
/// text and the stream's first bytes (or none).
async fn call_before_get(
    url: &str,
    server: &Server,
    held: Option<Duration>,
) -> (String, Option<String>) {
    let client = raw_client();
    let session = begin(&client, url).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}});
    let calling = tokio::spawn(
        client
            .post(url)
            .headers(headers(Some(&session), BOTH))
            .body(call.to_string())
            .send(),
    );
    match held {
        // Not a measure: a pause far below the hold's bound of a second.
        Some(held) => {
            let _ = tokio::time::timeout(held, server.called.notified()).await;
        }
        None => server.called.notified().await,
    }
    let mut stream = client
        .get(url)
        .headers(headers(Some(&session), "text/event-stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let answer = calling.await.unwrap().unwrap().text().await.unwrap();
    let answer: Value = serde_json::from_str(&answer).expect("a JSON answer");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    // The stream holds the server's request if it was sent; the server is
    // dropped (closing the stream) otherwise.
    let first = if text == "asked" {
        let chunk = stream.chunk().await.unwrap().expect("an event");
        Some(String::from_utf8_lossy(&chunk).into_owned())
    } else {
        None
    };
    (text, first)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn straight_a_call_before_the_get_loses_the_servers_request() {
    let (upstream, server) = spawn_server().await;
    let (text, _) = call_before_get(&upstream.url("/mcp"), &server, None).await;
    assert_eq!(text, "no stream: request lost");
    assert_eq!(
        *server.arrived.lock().unwrap(),
        ["initialize", "notification", "call", "GET"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_gateway_a_call_before_the_get_waits_for_the_stream() {
    let (upstream, server) = spawn_server().await;
    let config = "[mcp]\npath = \"/mcp\"\n";
    let (gateway, _task) = spawn_gateway(config, &format!("http://{}", upstream.addr())).await;
    let (text, first) = call_before_get(
        &format!("{gateway}/mcp"),
        &server,
        Some(Duration::from_millis(200)),
    )
    .await;
    assert_eq!(text, "asked", "the server had the stream for its request");
    let first = first.expect("the request on the stream");
    assert!(
        first.contains("sampling/createMessage"),
        "the client gets the server's request on its stream: {first:?}"
    );
    assert_eq!(
        *server.arrived.lock().unwrap(),
        ["initialize", "notification", "GET", "call"]
    );
}
