//! `terse gateway` in front of services built on the frameworks people run,
//! written as their users write them (`tests/frameworks/`, and FastAPI's
//! `tests/python/upstream.py`): Django REST framework on uvicorn, FastAPI,
//! Express, and Python's `http.server` (HTTP/1.0). Installed once per
//! machine (pip into one venv, npm into a cache folder).
//!
//! For each: JSON, TOON and compact through the gateway hold what the
//! service serves; `HEAD` answers `GET`'s headers; the service never sees
//! the gateway's parameters and media types; totals are read; redirects and
//! `Link` point at the gateway; conditional requests are per
//! representation; clients get HTTP/1.1 with keep-alive.

use std::path::Path;

use reqwest::header::HeaderMap;
use serde_json::Value;
use terse_tests::python::{PythonUpstream, express_modules, frameworks_python, spawn_gateway};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What one framework's service looks like, and what it should give.
struct Service {
    name: &'static str,
    upstream: PythonUpstream,
    /// The list, first page, as the gateway's route table sees it.
    route: &'static str,
    /// The list's path and query.
    list: &'static str,
    /// `10 of 57 tasks`.
    summary: &'static str,
    /// The key the records are under.
    rows: &'static str,
    echo: &'static str,
    /// What the service was sent, from its echo: query, `Accept`,
    /// `X-Prefer-Format`.
    seen: fn(&Value) -> Seen,
    /// A path answered with an absolute redirect, and where to.
    redirect: Option<(&'static str, &'static str)>,
    /// Whether the service tags its lists and answers `If-None-Match`.
    etags: bool,
}

#[derive(Debug, PartialEq)]
struct Seen {
    query: String,
    accept: Option<String>,
    prefer: Option<String>,
}

fn seen_flat(echo: &Value) -> Seen {
    Seen {
        query: echo["query"].as_str().unwrap_or("").to_owned(),
        accept: echo["accept"].as_str().map(str::to_owned),
        prefer: echo["prefer"].as_str().map(str::to_owned),
    }
}

fn seen_fastapi(echo: &Value) -> Seen {
    let header = |name: &str| {
        echo["headers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|pair| pair[0] == name)
            .and_then(|pair| pair[1].as_str())
            .map(str::to_owned)
    };
    Seen {
        query: echo["query"].as_str().unwrap_or("").to_owned(),
        accept: header("accept"),
        prefer: header("x-prefer-format"),
    }
}

fn config(route: &str, extra: &str) -> String {
    format!(
        "[gateway]\n{extra}\n[[resource]]\nroute = \"{route}\"\nnoun = \"task\"\nline = \"{{title}}\"\n"
    )
}

/// A client that neither decompresses nor follows redirects.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_gzip()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

async fn fetch(
    method: reqwest::Method,
    url: &str,
    headers: &[(&str, &str)],
) -> (u16, HeaderMap, String) {
    let mut request = client().request(method, url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|err| panic!("{url}: {err}"));
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.expect("body"))
}

async fn get(url: &str, headers: &[(&str, &str)]) -> (u16, HeaderMap, String) {
    fetch(reqwest::Method::GET, url, headers).await
}

fn toon(text: &str) -> Value {
    terse_toon::decode(text, &terse_toon::DecodeOptions::new())
        .unwrap_or_else(|err| panic!("{err}: {text}"))
}

/// The body as served: TOON, or JSON where the smart fallback kept it.
fn served(headers: &HeaderMap, text: &str) -> Value {
    match header(headers, "content-type") {
        Some(kind) if kind.starts_with("text/toon") => toon(text),
        _ => json(text),
    }
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("{err}: {text}"))
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().expect("text header"))
}

/// `url` with `format=` added to its query.
fn with_format(url: &str, format: &str) -> String {
    let joiner = if url.contains('?') { '&' } else { '?' };
    format!("{url}{joiner}format={format}")
}

