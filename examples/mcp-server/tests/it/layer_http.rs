//! The MCP layer through real servers on loopback, with reqwest: the rmcp
//! server of this example (sessions, GET streams, DELETE, event ids), and
//! hand-made endpoints for every answer a server may give (errors,
//! notifications, other methods, odd and hostile bodies).

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::routing::post;
use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client};
use tower_terse::Format;
use tower_terse::mcp::{McpLayer, McpTool};

const ACCEPT: &str = "application/json, text/event-stream";
const VERSION: &str = "2025-06-18";

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

fn call(id: Value, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        .to_string()
}

/// One answer, read whole.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

/// A session with the example server (or any MCP endpoint at `/mcp`).
struct Session {
    url: String,
    client: reqwest::Client,
    id: Option<String>,
}

impl Session {
    fn new(server: &TestServer, query: &str) -> Session {
        Session {
            url: server.url(&format!("/mcp{query}")),
            client: raw_client(),
            id: None,
        }
    }

    async fn open(server: &TestServer, query: &str) -> Session {
        let mut session = Session::new(server, query);
        let answer = session.post(&initialize(), None).await;
        assert_eq!(answer.status, 200);
        session.id = answer
            .headers
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
        assert_eq!(session.post(&done, None).await.status, 202);
        session
    }

    fn request(&self, method: reqwest::Method, prefer: Option<&str>) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .request(method, &self.url)
            .header("accept", ACCEPT)
            .header("mcp-protocol-version", VERSION);
        if let Some(id) = &self.id {
            request = request.header("mcp-session-id", id);
        }
        if let Some(prefer) = prefer {
            request = request.header("x-prefer-format", prefer);
        }
        request
    }

    async fn post(&self, body: &str, prefer: Option<&str>) -> Answer {
        let response = self
            .request(reqwest::Method::POST, prefer)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .expect("send");
        read(response).await
    }
}

async fn read(response: reqwest::Response) -> Answer {
    Answer {
        status: response.status(),
        headers: response.headers().clone(),
        body: response.text().await.expect("body"),
    }
}

/// The JSON-RPC messages of an answer, JSON or an event stream.
fn messages(answer: &Answer) -> Vec<Value> {
    if answer.headers["content-type"] == "application/json" {
        return vec![serde_json::from_str(&answer.body).unwrap()];
    }
    answer
        .body
        .split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .collect();
            (!data.is_empty() && !data.concat().is_empty())
                .then(|| serde_json::from_str(&data.join("\n")).unwrap())
        })
        .collect()
}

/// Every line of an event stream but its data lines.
fn fields(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|line| !line.starts_with("data:"))
        .collect()
}

#[tokio::test]
async fn the_rmcp_server_answers_toon_over_event_streams_and_json() {
    for json_response in [false, true] {
        let plain = TestServer::spawn(mcp_server::without_layer(json_response)).await;
        let layered = TestServer::spawn(mcp_server::app(json_response)).await;
        let own = Session::open(&plain, "").await;
        let through = Session::open(&layered, "").await;
        assert_eq!(own.id.is_some(), !json_response);
        assert_eq!(through.id.is_some(), !json_response);
        let weather = call(
            json!(2),
            "weather_forecast",
            json!({"city": "Oslo", "days": 3}),
        );
        let own_answer = own.post(&weather, None).await;
        let plain_answer = through.post(&weather, Some("json")).await;
        // JSON asked: the server's bytes, headers but the session's alike.
        assert_eq!(plain_answer.body, own_answer.body);
        assert_eq!(
            plain_answer.headers.get("content-type"),
            own_answer.headers.get("content-type")
        );
        assert_eq!(
            plain_answer.headers.get("content-length"),
            own_answer.headers.get("content-length")
        );

        let toon = through.post(&weather, Some("toon")).await;
        let own_answer = own.post(&weather, None).await;
        assert_eq!(toon.status, 200);
        assert_eq!(
            toon.headers["content-type"],
            own_answer.headers["content-type"]
        );
        // `id:`, `retry:` and the priming event are kept, in place.
        if !json_response {
            assert_eq!(fields(&toon.body), fields(&own_answer.body));
        }
        let [own_message] = &messages(&own_answer)[..] else {
            panic!("{}", own_answer.body)
        };
        let [message] = &messages(&toon)[..] else {
            panic!("{}", toon.body)
        };
        let mut rest = message.clone();
        rest["result"]["content"][0]["text"] = own_message["result"]["content"][0]["text"].clone();
        assert_eq!(&rest, own_message);
        let text = message["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("city: Oslo\nunits: metric\ndays[3]{"),
            "{text}"
        );
        assert_eq!(
            terse_toon::decode(text, &Default::default()).unwrap(),
            own_message["result"]["structuredContent"]
        );
        // An error result passes.
        let missing = call(json!("x"), "get_event", json!({"id": "nope"}));
        assert_eq!(
            through.post(&missing, Some("toon")).await.body,
            own.post(&missing, None).await.body
        );
        // Other methods pass.
        let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).to_string();
        assert_eq!(
            through.post(&list, Some("toon")).await.body,
            own.post(&list, None).await.body
        );
        // A JSON-RPC error (an unknown tool) passes.
        let unknown = call(json!(6), "no_such_tool", json!({}));
        let error = through.post(&unknown, Some("toon")).await;
        assert_eq!(error.body, own.post(&unknown, None).await.body);
        assert!(messages(&error)[0].get("error").is_some(), "{}", error.body);
    }
}

