//! Request bodies sent as TOON, through the layer on a real server: the
//! handler (axum's `Json` and raw `Bytes` extractors, unchanged) gets the
//! JSON the reference decoder reads from the TOON, labelled and measured as
//! JSON; malformed, oversized and compressed TOON is refused before the
//! handler; every other request reaches it byte for byte.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use terse_tests::reference::Reference;
use terse_tests::server::{TestServer, raw_client};
use tower_terse::TerseLayer;
use tower_terse::settings::RouteSettings;

/// The bodies agents write: tables, nesting, bare arrays, quoting, unicode,
/// numbers and null.
const CASES: [(&str, &str); 8] = [
    (
        "tabular array",
        "tasks[3]{title,project,done,estimate}:\n  Write the report,apollo,false,3\n  Review PR 42,zeus,true,0.5\n  \"Plan, then ship\",apollo,false,null",
    ),
    (
        "nested objects",
        "task:\n  title: Release\n  owner:\n    name: Ada\n    team:\n      name: core\n      size: 7\n  tags[2]: ops,urgent",
    ),
    ("bare array of numbers", "[5]: 1,-2,3.25,1e3,-0"),
    ("bare array of objects", "[2]{id,name}:\n  1,Ada\n  2,Linus"),
    (
        "quoted strings",
        "a: \"true\"\nb: \"42\"\nc: \"with: colon\"\nd: \"line\\nbreak \\\"quoted\\\" \\\\ slash\"\ne: \"\"\nf: \" padded \"",
    ),
    (
        "unicode",
        "title: Cena familiar 🍝\ncity: Zürich\nnote: \"日本語, 中文\"\nemoji[3]: 💪,🎉,✅",
    ),
    (
        "numbers and null",
        "int: 1234567890123\nneg: -17\nfloat: 0.1\nexp: 2.5e-7\nwhole: 1.0\nnothing: null\nyes: true",
    ),
    (
        "list items with a table",
        "orders[2]:\n  - id: 1\n    lines[2]{sku,qty}:\n      A1,2\n      B7,1\n  - id: 2\n    lines[0]:",
    ),
];

/// How many times a handler ran.
#[derive(Clone, Default)]
struct Calls(Arc<AtomicUsize>);

/// The handler's view of a request: the JSON it parsed, and the headers and
/// length it was given.
async fn echo(
    State(calls): State<Calls>,
    headers: HeaderMap,
    Json(value): Json<Value>,
) -> Json<Value> {
    calls.0.fetch_add(1, Ordering::SeqCst);
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
    Json(json!({
        "value": value,
        "content_type": header("content-type"),
        "content_length": header("content-length"),
        "transfer_encoding": header("transfer-encoding"),
    }))
}

/// The raw bytes and type a handler got, for requests the layer must not touch.
async fn raw(State(calls): State<Calls>, headers: HeaderMap, body: Bytes) -> Json<Value> {
    calls.0.fetch_add(1, Ordering::SeqCst);
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
    Json(json!({
        "bytes": body.iter().map(|&b| u32::from(b)).collect::<Vec<_>>(),
        "content_type": header("content-type"),
        "content_length": header("content-length"),
        "transfer_encoding": header("transfer-encoding"),
    }))
}

async fn serve(layer: TerseLayer) -> (TestServer, Calls) {
    let calls = Calls::default();
    let app = Router::new()
        .route("/echo", post(echo))
        .route("/raw", post(raw).get(raw))
        .route("/off/raw", post(raw))
        .with_state(calls.clone())
        .layer(layer);
    (TestServer::spawn(app).await, calls)
}

async fn post_body(
    server: &TestServer,
    path: &str,
    content_type: &str,
    body: impl Into<reqwest::Body>,
) -> (u16, Value) {
    let response = raw_client()
        .post(server.url(path))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .expect("POST");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("{err}: {text}")),
    )
}