/// Every check of the module doc against one service.
async fn check(service: &Service) {
    let name = service.name;
    let upstream = service.upstream.url();
    let (gateway, _task) = spawn_gateway(&config(service.route, ""), &upstream).await;
    let list = format!("{gateway}{}", service.list);

    // The content is the service's, in each format.
    let (status, _, direct) = get(&format!("{upstream}{}", service.list), &[]).await;
    assert_eq!(status, 200, "{name}: the service itself");
    let direct = json(&direct);
    let (status, _, body) = get(&list, &[]).await;
    assert_eq!(status, 200, "{name}: JSON");
    assert_eq!(json(&body), direct, "{name}: JSON through the gateway");
    let (status, headers, body) = get(&with_format(&list, "toon"), &[]).await;
    assert_eq!(status, 200, "{name}: ?format=toon: {body}");
    assert!(
        header(&headers, "content-type")
            .unwrap()
            .starts_with("text/toon")
    );
    assert_eq!(toon(&body), direct, "{name}: TOON through the gateway");
    let (status, headers, body) = get(&list, &[("accept", "text/toon")]).await;
    assert_eq!(status, 200, "{name}: Accept: text/toon: {body}");
    assert!(
        header(&headers, "content-type")
            .unwrap()
            .starts_with("text/toon")
    );
    assert_eq!(toon(&body), direct, "{name}: TOON by Accept");
    let (status, _, body) = get(&list, &[("x-prefer-format", "compact")]).await;
    assert_eq!(status, 200, "{name}: compact");
    let envelope = json(&body);
    assert_eq!(envelope["format"], "compact", "{name}: {body}");
    assert_eq!(
        envelope["summary"], service.summary,
        "{name}: the total is read"
    );
    assert_eq!(envelope["meta"]["has_more"], true, "{name}: {body}");
    let ids: Vec<&Value> = direct[service.rows]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| &row["id"])
        .collect();
    assert_eq!(
        envelope["ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        ids
    );

    // HEAD answers GET's headers, in each format.
    for asked in [
        vec![],
        vec![("accept", "text/toon")],
        vec![("x-prefer-format", "compact")],
    ] {
        let (_, got, _) = get(&list, &asked).await;
        let (status, head, body) = fetch(reqwest::Method::HEAD, &list, &asked).await;
        assert_eq!((status, body.as_str()), (200, ""), "{name}: HEAD {asked:?}");
        for key in [
            "content-type",
            "content-length",
            "x-token-count",
            "vary",
            "etag",
        ] {
            assert_eq!(
                header(&head, key),
                header(&got, key),
                "{name}: HEAD {asked:?}: {key}"
            );
        }
        for key in ["content-length", "x-token-count"] {
            let value = header(&head, key).unwrap_or_else(|| panic!("{name}: HEAD {key}"));
            assert_ne!(value, "0", "{name}: HEAD {asked:?}: {key}");
        }
        assert!(header(&head, "vary").unwrap().contains("Accept"), "{name}");
    }

    // The service never sees what is the gateway's.
    let echo = format!("{gateway}{}", service.echo);
    let (status, headers, body) = get(
        &format!("{echo}?format=toon&keep=1&fields=query"),
        &[("accept", "text/toon"), ("x-prefer-format", "toon")],
    )
    .await;
    assert_eq!(status, 200, "{name}: echo: {body}");
    assert_eq!(
        served(&headers, &body)["query"],
        "keep=1",
        "{name}: query forwarded"
    );
    let (status, headers, body) = get(
        &format!("{echo}?keep=2"),
        &[("accept", "text/toon"), ("x-prefer-format", "toon")],
    )
    .await;
    assert_eq!(status, 200, "{name}: echo: {body}");
    let seen = (service.seen)(&served(&headers, &body));
    assert_eq!(
        seen,
        Seen {
            query: "keep=2".to_owned(),
            accept: Some("application/json".to_owned()),
            prefer: None,
        },
        "{name}"
    );
    let (_, headers, body) = get(
        &format!("{echo}?format=toon"),
        &[("accept", "text/toon;q=1, application/json;q=0.5")],
    )
    .await;
    let seen = (service.seen)(&served(&headers, &body));
    assert_eq!(
        seen.accept.as_deref(),
        Some("application/json;q=0.5"),
        "{name}"
    );
    assert_eq!(seen.query, "", "{name}");

    // Redirects point at the gateway.
    if let Some((from, to)) = service.redirect {
        let (status, headers, _) = get(&format!("{gateway}{from}"), &[]).await;
        assert!(
            (300..400).contains(&status),
            "{name}: {from} is a redirect: {status}"
        );
        assert_eq!(
            header(&headers, "location"),
            Some(format!("{gateway}{to}").as_str()),
            "{name}"
        );
    }

    if service.etags {
        conditional_requests(name, &list).await;
    }
    keep_alive(name, &gateway, service.list).await;
}