#[tokio::test]
async fn sessions_get_streams_last_event_id_and_delete_pass_through() {
    let plain = TestServer::spawn(mcp_server::without_layer(false)).await;
    let layered = TestServer::spawn(mcp_server::app(false)).await;
    for server in [&plain, &layered] {
        let session = Session::open(server, "").await;
        assert!(session.id.is_some());
        // A GET stream, resumed or not, streams as the server sends it.
        for last_event_id in [None, Some("0/0")] {
            let mut get = session.request(reqwest::Method::GET, Some("toon"));
            if let Some(id) = last_event_id {
                get = get.header("last-event-id", id);
            }
            let response = get
                .header("accept", "text/event-stream")
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(response.headers()["content-type"], "text/event-stream");
            assert!(response.headers().get("content-length").is_none());
        }
        let delete = session
            .request(reqwest::Method::DELETE, Some("toon"))
            .send()
            .await
            .unwrap();
        let status = delete.status();
        let gone = session
            .post(
                &call(json!(9), "weather_forecast", json!({"city": "Oslo"})),
                Some("toon"),
            )
            .await;
        assert_eq!(
            (status.is_success(), gone.status),
            (true, StatusCode::NOT_FOUND)
        );
    }
}

/// A hand-made MCP endpoint that answers every POST with `content_type` and
/// `body`, after reading the request whole.
fn endpoint(
    layer: McpLayer,
    content_type: &'static str,
    body: impl Fn() -> Body + Clone + Send + Sync + 'static,
) -> Router {
    Router::new()
        .route(
            "/mcp",
            post(move |request: axum::body::Bytes| {
                let body = body.clone();
                async move {
                    let _ = request;
                    http::Response::builder()
                        .header("content-type", content_type)
                        .header("mcp-session-id", "s-1")
                        .body(body())
                        .unwrap()
                }
            })
            .get(|| async { "a GET" }),
        )
        .layer(layer)
}

fn users() -> String {
    json!({"users": [
        {"id": 1, "name": "Ada", "role": "admin"},
        {"id": 2, "name": "Linus", "role": "member"},
        {"id": 3, "name": "Grace", "role": "member"},
    ]})
    .to_string()
}

const USERS_TOON: &str =
    "users[3]{id,name,role}:\n  1,Ada,admin\n  2,Linus,member\n  3,Grace,member";

fn tool_result(id: Value, content: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": content, "structuredContent": {"users": 3}}}).to_string()
}

async fn through(router: Router, request: &str, prefer: Option<&str>) -> Answer {
    let server = TestServer::spawn(router).await;
    Session::new(&server, "").post(request, prefer).await
}

