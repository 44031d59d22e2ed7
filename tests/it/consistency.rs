//! One body, one rendering: every corpus document served through the
//! gateway (`?format=toon`), the embedded layer, an MCP text block (through
//! the gateway's `[mcp]` and the embedded `McpLayer`) and
//! `tower_terse::format::render_json_with` comes out as the same bytes, with the
//! same TOON-or-JSON choice (each document stored and minified), under the default settings and under settings
//! that change the encoding and turn the smart fallback off. (`terse
//! encode` is held to `render_json_with` in crates/terse-bin/tests/cli.rs.)

use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use std::sync::Arc;
use terse_tests::corpus::{Document, documents};
use terse_tests::python::spawn_gateway;
use terse_tests::server::{TestServer, raw_client};
use tower_terse::mcp::McpLayer;
use tower_terse::{Format, Settings, TerseLayer};

type Docs = Arc<Vec<Document>>;

fn text_of(docs: &Docs, name: &str) -> String {
    docs.iter()
        .find(|doc| doc.name == name)
        .map(|doc| doc.text.clone())
        .unwrap_or_default()
}

/// `GET /docs/{name}`: the document's stored text as `application/json`.
async fn doc(
    State(docs): State<Docs>,
    Path(name): Path<String>,
) -> impl axum::response::IntoResponse {
    ([(CONTENT_TYPE, "application/json")], text_of(&docs, &name))
}

/// A `tools/call` of `get_doc` answered with the document as a text block,
/// as an MCP server answers over Streamable HTTP in JSON mode.
async fn mcp(State(docs): State<Docs>, Json(call): Json<Value>) -> Json<Value> {
    let name = call["params"]["arguments"]["name"].as_str().unwrap_or("");
    Json(json!({
        "jsonrpc": "2.0",
        "id": call["id"],
        "result": {"content": [{"type": "text", "text": text_of(&docs, name)}], "isError": false},
    }))
}

fn routes(docs: &Docs) -> (Router, Router) {
    let http = Router::new()
        .route("/docs/{name}", get(doc))
        .with_state(docs.clone());
    let mcp = Router::new()
        .route("/mcp", post(mcp))
        .with_state(docs.clone());
    (http, mcp)
}

/// What one path served: whether it was TOON, and the bytes.
#[derive(Debug, PartialEq, Eq)]
struct Served {
    toon: bool,
    text: String,
}

async fn over_http(base: &str, name: &str) -> Served {
    let response = raw_client()
        .get(format!("{base}/docs/{name}?format=toon"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let toon = response.headers()[CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/toon");
    Served {
        toon,
        text: response.text().await.expect("body"),
    }
}

async fn over_mcp(base: &str, name: &str, json: &str) -> Served {
    let call = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "get_doc", "arguments": {"name": name}},
    });
    let response = raw_client()
        .post(format!("{base}/mcp"))
        .header("x-prefer-format", "toon")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(call.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let answer: Value =
        serde_json::from_str(&response.text().await.expect("body")).expect("JSON-RPC answer");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block")
        .to_owned();
    Served {
        // A block keeps its JSON text, or the same minified, exactly when
        // TOON was not chosen.
        toon: text != json && text != tower_terse::format::minify_json(json),
        text,
    }
}

/// Every path, every document, under `settings` (and the same settings as
/// the gateway's TOML).
async fn agree(settings: Settings, toml: &str) -> (usize, usize) {
    // Each document as stored and minified: stored (indented) JSON costs
    // more tokens than its TOON, minified JSON sometimes less, so both
    // choices are made.
    let mut docs = documents();
    assert!(docs.len() >= 10, "the corpus is there");
    let minified: Vec<Document> = docs
        .iter()
        .map(|doc| Document {
            name: format!("{}-min", doc.name),
            text: doc.value.to_string(),
            value: doc.value.clone(),
        })
        .collect();
    docs.extend(minified);
    let docs: Docs = Arc::new(docs);
    let (http, mcp) = routes(&docs);
    let upstream = TestServer::spawn(http.clone().merge(mcp.clone())).await;
    let embedded = TestServer::spawn(
        http.layer(TerseLayer::new().settings(&settings))
            .merge(mcp.layer(McpLayer::new().settings(&settings))),
    )
    .await;
    let config = format!("{toml}\n[mcp]\npath = \"/mcp\"\n");
    let (gateway, _task) = spawn_gateway(&config, &upstream.url("")).await;
    let embedded = embedded.url("");
    let (mut toon, mut json) = (0, 0);
    for doc in docs.iter() {
        let name = &doc.name;
        let (text, outcome) =
            tower_terse::format::render_json_with(&doc.text, Format::Toon, &settings)
                .expect("JSON");
        let expected = Served {
            toon: outcome.served == Some(Format::Toon),
            text,
        };
        assert_eq!(over_http(&gateway, name).await, expected, "gateway, {name}");
        assert_eq!(over_http(&embedded, name).await, expected, "layer, {name}");
        assert_eq!(
            over_mcp(&gateway, name, &doc.text).await,
            expected,
            "gateway MCP, {name}"
        );
        assert_eq!(
            over_mcp(&embedded, name, &doc.text).await,
            expected,
            "McpLayer, {name}"
        );
        if expected.toon { toon += 1 } else { json += 1 }
    }
    (toon, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_renders_a_document_to_the_same_bytes() {
    let (toon, json) = agree(Settings::new(), "").await;
    // The corpus holds both kinds, so both choices were compared.
    assert!(toon > 0 && json > 0, "toon {toon}, json {json}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_change_every_path_alike() {
    let settings: Settings = serde_json::from_value(json!({
        "smart_fallback": false,
        "toon": {"delimiter": "tab", "indent": 4},
    }))
    .unwrap();
    let toml = "[layer]\nsmart_fallback = false\n[layer.toon]\ndelimiter = \"tab\"\nindent = 4\n";
    let (toon, json) = agree(settings, toml).await;
    // Without the smart fallback, TOON is served everywhere.
    assert_eq!(json, 0, "toon {toon}");
}
