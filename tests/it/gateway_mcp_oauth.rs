//! OAuth (RFC 9728) through the gateway: an MCP upstream that asks for a
//! token names itself in its protected-resource metadata and in the
//! `resource_metadata` of its `WWW-Authenticate`; through the gateway
//! both name the gateway, so a client that reached the gateway finds the
//! metadata there and the `resource` it expects. The authorization
//! server is another host and stays named as it is.
//!
//! The upstream and the authorization server are axum services on
//! loopback; the client is reqwest, and the official MCP Python SDK's
//! OAuth client for the whole flow.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use terse_tests::python::{client_answer, mcp_python, spawn_gateway};
use terse_tests::server::{TestServer, raw_client};

const TOKEN: &str = "tok-7f3a";

const MCP_CONFIG: &str = r#"
[mcp]
path = "/mcp"
"#;

/// What the upstream and the authorization server saw.
#[derive(Default)]
struct Seen {
    /// `X-Forwarded-Host` of each metadata request (`None`: straight).
    metadata_via: Vec<Option<String>>,
    /// The `resource` parameter of each authorization and token request.
    resources: Vec<String>,
}

#[derive(Clone)]
struct Upstream {
    /// `http://127.0.0.1:PORT`, once bound.
    base: Arc<OnceLock<String>>,
    /// The authorization server's base URL.
    issuer: Arc<OnceLock<String>>,
    seen: Arc<Mutex<Seen>>,
}