#[tokio::test]
async fn only_json_text_blocks_of_tool_results_change() {
    let answer = tool_result(
        json!(3),
        json!([
            {"type": "text", "text": users()},
            {"type": "text", "text": "Three users."},
            {"type": "text", "text": "[1, 2"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": users(), "annotations": {"priority": 1}},
        ]),
    );
    let expected = answer.replace(
        &Value::String(users()).to_string(),
        &Value::String(USERS_TOON.to_owned()).to_string(),
    );
    for (content_type, body, rewritten) in [
        ("application/json", answer.clone(), expected.clone()),
        (
            "text/event-stream",
            format!("id: 7\ndata: {answer}\n\n"),
            format!("id: 7\ndata: {expected}\n\n"),
        ),
    ] {
        let router = endpoint(McpLayer::new(), content_type, {
            let body = body.clone();
            move || Body::from(body.clone())
        });
        let request = call(json!(3), "list_users", json!({}));
        let got = through(router.clone(), &request, Some("toon")).await;
        assert_eq!(got.body, rewritten, "{content_type}");
        assert_eq!(got.headers["mcp-session-id"], "s-1");
        let got = through(router.clone(), &request, Some("json")).await;
        assert_eq!(got.body, body, "{content_type}");
        // Nothing asked: TOON where cheaper, the default.
        let got = through(router.clone(), &request, None).await;
        assert_eq!(got.body, rewritten, "{content_type}");
        // Another id, a notification, another method: untouched.
        for other in [
            call(json!(4), "list_users", json!({})),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}).to_string(),
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "x"}}).to_string(),
        ] {
            assert_eq!(through(router.clone(), &other, Some("toon")).await.body, body, "{other}");
        }
    }
}

#[tokio::test]
async fn errors_pass_untouched() {
    let is_error = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": users()}], "isError": true}}).to_string();
    let rpc_error = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "boom", "data": {"content": [{"type": "text", "text": users()}]}}}).to_string();
    let request = call(json!(3), "list_users", json!({}));
    for body in [is_error, rpc_error] {
        for content_type in ["application/json", "text/event-stream"] {
            let sent = if content_type == "application/json" {
                body.clone()
            } else {
                format!("data: {body}\n\n")
            };
            let router = endpoint(
                McpLayer::new().default_format(Format::Toon),
                content_type,
                {
                    let sent = sent.clone();
                    move || Body::from(sent.clone())
                },
            );
            assert_eq!(through(router, &request, None).await.body, sent);
        }
    }
    // A failing server's status and body pass too.
    let router = Router::new()
        .route(
            "/mcp",
            post(|| async {
                (
                    StatusCode::BAD_REQUEST,
                    [("content-type", "application/json")],
                    tool_result(json!(3), json!([{"type": "text", "text": users()}])),
                )
            }),
        )
        .layer(McpLayer::new());
    let got = through(router, &request, Some("toon")).await;
    assert_eq!(got.status, 400);
    assert!(got.body.contains("\\\"users\\\""));
}

#[tokio::test]
async fn compact_lines_with_a_registered_tool_and_the_query() {
    let layer = McpLayer::new().tool(
        "list_users",
        McpTool::from_template("users", "user", "{name} ({role})").unwrap(),
    );
    let answer = tool_result(json!("r-1"), json!([{"type": "text", "text": users()}]));
    let router = endpoint(layer, "application/json", move || {
        Body::from(answer.clone())
    });
    let server = TestServer::spawn(router).await;
    let request = call(json!("r-1"), "list_users", json!({}));
    let got = Session::new(&server, "?format=compact")
        .post(&request, None)
        .await;
    let message: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(
        message["result"]["content"][0]["text"],
        "3 users\n1: Ada (admin)\n2: Linus (member)\n3: Grace (member)"
    );
    assert_eq!(message["result"]["structuredContent"], json!({"users": 3}));
    assert_eq!(message["id"], "r-1");
    let got = Session::new(&server, "")
        .post(&request, Some("compact"))
        .await;
    assert_eq!(serde_json::from_str::<Value>(&got.body).unwrap(), message);
    // An unknown format: the server's own answer.
    let got = Session::new(&server, "?format=csv")
        .post(&request, None)
        .await;
    assert!(got.body.contains("\\\"users\\\""));
}

