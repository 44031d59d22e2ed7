//! Every `[layer]` key, and `[[route]]`, round-tripped through the gateway:
//! a TOML file sets it, a real gateway in front of a real upstream serves
//! with it, and a real client sees what it changes.

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::routing;
use serde_json::{Value, json};
use terse_tests::corpus::documents;
use terse_tests::python::spawn_gateway;
use terse_tests::server::{Answer, TestServer, answer, raw_client};

fn rows() -> Value {
    json!([
        {"id": 1, "key": "a", "name": "alpha", "size": 10},
        {"id": 2, "key": "b", "name": "beta", "size": 20},
        {"id": 3, "key": "c", "name": "gamma", "size": 30},
    ])
}

/// A minified corpus document for which JSON is cheaper than TOON, so the
/// smart fallback serves JSON.
fn json_cheaper() -> String {
    documents()
        .into_iter()
        .map(|doc| doc.value.to_string())
        .find(|text| {
            tower_terse::format::render_json(text, tower_terse::Format::Toon).unwrap() == *text
        })
        .expect("a corpus document JSON serves cheaper")
}

async fn upstream() -> TestServer {
    let json = |text: String| ([(CONTENT_TYPE, "application/json")], text);
    let plain = json_cheaper();
    TestServer::spawn(
        Router::new()
            .route(
                "/rows",
                routing::get(move || async move { json(rows().to_string()) }),
            )
            .route(
                "/other",
                routing::get(move || async move { json(rows().to_string()) }),
            )
            .route(
                "/wrapped",
                routing::get(move || async move { json(json!({"rows": rows()}).to_string()) }),
            )
            .route("/plain", routing::get(move || async move { json(plain) })),
    )
    .await
}