async fn metadata(State(up): State<Upstream>, headers: HeaderMap) -> Response {
    let via = headers
        .get("x-forwarded-host")
        .map(|h| h.to_str().unwrap().to_owned());
    up.seen.lock().unwrap().metadata_via.push(via);
    let base = up.base.get().unwrap();
    let tag = [(header::ETAG, r#""prm-1""#)];
    (
        tag,
        axum::Json(json!({
            "resource": format!("{base}/mcp"),
            "authorization_servers": [up.issuer.get().unwrap()],
            "scopes_supported": ["mcp"],
            "bearer_methods_supported": ["header"],
            "resource_documentation": format!("{base}/docs"),
        })),
    )
        .into_response()
}

/// The upstream's challenge; with `decoy`, the same parameter also
/// written inside another's quoted value (which the SDK's client would
/// misread, straight or not).
fn challenge(up: &Upstream, status: StatusCode, decoy: bool) -> Response {
    let base = up.base.get().unwrap();
    let decoy = if decoy {
        format!(r#" error_description="see resource_metadata=\"{base}/x\"","#)
    } else {
        String::new()
    };
    let value = format!(
        r#"Bearer error="invalid_token",{decoy} resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#
    );
    (
        status,
        [(header::WWW_AUTHENTICATE, value)],
        axum::Json(json!({"error": "invalid_token"})),
    )
        .into_response()
}

/// A minimal MCP server (JSON answers, no session) behind a bearer token.
async fn mcp(State(up): State<Upstream>, headers: HeaderMap, body: String) -> Response {
    let authorized = headers
        .get(header::AUTHORIZATION)
        .is_some_and(|a| a.as_bytes() == format!("Bearer {TOKEN}").as_bytes());
    if !authorized {
        return challenge(&up, StatusCode::UNAUTHORIZED, false);
    }
    let message: Value = serde_json::from_str(&body).unwrap();
    let Some(id) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match message["method"].as_str().unwrap() {
        "initialize" => json!({
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "oauth-upstream", "version": "1.0.0"},
        }),
        "tools/list" => json!({"tools": [{
            "name": "whoami",
            "inputSchema": {"type": "object", "properties": {}},
        }]}),
        "tools/call" => json!({"content": [{"type": "text", "text": "alice"}]}),
        _ => json!({}),
    };
    axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}

async fn upstream(issuer: &str, seen: Arc<Mutex<Seen>>) -> (TestServer, String) {
    let state = Upstream {
        base: Arc::new(OnceLock::new()),
        issuer: Arc::new(OnceLock::from(issuer.to_owned())),
        seen,
    };
    let base = state.base.clone();
    let router =
        Router::new()
            .route("/.well-known/oauth-protected-resource", get(metadata))
            .route("/.well-known/oauth-protected-resource/mcp", get(metadata))
            .route(
                "/mcp",
                post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
            )
            .route(
                "/forbidden",
                get(|State(up): State<Upstream>| async move {
                    challenge(&up, StatusCode::FORBIDDEN, true)
                }),
            )
            .route(
                "/not-json/.well-known/oauth-protected-resource",
                get(|| async { "resource=http://elsewhere" }),
            )
            .route(
                "/big/.well-known/oauth-protected-resource",
                get(|State(up): State<Upstream>| async move { big(&up) }),
            )
            .with_state(state);
    let server = TestServer::spawn(router).await;
    let url = format!("http://{}", server.addr());
    base.set(url.clone()).unwrap();
    (server, url)
}

/// A metadata document larger than the gateway reads to rewrite, sent
/// in chunks without a length.
fn big(up: &Upstream) -> Response {
    let document = json!({
        "resource": format!("{}/mcp", up.base.get().unwrap()),
        "padding": "x".repeat(100_000),
    })
    .to_string()
    .into_bytes();
    let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = document
        .chunks(8192)
        .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
        .collect();
    (
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Body::from_stream(futures_util::stream::iter(chunks)),
    )
        .into_response()
}

/// `application/x-www-form-urlencoded` decoded.
fn form(body: &str) -> HashMap<String, String> {
    body.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 3 <= bytes.len() => {
                out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// An authorization server that approves every request at once.
async fn authorization_server(seen: Arc<Mutex<Seen>>) -> (TestServer, String) {
    let issuer: Arc<OnceLock<String>> = Arc::new(OnceLock::new());
    let base = issuer.clone();
    let metadata = move || {
        let issuer = base.get().unwrap().clone();
        async move {
            axum::Json(json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
                "registration_endpoint": format!("{issuer}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
            }))
        }
    };
    let register = |body: String| async move {
        let mut client: Value = serde_json::from_str(&body).unwrap();
        client["client_id"] = json!("client-1");
        client["client_secret"] = json!("secret-1");
        (StatusCode::CREATED, axum::Json(client))
    };
    let on_authorize = seen.clone();
    let authorize = move |Query(query): Query<HashMap<String, String>>| {
        let seen = on_authorize.clone();
        async move {
            if let Some(resource) = query.get("resource") {
                seen.lock().unwrap().resources.push(resource.clone());
            }
            let location = format!(
                "{}?code=code-1&state={}",
                query["redirect_uri"],
                query.get("state").cloned().unwrap_or_default()
            );
            (StatusCode::FOUND, [(header::LOCATION, location)])
        }
    };
    let token = move |body: String| {
        let seen = seen.clone();
        async move {
            let form = form(&body);
            if let Some(resource) = form.get("resource") {
                seen.lock().unwrap().resources.push(resource.clone());
            }
            axum::Json(json!({
                "access_token": TOKEN,
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": "mcp",
            }))
        }
    };
    let router = Router::new()
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token));
    let server = TestServer::spawn(router).await;
    let url = format!("http://{}", server.addr());
    issuer.set(url.clone()).unwrap();
    (server, url)
}

#[tokio::test]
async fn challenges_and_metadata_name_the_gateway() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (_up, up) = upstream("http://auth.example", seen.clone()).await;
    let (gateway, _task) = spawn_gateway(MCP_CONFIG, &up).await;
    let client = raw_client();

    // The 401 of the MCP endpoint, and a 403 elsewhere: the parameter
    // moves, the same text inside another parameter's quotes does not.
    for (method, path, status, decoy) in [
        (reqwest::Method::POST, "/mcp", 401, ""),
        (
            reqwest::Method::GET,
            "/forbidden",
            403,
            &*format!(r#" error_description="see resource_metadata=\"{up}/x\"","#),
        ),
    ] {
        let answer = client
            .request(method, format!("{gateway}{path}"))
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), status);
        assert_eq!(
            answer.headers()[header::WWW_AUTHENTICATE],
            format!(
                r#"Bearer error="invalid_token",{decoy} resource_metadata="{gateway}/.well-known/oauth-protected-resource/mcp""#
            )
            .as_str()
        );
    }

    // The metadata, at both well-known paths: `resource` moved, the
    // authorization server and the other members as they were.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let answer = client.get(format!("{gateway}{path}")).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        assert_eq!(answer.headers()[header::ETAG], r#"W/"prm-1""#);
        let length: usize = answer.headers()[header::CONTENT_LENGTH]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let body = answer.text().await.unwrap();
        assert_eq!(body.len(), length);
        let document: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            document,
            json!({
                "resource": format!("{gateway}/mcp"),
                "authorization_servers": ["http://auth.example"],
                "scopes_supported": ["mcp"],
                "bearer_methods_supported": ["header"],
                "resource_documentation": format!("{up}/docs"),
            })
        );
    }
    assert!(
        seen.lock()
            .unwrap()
            .metadata_via
            .iter()
            .all(|via| via.as_deref() == gateway.strip_prefix("http://")),
    );

    // A metadata path whose answer is no JSON passes as it came.
    let answer = client
        .get(format!(
            "{gateway}/not-json/.well-known/oauth-protected-resource"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.text().await.unwrap(), "resource=http://elsewhere");

    // One too large to read passes whole and unchanged.
    let path = "/big/.well-known/oauth-protected-resource";
    let through = client.get(format!("{gateway}{path}")).send().await.unwrap();
    let through = through.text().await.unwrap();
    let straight = client.get(format!("{up}{path}")).send().await.unwrap();
    assert_eq!(through, straight.text().await.unwrap());
    assert!(through.len() > 100_000);
}