/// Each representation has its own tag, and a `304` comes only for the
/// representation asked, with its tag.
async fn conditional_requests(name: &str, list: &str) {
    let formats: [&[(&str, &str)]; 3] = [
        &[],
        &[("x-prefer-format", "toon")],
        &[("x-prefer-format", "compact")],
    ];
    let mut tags = Vec::new();
    for asked in formats {
        let (status, headers, _) = get(list, asked).await;
        assert_eq!(status, 200);
        tags.push(
            header(&headers, "etag")
                .unwrap_or_else(|| panic!("{name}: ETag"))
                .to_owned(),
        );
    }
    assert_ne!(tags[0], tags[1], "{name}");
    assert_ne!(tags[1], tags[2], "{name}");
    assert_ne!(tags[0], tags[2], "{name}");
    for (i, asked) in formats.iter().enumerate() {
        for (j, tag) in tags.iter().enumerate() {
            let mut headers = asked.to_vec();
            headers.push(("if-none-match", tag));
            let (status, got, body) = get(list, &headers).await;
            if i == j {
                assert_eq!(status, 304, "{name}: {asked:?} with its own tag {tag}");
                assert_eq!(
                    header(&got, "etag"),
                    Some(tag.as_str()),
                    "{name}: {asked:?}"
                );
                assert_eq!(body, "");
            } else {
                assert_eq!(
                    status, 200,
                    "{name}: {asked:?} with the tag {tag} of another"
                );
                assert_eq!(header(&got, "etag"), Some(tags[i].as_str()), "{name}");
            }
        }
    }
}

/// Two requests on one connection, both answered in HTTP/1.1.
async fn keep_alive(name: &str, gateway: &str, path: &str) {
    let authority = gateway.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect");
    for round in 0..2 {
        let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            let n = stream.read(&mut byte).await.expect("read");
            assert_eq!(n, 1, "{name}: the connection closed in round {round}");
            head.push(byte[0]);
        }
        let head = String::from_utf8(head).expect("head").to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{name}: {head}");
        assert!(!head.contains("connection: close"), "{name}: {head}");
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .unwrap_or_else(|| panic!("{name}: a length: {head}"))
            .trim()
            .parse()
            .expect("length");
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await.expect("body");
    }
}