/// `path` through a gateway configured with `toml`, with `headers`.
async fn through(toml: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let upstream = upstream().await;
    let (gateway, _task) = spawn_gateway(toml, &upstream.url("")).await;
    let mut request = raw_client().get(format!("{gateway}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request).await
}

async fn get(toml: &str, path: &str) -> Answer {
    through(toml, path, &[]).await
}

fn value(answer: &Answer) -> Value {
    serde_json::from_str(&answer.body).expect("a JSON body")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enabled() {
    // The gateway's compression varies on `Accept-Encoding` either way.
    let varies_on_format = |answer: &Answer| {
        answer
            .vary
            .as_deref()
            .is_some_and(|vary| vary.to_ascii_lowercase().contains("x-prefer-format"))
    };
    let on = get("", "/rows?format=toon").await;
    assert!(on.is_toon() && on.token_count.is_some() && varies_on_format(&on));
    let off = get("[layer]\nenabled = false\n", "/rows?format=toon").await;
    assert!(!off.is_toon() && off.token_count.is_none() && !varies_on_format(&off));
    assert_eq!(value(&off), rows());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_format() {
    assert!(!get("", "/rows").await.is_toon());
    assert!(
        get("[layer]\ndefault_format = \"toon\"\n", "/rows")
            .await
            .is_toon()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_body_bytes() {
    let small = get("[layer]\nmax_body_bytes = 16\n", "/rows?format=toon").await;
    assert!(
        !small.is_toon() && small.token_count.is_none(),
        "streamed unread"
    );
    assert_eq!(value(&small), rows());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_output_bytes() {
    let small = get("[layer]\nmax_output_bytes = 16\n", "/rows?format=toon").await;
    assert!(
        !small.is_toon() && small.token_count.is_some(),
        "read, counted, not rewritten"
    );
    assert_eq!(value(&small), rows());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offload_threshold_and_max_concurrent_rewrites() {
    // Every body is rewritten on the blocking pool, one at a time: the
    // answers are the ones rewritten in place.
    let inline = get("", "/rows?format=toon").await.body;
    let toml = "[layer]\noffload_threshold = 1\nmax_concurrent_rewrites = 1\n";
    let answers = futures_util::future::join_all(
        (0..4).map(|_| async { get(toml, "/rows?format=toon").await.body }),
    )
    .await;
    assert!(answers.iter().all(|body| *body == inline));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smart_fallback() {
    let on = get("", "/plain?format=toon").await;
    assert!(!on.is_toon());
    let off = get("[layer]\nsmart_fallback = false\n", "/plain?format=toon").await;
    assert!(off.is_toon());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_token_count() {
    let exact = get("[layer]\nexact_token_count = true\n", "/rows?format=toon").await;
    let count = tower_terse::tokens::exact(&exact.body).to_string();
    assert_eq!(exact.token_count, Some(count));
    let estimate = get("", "/rows?format=toon").await;
    assert_eq!(
        estimate.token_count,
        Some(tower_terse::tokens::estimate(estimate.body.as_bytes()).to_string())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn count_plain_responses() {
    assert!(get("", "/rows").await.token_count.is_some());
    let off = get("[layer]\ncount_plain_responses = false\n", "/rows").await;
    assert!(off.token_count.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_enabled() {
    let off = get("[layer]\nfields_enabled = false\n", "/rows?fields=name").await;
    assert_eq!(value(&off), rows());
    let on = get("", "/rows?fields=name").await;
    assert_eq!(value(&on)[0], json!({"id": 1, "name": "alpha"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_fields_max_field_depth_max_fields_length() {
    for (toml, fields) in [
        ("max_fields = 1", "name,size"),
        ("max_field_depth = 1", "owner.name"),
        ("max_fields_length = 3", "name"),
    ] {
        let config = format!("[layer]\n{toml}\n");
        assert_eq!(
            get(&config, &format!("/rows?fields={fields}")).await.status,
            400,
            "{toml}"
        );
        assert_eq!(
            get("", &format!("/rows?fields={fields}")).await.status,
            200,
            "{toml}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_keys_and_id_key() {
    let toml = "[layer]\nlist_keys = [\"rows\"]\nid_key = \"key\"\n";
    let projected = get(toml, "/wrapped?fields=name").await;
    assert_eq!(
        value(&projected)["rows"][0],
        json!({"key": "a", "name": "alpha"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn format_param_and_fields_param() {
    let toml = "[layer]\nformat_param = \"fmt\"\nfields_param = \"only\"\n";
    assert!(get(toml, "/rows?fmt=toon").await.is_toon());
    assert!(!get(toml, "/rows?format=toon").await.is_toon());
    let projected = get(toml, "/rows?only=name").await;
    assert_eq!(value(&projected)[0], json!({"id": 1, "name": "alpha"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefer_header() {
    let toml = "[layer]\nprefer_header = \"x-format\"\n";
    let answer = through(toml, "/rows", &[("x-format", "toon")]).await;
    assert!(answer.is_toon());
    assert!(
        answer
            .vary
            .as_deref()
            .is_some_and(|vary| vary.contains("x-format"))
    );
    assert!(
        !through(toml, "/rows", &[("x-prefer-format", "toon")])
            .await
            .is_toon()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toon_delimiter_and_indent() {
    let toml = "[layer.toon]\ndelimiter = \"pipe\"\nindent = 4\n";
    let wrapped = get(toml, "/wrapped?format=toon").await;
    assert!(wrapped.is_toon());
    assert_eq!(
        wrapped.body,
        "rows[3|]{id|key|name|size}:\n    1|a|alpha|10\n    2|b|beta|20\n    3|c|gamma|30"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_table_overrides_any_key_for_its_path() {
    let toml = "[layer]\nsmart_fallback = true\n\n[[route]]\npath = \"/rows\"\ndefault_format = \"toon\"\n\n[route.toon]\ndelimiter = \"tab\"\n";
    let rows = get(toml, "/rows").await;
    assert!(rows.is_toon());
    assert!(rows.body.contains('\t'));
    assert!(!get(toml, "/other").await.is_toon());
    assert!(!get(toml, "/other?format=toon").await.body.contains('\t'));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewrite_memo_bytes() {
    // Off or on, the answer is the rewrite's; a second read of the same
    // body (the memo's, when on) is the same answer.
    for toml in [
        "[layer]\nrewrite_memo_bytes = 0\n",
        "[layer]\nrewrite_memo_bytes = 1048576\n",
    ] {
        let upstream = upstream().await;
        let (gateway, _task) = spawn_gateway(toml, &upstream.url("")).await;
        let url = format!("{gateway}/rows?format=toon");
        let first = answer(raw_client().get(&url)).await;
        let second = answer(raw_client().get(&url)).await;
        assert!(first.content_type.starts_with("text/toon"), "{toml}");
        assert_eq!(
            (first.body.as_str(), first.token_count.as_deref()),
            (second.body.as_str(), second.token_count.as_deref()),
            "{toml}"
        );
    }
    let err = terse_gateway::Config::parse("t.toml", "[layer]\nrewrite_memo_bytes = 2147483648\n")
        .expect_err("past the range");
    assert!(
        err.to_string()
            .contains("`rewrite_memo_bytes` must be between 0 and"),
        "{err}"
    );
}
