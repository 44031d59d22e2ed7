//! A real HTTP server on 127.0.0.1 for end-to-end tests.

use std::net::SocketAddr;

use axum::Router;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// An axum router served on an ephemeral loopback port, over HTTP/1.1 and
/// HTTP/2 with prior knowledge (h2c) alike; stops when dropped.
pub struct TestServer {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl TestServer {
    /// Binds 127.0.0.1 on a free port and serves `router` in the background.
    pub async fn spawn(router: Router) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.expect("serve");
        });
        TestServer { addr, task }
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// An absolute URL for `path_and_query` on this server.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{}", self.addr, path_and_query)
    }

    /// GETs `path_and_query` with `headers` through [`raw_client`], so the
    /// bytes are the server's.
    ///
    /// # Panics
    ///
    /// When the request fails.
    pub async fn get(&self, path_and_query: &str, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut request = raw_client().get(self.url(path_and_query));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("GET")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A client that neither asks for nor undoes compression, so tests see the
/// bytes exactly as the server sent them.
pub fn raw_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_gzip()
        .build()
        .expect("build client")
}

/// [`raw_client`], but speaking HTTP/2 from the first byte (h2c with prior
/// knowledge): every request is HTTP/2 or fails.
pub fn raw_h2c_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_gzip()
        .http2_prior_knowledge()
        .build()
        .expect("build HTTP/2 client")
}

/// The value of the header `name`, when there is one.
///
/// # Panics
///
/// When the value is not text.
pub fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().expect("a text header").to_owned())
}

/// The response's `X-Token-Count`.
///
/// # Panics
///
/// When the header is absent or not a number.
pub fn token_count(response: &reqwest::Response) -> usize {
    header(response, "x-token-count")
        .expect("X-Token-Count")
        .parse()
        .expect("X-Token-Count is a number")
}

/// A response as the layer tests read it: status, the headers the layer
/// sets, and the body.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// `Content-Type`, empty when absent.
    pub content_type: String,
    /// `X-Token-Count`.
    pub token_count: Option<String>,
    /// The first `Vary`.
    pub vary: Option<String>,
    /// The body as text.
    pub body: String,
}

impl Answer {
    /// Whether the body is TOON.
    pub fn is_toon(&self) -> bool {
        self.content_type.starts_with("text/toon")
    }
}

/// Sends `request` and reads its [`Answer`].
pub async fn answer(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("request");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().expect("a text header").to_owned())
    };
    Answer {
        status: response.status().as_u16(),
        content_type: header("content-type").unwrap_or_default(),
        token_count: header("x-token-count"),
        vary: header("vary"),
        body: response.text().await.expect("body"),
    }
}

/// The status of a raw HTTP/1.1 answer, from its status line.
///
/// ```
/// assert_eq!(terse_tests::server::status_of("HTTP/1.1 400 Bad Request\r\n\r\n"), 400);
/// ```
pub fn status_of(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"))
}

/// The body of a raw HTTP/1.1 answer (not chunked), parsed as JSON.
///
/// ```
/// let answer = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}";
/// assert_eq!(terse_tests::server::body_of(answer), serde_json::json!({}));
/// ```
pub fn body_of(answer: &str) -> serde_json::Value {
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    serde_json::from_str(body).unwrap_or_else(|err| panic!("not JSON ({err}): {answer:?}"))
}

/// POSTs the JSON-RPC `message` to the MCP endpoint at `path` of `server`
/// as an MCP client does (accepting JSON or an event stream), and returns
/// the answer's text.
///
/// # Panics
///
/// When the request fails or the answer is not a 200.
pub async fn post_mcp(server: &TestServer, path: &str, message: &serde_json::Value) -> String {
    let response = raw_client()
        .post(server.url(path))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string())
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), 200);
    response.text().await.expect("body")
}