/// What the handler got for `toon`, checked to be labelled and measured as JSON.
async fn echoed(server: &TestServer, content_type: &str, toon: &str) -> Value {
    let (status, seen) = post_body(server, "/echo", content_type, toon.to_owned()).await;
    assert_eq!(status, 200, "{content_type}: {seen}");
    assert_eq!(seen["content_type"], "application/json", "{seen}");
    assert_eq!(seen["transfer_encoding"], Value::Null, "{seen}");
    let length: usize = seen["content_length"]
        .as_str()
        .expect("a length")
        .parse()
        .unwrap();
    assert_eq!(length, seen["value"].to_string().len(), "{seen}");
    seen["value"].clone()
}

#[tokio::test]
async fn toon_bodies_reach_the_handler_as_json() {
    let (server, _) = serve(TerseLayer::new()).await;
    for (name, toon) in CASES {
        let ours = terse_toon::decode(toon, &Default::default())
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        for content_type in [
            "text/toon",
            "application/toon; charset=utf-8",
            "Text/TOON;Charset=UTF-8",
        ] {
            assert_eq!(
                echoed(&server, content_type, toon).await,
                ours,
                "{name}: {content_type}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node/npm; run with --include-ignored (.ci/run does)"]
async fn the_handler_gets_what_the_reference_decoder_reads() {
    let Some(reference) = Reference::install("toon-requests") else {
        return;
    };
    let texts: Vec<&str> = CASES.iter().map(|(_, toon)| *toon).collect();
    let expected = tokio::task::spawn_blocking(move || reference.decode_all(&texts))
        .await
        .unwrap();
    let (server, _) = serve(TerseLayer::new()).await;
    for ((name, toon), expected) in CASES.iter().zip(expected) {
        let got = echoed(&server, "text/toon", toon).await;
        let difference = terse_tests::values::difference(&got, &expected);
        assert!(difference.is_none(), "{name}: {difference:?}");
    }
}

#[tokio::test]
async fn malformed_toon_is_a_400_with_line_and_column_and_no_call() {
    let (server, calls) = serve(TerseLayer::new()).await;
    for (toon, line) in [
        ("a: 1\nusers[2]{id,name}:\n  1,Ada", 2),
        ("items[3]: a,b", 1),
        ("a: 1\n  b: 2", 2),
        ("title: \"unterminated", 1),
    ] {
        let (status, envelope) = post_body(&server, "/echo", "text/toon", toon).await;
        assert_eq!(status, 400, "{toon}: {envelope}");
        assert_eq!(envelope["error"]["code"], "invalid_toon", "{envelope}");
        let message = envelope["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("line {line}, column ")),
            "{toon}: {message}"
        );
        assert!(
            envelope["error"]["hint"]
                .as_str()
                .unwrap()
                .contains("terse encode")
        );
    }
    let (status, _) = post_body(&server, "/echo", "text/toon", vec![b'a', b':', b' ', 0xff]).await;
    assert_eq!(status, 400, "invalid UTF-8");
    assert_eq!(calls.0.load(Ordering::SeqCst), 0, "the handler never ran");
}

#[tokio::test]
async fn a_toon_body_over_the_limit_is_a_413_and_no_call() {
    let (server, calls) = serve(TerseLayer::new().max_body_bytes(64)).await;
    let big = format!("[40]: {}", vec!["x"; 40].join(","));
    assert!(big.len() > 64);
    let (status, envelope) = post_body(&server, "/echo", "text/toon", big.clone()).await;
    assert_eq!(status, 413, "{envelope}");
    assert_eq!(envelope["error"]["code"], "toon_request_too_large");
    // Chunked, without a declared length: found while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        big.as_bytes().chunks(10).map(|c| Ok(c.to_vec())).collect();
    let stream = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let (status, _) = post_body(&server, "/echo", "text/toon", stream).await;
    assert_eq!(status, 413);
    // A table whose rows repeat a long key: small TOON, too much JSON.
    let (server, calls_small) = serve(TerseLayer::new().max_output_bytes(2000)).await;
    let bomb = format!("t[100]{{{}}}:\n{}", "k".repeat(100), "  x\n".repeat(100));
    let (status, envelope) = post_body(&server, "/echo", "text/toon", bomb).await;
    assert_eq!(status, 413, "{envelope}");
    assert_eq!(
        calls.0.load(Ordering::SeqCst) + calls_small.0.load(Ordering::SeqCst),
        0
    );
}

#[tokio::test]
async fn a_compressed_toon_body_is_a_415() {
    let (server, calls) = serve(TerseLayer::new()).await;
    let response = raw_client()
        .post(server.url("/echo"))
        .header("content-type", "text/toon")
        .header("content-encoding", "gzip")
        .body(vec![0x1f, 0x8b, 0, 0])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    let envelope: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(envelope["error"]["code"], "toon_request_encoded");
    assert_eq!(calls.0.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn other_requests_reach_the_handler_byte_for_byte() {
    let (server, _) = serve(TerseLayer::new()).await;
    let bodies: [(&str, Vec<u8>); 4] = [
        ("application/json", br#"{"a": 1,   "b":[1,2]}"#.to_vec()),
        ("text/plain", b"a: 1\nb[2]: x,y".to_vec()),
        ("application/octet-stream", vec![0, 159, 146, 150, 255]),
        ("text/toonish", b"a: 1".to_vec()),
    ];
    for (content_type, body) in bodies {
        let (status, seen) = post_body(&server, "/raw", content_type, body.clone()).await;
        assert_eq!(status, 200);
        let got: Vec<u8> = seen["bytes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap() as u8)
            .collect();
        assert_eq!(got, body, "{content_type}");
        assert_eq!(seen["content_type"], content_type);
        assert_eq!(seen["content_length"], body.len().to_string());
    }
    // A chunked JSON body stays chunked: nothing was read ahead of the handler.
    let chunks: Vec<Result<&'static [u8], std::io::Error>> = vec![Ok(b"[1,"), Ok(b"2]")];
    let stream = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let (_, seen) = post_body(&server, "/raw", "application/json", stream).await;
    assert_eq!(seen["transfer_encoding"], "chunked", "{seen}");
    assert_eq!(seen["content_length"], Value::Null);
    assert_eq!(seen["bytes"], json!(b"[1,2]".to_vec()));
}

#[tokio::test]
async fn requests_without_a_body_are_untouched() {
    let (server, calls) = serve(TerseLayer::new()).await;
    let response = raw_client()
        .get(server.url("/raw"))
        .header("content-type", "text/toon")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let seen: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(seen["content_type"], "text/toon");
    assert_eq!(seen["bytes"], json!([]));
    let (status, seen) = post_body(&server, "/raw", "text/toon", Vec::new()).await;
    assert_eq!(status, 200);
    assert_eq!(
        seen["content_type"], "text/toon",
        "an empty body is not decoded"
    );
    assert_eq!(calls.0.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn decoding_can_be_turned_off_for_the_layer_or_a_route() {
    let toon = "a: 1";
    let (server, _) = serve(TerseLayer::new().decode_toon_requests(false)).await;
    let (_, seen) = post_body(&server, "/raw", "text/toon", toon).await;
    assert_eq!(seen["content_type"], "text/toon");
    assert_eq!(seen["bytes"], json!(toon.as_bytes()));

    let layer =
        TerseLayer::new().route("/off/raw", RouteSettings::new().decode_toon_requests(false));
    let (server, _) = serve(layer).await;
    let (_, seen) = post_body(&server, "/off/raw", "text/toon", toon).await;
    assert_eq!(seen["content_type"], "text/toon", "the route keeps TOON");
    let (_, seen) = post_body(&server, "/raw", "text/toon", toon).await;
    assert_eq!(
        seen["content_type"], "application/json",
        "other routes decode"
    );
    assert_eq!(seen["bytes"], json!(br#"{"a":1}"#.to_vec()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_toon_body_is_decoded_off_the_workers_all_the_same() {
    // Past the offload threshold: decoded where the runtime lets it block.
    let (server, _) = serve(TerseLayer::new().offload_threshold(0)).await;
    let rows: Vec<String> = (0..2000)
        .map(|i| format!("  {i},Task {i},{}", i % 2 == 0))
        .collect();
    let toon = format!("tasks[2000]{{id,title,done}}:\n{}", rows.join("\n"));
    let expected = terse_toon::decode(&toon, &Default::default()).unwrap();
    assert_eq!(echoed(&server, "text/toon", &toon).await, expected);
}