#[tokio::test]
async fn a_public_origin_is_what_the_metadata_names() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (_up, up) = upstream("https://auth.example", seen).await;
    let config = format!("[gateway]\npublic_origin = \"https://mcp.example.com\"\n{MCP_CONFIG}");
    let (gateway, _task) = spawn_gateway(&config, &up).await;
    let client = raw_client();
    let answer = client
        .post(format!("{gateway}/mcp"))
        .body("{}")
        .send()
        .await
        .unwrap();
    let challenge = answer.headers()[header::WWW_AUTHENTICATE].to_str().unwrap();
    assert!(
        challenge.ends_with(r#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#),
        "{challenge}"
    );
    let body = client
        .get(format!(
            "{gateway}/.well-known/oauth-protected-resource/mcp"
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let document: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["resource"], "https://mcp.example.com/mcp");
    assert_eq!(
        document["authorization_servers"],
        json!(["https://auth.example"])
    );
}

/// What the SDK's OAuth client got from the endpoint at `url`.
async fn oauth_session(python: std::path::PathBuf, url: String) -> Value {
    tokio::task::spawn_blocking(move || {
        client_answer(
            std::process::Command::new(python)
                .arg(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/python/mcp_oauth_client.py"
                ))
                .arg(url),
        )
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with venv and PyPI access; run with --include-ignored (.ci/run does)"]
async fn the_sdk_client_authorizes_through_the_gateway() {
    let Some(python) = mcp_python() else {
        return;
    };
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (_auth, issuer) = authorization_server(seen.clone()).await;
    let (_up, up) = upstream(&issuer, seen.clone()).await;
    let (gateway, _task) = spawn_gateway(MCP_CONFIG, &up).await;

    // Straight to the upstream, the flow works: the harness is sound.
    let straight = oauth_session(python.clone(), format!("{up}/mcp")).await;
    assert_eq!(
        straight,
        json!({"tools": ["whoami"], "text": "alice"}),
        "straight"
    );
    assert_eq!(
        std::mem::take(&mut *seen.lock().unwrap()).resources,
        [format!("{up}/mcp"), format!("{up}/mcp")]
    );

    // Through the gateway: the metadata is fetched from the gateway, and
    // the token is asked for the gateway's resource.
    let through = oauth_session(python, format!("{gateway}/mcp")).await;
    assert_eq!(
        through,
        json!({"tools": ["whoami"], "text": "alice"}),
        "through the gateway"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.resources,
        [format!("{gateway}/mcp"), format!("{gateway}/mcp")]
    );
    assert!(!seen.metadata_via.is_empty());
    assert!(
        seen.metadata_via
            .iter()
            .all(|via| via.as_deref() == gateway.strip_prefix("http://")),
        "{:?}",
        seen.metadata_via
    );
}