fn python() -> Option<std::path::PathBuf> {
    frameworks_python()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Python/PyPI; run with --include-ignored (.ci/run does)"]
async fn django_rest_framework() {
    let Some(python) = python() else { return };
    let upstream = PythonUpstream::start_framework(&python, "drf_app.py", &[]);
    let url = upstream.url();
    // What the gateway spares it: DRF picks a renderer by `?format=` and
    // `Accept`, and has none for TOON.
    let (status, _, _) = get(&format!("{url}/tasks/?format=toon"), &[]).await;
    assert_eq!(status, 404, "DRF itself 404s on ?format=toon");
    let (status, _, _) = get(&format!("{url}/tasks/"), &[("accept", "text/toon")]).await;
    assert_eq!(status, 406, "DRF itself 406s on Accept: text/toon");
    let service = Service {
        name: "Django REST framework",
        upstream,
        route: "/tasks/",
        list: "/tasks/",
        summary: "10 of 57 tasks",
        rows: "results",
        echo: "/echo/",
        seen: seen_flat,
        redirect: Some(("/old-tasks/", "/tasks/")),
        etags: true,
    };
    check(&service).await;

    // Page links in the body come from `Host`: the upstream's by default,
    // the gateway's with `preserve_host`.
    let (gateway, _task) = spawn_gateway(&config("/tasks/", ""), &url).await;
    let (_, _, body) = get(&format!("{gateway}/tasks/"), &[]).await;
    assert_eq!(json(&body)["next"], format!("{url}/tasks/?page=2"));
    let (gateway, _task) = spawn_gateway(&config("/tasks/", "preserve_host = true"), &url).await;
    let (_, _, body) = get(&format!("{gateway}/tasks/"), &[]).await;
    assert_eq!(json(&body)["next"], format!("{gateway}/tasks/?page=2"));
    // The last page says there is no more.
    let (_, _, body) = get(
        &format!("{gateway}/tasks/?page=6"),
        &[("x-prefer-format", "compact")],
    )
    .await;
    let envelope = json(&body);
    assert_eq!(envelope["summary"], "7 of 57 tasks");
    assert_eq!(envelope["meta"]["has_more"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Python/PyPI; run with --include-ignored (.ci/run does)"]
async fn fastapi() {
    let Some(upstream) = PythonUpstream::start(None) else {
        return;
    };
    let url = upstream.url();
    // Starlette redirects a trailing slash to an absolute URL.
    let (status, headers, _) = get(&format!("{url}/api/tasks/"), &[]).await;
    assert_eq!(status, 307);
    assert_eq!(
        header(&headers, "location"),
        Some(format!("{url}/api/tasks").as_str())
    );
    let service = Service {
        name: "FastAPI",
        upstream,
        route: "/api/tasks",
        list: "/api/tasks?limit=5",
        summary: "5 of 20 tasks",
        rows: "data",
        echo: "/api/echo",
        seen: seen_fastapi,
        redirect: Some(("/api/tasks/", "/api/tasks")),
        etags: false,
    };
    check(&service).await;

    // A JSON body that never ends, which nobody asked to rewrite, streams:
    // its first bytes arrive while the upstream still holds the rest.
    let (gateway, _task) = spawn_gateway(&config("/api/tasks", ""), &url).await;
    let response = client()
        .get(format!("{gateway}/api/stall"))
        .send()
        .await
        .expect("stall");
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("x-token-count").is_none());
    let mut stream = response.bytes_stream();
    let first = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        futures_util::StreamExt::next(&mut stream),
    )
    .await
    .expect("the first bytes come before the body ends")
    .expect("a chunk")
    .expect("no error");
    assert_eq!(&first[..], b"{\"data\":[{\"id\":1},");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node/npm; run with --include-ignored (.ci/run does)"]
async fn express() {
    let Some(modules) = express_modules() else {
        return;
    };
    let upstream = PythonUpstream::start_framework(
        Path::new("node"),
        "express_app.js",
        &[("NODE_PATH", &modules)],
    );
    let url = upstream.url();
    // What the gateway spares it: Express filters on every parameter.
    let (_, _, body) = get(&format!("{url}/tasks?format=toon"), &[]).await;
    assert_eq!(
        json(&body)["items"],
        serde_json::json!([]),
        "Express empties on ?format="
    );
    let service = Service {
        name: "Express",
        upstream,
        route: "/tasks",
        list: "/tasks",
        summary: "10 of 57 tasks",
        rows: "items",
        echo: "/echo",
        seen: seen_flat,
        redirect: Some(("/old-tasks", "/tasks")),
        etags: true,
    };
    check(&service).await;

    // `Link` points at the gateway.
    let (gateway, _task) = spawn_gateway(&config("/tasks", ""), &url).await;
    let (_, headers, _) = get(&format!("{gateway}/tasks?format=toon"), &[]).await;
    let link = header(&headers, "link").expect("Link");
    assert_eq!(
        link,
        format!(
            "<{gateway}/tasks?page=1&per_page=10>; rel=\"first\", <{gateway}/tasks?page=2&per_page=10>; rel=\"next\", <{gateway}/tasks?page=6&per_page=10>; rel=\"last\""
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Python/PyPI; run with --include-ignored (.ci/run does)"]
async fn python_http_server_speaks_http_1_0() {
    let Some(python) = python() else { return };
    let upstream = PythonUpstream::start_framework(&python, "http_server_app.py", &[]);
    let service = Service {
        name: "http.server",
        upstream,
        route: "/tasks",
        list: "/tasks",
        summary: "10 of 57 tasks",
        rows: "data",
        echo: "/echo",
        seen: seen_flat,
        redirect: None,
        etags: true,
    };
    check(&service).await;
}
