//! Fuzz target: arbitrary JSON-RPC requests and answers through the MCP
//! layer.
//!
//! The server reads the request whole, then answers with the input's bytes
//! as JSON or as an event stream, in frames. Whatever the bytes, the layer
//! must finish, and send either them unchanged or the same messages with
//! only the text of `tools/call` result blocks changed (and, in an event
//! stream, every line but the data lines as it was).
//!
//! Layout: byte 0 picks the content type, the format asked and the limits;
//! byte 1 sizes the frames; then the request body up to the first NUL (a
//! `tools/call` with id 3 when there is none), then the answer.

#![no_main]

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::sync::OnceLock;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower_terse::mcp::{McpLayer, McpRequestBody, McpTool};
use terse_fuzz::{Frames, block_on, collect, event_resource};
use tower_layer::Layer;
use tower_service::Service;

const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_events"}}"#;

/// The layers: roomy, and with limits small enough for the fuzzer to pass.
fn layers() -> &'static [McpLayer; 2] {
    static LAYERS: OnceLock<[McpLayer; 2]> = OnceLock::new();
    LAYERS.get_or_init(|| {
        let base = McpLayer::new().tool("list_events", McpTool::new("data", event_resource()));
        [
            base.clone(),
            base.max_request_bytes(64).max_message_bytes(256).max_output_bytes(512),
        ]
    })
}

/// Reads the request whole, then answers with `answer`.
#[derive(Clone)]
struct Server {
    content_type: &'static str,
    answer: Vec<Bytes>,
}

impl Service<Request<McpRequestBody<Full<Bytes>>>> for Server {
    type Response = Response<Frames>;
    type Error = Infallible;
    type Future = Ready<Result<Response<Frames>, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<McpRequestBody<Full<Bytes>>>) -> Self::Future {
        let _ = block_on(request.into_body().collect());
        let mut response = Response::new(Frames::new(self.answer.clone(), false));
        response.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(self.content_type),
        );
        ready(Ok(response))
    }
}

/// A message (or batch) with the text of every content block blanked.
fn without_texts(mut value: Value) -> Value {
    let blank = |message: &mut Value| {
        if let Some(blocks) = message.pointer_mut("/result/content").and_then(Value::as_array_mut) {
            for block in blocks {
                if let Some(text) = block.get_mut("text") {
                    *text = Value::Null;
                }
            }
        }
    };
    match &mut value {
        Value::Array(batch) => batch.iter_mut().for_each(blank),
        message => blank(message),
    }
    value
}

/// The lines of an event stream that are not data lines.
fn fields(stream: &str) -> Vec<&str> {
    stream
        .split("\r\n")
        .flat_map(|line| line.split(['\r', '\n']))
        .filter(|line| !line.starts_with("data"))
        .collect()
}

fuzz_target!(|input: &[u8]| {
    let [choice, size, rest @ ..] = input else {
        return;
    };
    let (request, answer) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (CALL, rest),
    };
    let events = choice & 1 == 1;
    let format = ["toon", "compact", "json", "csv"][usize::from(choice >> 1 & 3)];
    let layer = &layers()[usize::from(choice >> 3 & 1)];
    let step = usize::from(*size).max(1);
    let answer = Bytes::copy_from_slice(answer);
    let frames = (0..answer.len()).step_by(step).map(|at| answer.slice(at..(at + step).min(answer.len())));
    let server = Server {
        content_type: if events { "text/event-stream" } else { "application/json" },
        answer: frames.collect(),
    };
    let request = Request::post("/mcp")
        .header("x-prefer-format", format)
        .body(Full::new(Bytes::copy_from_slice(request)))
        .expect("a valid request");
    let response = block_on(layer.layer(server).call(request)).expect("never an error");
    let (_, sent) = collect(response);
    if sent == answer {
        return;
    }
    assert!(matches!(format, "toon" | "compact"), "changed without a format asked");
    if events {
        // Events that are not UTF-8 pass as they are, beside rewritten ones.
        let (sent, answer) = (String::from_utf8_lossy(&sent), String::from_utf8_lossy(&answer));
        assert_eq!(fields(&sent), fields(&answer), "only data lines change");
    } else {
        let (sent, answer) = (
            std::str::from_utf8(&sent).expect("rewritten text is UTF-8"),
            std::str::from_utf8(&answer).expect("only UTF-8 is rewritten"),
        );
        let Ok(answer) = serde_json::from_str::<Value>(answer) else {
            // JSON a `Value` cannot hold (a number past the doubles,
            // `1e99999`) outside the text blocks goes out as written:
            // both are read for their syntax alone.
            serde_json::from_str::<&serde_json::value::RawValue>(answer)
                .expect("only JSON is rewritten");
            serde_json::from_str::<&serde_json::value::RawValue>(sent)
                .expect("a rewritten answer is JSON");
            return;
        };
        let sent: Value = serde_json::from_str(sent).expect("a rewritten answer is JSON");
        assert_eq!(without_texts(sent), without_texts(answer), "only texts change");
    }
});