#[tokio::test]
async fn an_endless_event_stream_is_rewritten_as_it_streams() {
    let answer = tool_result(json!(3), json!([{"type": "text", "text": users()}]));
    let router = endpoint(McpLayer::new(), "text/event-stream", move || {
        let event = Bytes::from(format!("id: 1\ndata: {answer}\n\n"));
        let ping = Bytes::from_static(b": ping\n\n");
        let stream = futures_util::stream::once(async move { Ok::<_, Infallible>(event) }).chain(
            futures_util::stream::repeat(ping).then(|ping| async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                Ok(ping)
            }),
        );
        Body::from_stream(stream)
    });
    let server = TestServer::spawn(router).await;
    let response = Session::new(&server, "")
        .request(reqwest::Method::POST, Some("toon"))
        .body(call(json!(3), "list_users", json!({})))
        .send()
        .await
        .unwrap();
    let mut stream = response.bytes_stream();
    let mut seen = Vec::new();
    let read = async {
        while let Some(chunk) = stream.next().await {
            seen.extend_from_slice(&chunk.unwrap());
            if seen.windows(7).filter(|w| w == b": ping\n").count() >= 3 {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("events arrive while the stream goes on");
    let text = String::from_utf8(seen).unwrap();
    assert!(text.starts_with("id: 1\ndata: {"), "{text}");
    assert!(
        text.contains(&Value::String(USERS_TOON.to_owned()).to_string()),
        "{text}"
    );
}

#[tokio::test]
async fn hostile_bodies_pass_or_are_refused_by_the_server_never_broken() {
    let request = call(json!(3), "list_users", json!({}));
    let small = McpLayer::new()
        .max_message_bytes(4096)
        .max_request_bytes(1024);
    let huge_text = json!([{"type": "text", "text": format!("[{}]", vec!["1"; 5000].join(","))}]);
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        // An event past the limit, then one within it.
        (
            "text/event-stream",
            format!(
                "data: {}\n\ndata: {}\n\n",
                tool_result(json!(3), huge_text.clone()),
                tool_result(json!(3), json!([{"type": "text", "text": users()}]))
            )
            .into_bytes(),
        ),
        (
            "application/json",
            tool_result(json!(3), huge_text).into_bytes(),
        ),
        // Malformed JSON-RPC, deep nesting, invalid UTF-8.
        (
            "application/json",
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
                .to_vec(),
        ),
        ("application/json", deep.clone().into_bytes()),
        (
            "text/event-stream",
            format!("data: {deep}\n\n").into_bytes(),
        ),
        (
            "text/event-stream",
            b"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\xff\xfe}\n\n".to_vec(),
        ),
        (
            "application/json",
            tool_result(json!(3), json!([{"type": "text", "text": deep}])).into_bytes(),
        ),
        (
            "text/event-stream",
            b"\r\r\n\n\r\ndata\ndata:\n\n:\n".to_vec(),
        ),
    ];
    for (index, (content_type, body)) in cases.into_iter().enumerate() {
        let router = endpoint(small.clone(), content_type, {
            let body = body.clone();
            move || Body::from(body.clone())
        });
        let server = TestServer::spawn(router).await;
        let response = Session::new(&server, "")
            .request(reqwest::Method::POST, Some("toon"))
            .body(request.clone())
            .send()
            .await
            .unwrap();
        let got = response.bytes().await.unwrap();
        if index == 0 {
            // The big event unchanged; the small one after it rewritten.
            let text = String::from_utf8(got.to_vec()).unwrap();
            let (big, small) = text.split_once("\n\n").unwrap();
            assert_eq!(
                format!("{big}\n\n"),
                String::from_utf8(body[..big.len() + 2].to_vec()).unwrap()
            );
            assert!(small.contains("users[3]"), "{small}");
            continue;
        }
        assert_eq!(got, body, "case {index}");
    }
    // A request past the limit is served, its answer not rewritten.
    let answer = tool_result(json!(3), json!([{"type": "text", "text": users()}]));
    let router = endpoint(small, "application/json", {
        let answer = answer.clone();
        move || Body::from(answer.clone())
    });
    let padded = call(json!(3), "list_users", json!({"pad": "x".repeat(2000)}));
    assert_eq!(
        through(router.clone(), &padded, Some("toon")).await.body,
        answer
    );
    let batch = format!(
        "[{request},{}]",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    assert_ne!(
        through(router.clone(), &batch, Some("toon")).await.body,
        answer
    );
    for bad in [
        "[",
        "\u{0}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    ] {
        assert_eq!(
            through(router.clone(), bad, Some("toon")).await.body,
            answer
        );
    }
    // GET is the endpoint's own.
    let server = TestServer::spawn(router).await;
    let get = Session::new(&server, "")
        .request(reqwest::Method::GET, Some("toon"))
        .send()
        .await
        .unwrap();
    assert_eq!(get.text().await.unwrap(), "a GET");
}
