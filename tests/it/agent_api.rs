//! agent-api end to end: the session an agent has with it over HTTP, and the
//! token report measured against it.

use std::path::PathBuf;

use serde_json::{Value, json};
use terse_tests::server::{TestServer, raw_client, raw_h2c_client};

/// A fresh database file in its own directory, removed when dropped.
struct TempDb {
    dir: PathBuf,
}

impl TempDb {
    fn new(name: &str) -> TempDb {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("agent-api-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDb { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.join("agent-api.db")
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn start(name: &str) -> (TestServer, TempDb) {
    let db = TempDb::new(name);
    let app = agent_api::app(agent_api::Db::open(db.path()).expect("open database"));
    (TestServer::spawn(app).await, db)
}

async fn get(server: &TestServer, path: &str) -> (u16, String, String) {
    let response = raw_client()
        .get(server.url(path))
        .send()
        .await
        .expect("GET");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    (status, content_type, response.text().await.expect("body"))
}

async fn get_json(server: &TestServer, path: &str) -> Value {
    let (status, _, body) = get(server, path).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
}

async fn patch(server: &TestServer, path: &str, body: &Value) -> (u16, Value) {
    let response = raw_client()
        .patch(server.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("PATCH");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("PATCH {path}: {e}: {text}")),
    )
}

fn ids_of(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("array")
        .iter()
        .map(|r| r["id"].as_str().expect("string id").to_owned())
        .collect()
}

#[tokio::test]
async fn an_agent_session_lists_patches_polls_and_drills_down() {
    let (server, _db) = start("session").await;

    // 1. The agent lists events compactly and reads ids beside the lines.
    let compact = get_json(&server, "/api/v1/events?format=compact&limit=5").await;
    assert_eq!(compact["format"], "compact", "{compact}");
    let lines = compact["lines"].as_array().expect("lines");
    let ids = compact["ids"].as_array().expect("ids");
    assert_eq!((lines.len(), ids.len()), (5, 5));
    let total = compact["meta"]["total"].as_u64().expect("total");
    assert_eq!(compact["summary"], format!("5 of {total} events"));
    assert_eq!(compact["meta"]["has_more"], true);
    let json = get_json(&server, "/api/v1/events?limit=5").await;
    let json_ids: Vec<Value> = json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, &json_ids, "ids are the records' ids, in order");
    for (line, record) in lines.iter().zip(json["data"].as_array().unwrap()) {
        let line = line.as_str().unwrap();
        let title = record["title"].as_str().unwrap();
        assert!(line.contains(title), "{line:?} names {title:?}");
        assert!(
            line.starts_with(&record["start_at"].as_str().unwrap()[..10]),
            "{line:?}"
        );
    }

    // 2. A first poll gives the stamp to poll from; nothing has changed yet.
    let first = get_json(&server, "/api/v1/events?since=2026-02-18T00:00:00Z").await;
    assert_eq!(first["meta"]["total_changes"], 0, "{first}");
    let stamp = first["meta"]["response_timestamp"]
        .as_str()
        .expect("stamp")
        .to_owned();

    // 3. It acts on one id from `ids`.
    let id = ids[2].as_str().expect("string id").to_owned();
    let change = json!({"title": "Standup (moved)", "location": "Sala 2", "status": "tentative"});
    let (status, patched) = patch(&server, &format!("/api/v1/events/{id}"), &change).await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(patched["title"], "Standup (moved)");
    assert_eq!(patched["location"], "Sala 2");
    assert_eq!(patched["status"], "tentative");
    assert!(
        patched["updated_at"].as_str().unwrap() > stamp.as_str(),
        "{patched}"
    );

    // 4. Polling from the stamp sees that change exactly once, as an update.
    let since = format!("/api/v1/events?since={stamp}");
    let changes = get_json(&server, &since).await;
    assert_eq!(changes["meta"]["total_changes"], 1, "{changes}");
    assert_eq!(ids_of(&changes["data"]["updated"]), [id.as_str()]);
    assert_eq!(changes["data"]["created"], json!([]));
    assert_eq!(changes["data"]["deleted"], json!([]));
    assert_eq!(changes["data"]["updated"][0]["title"], "Standup (moved)");
    let compact_changes = get_json(&server, &format!("{since}&format=compact")).await;
    assert_eq!(compact_changes["ids"], json!([id]), "{compact_changes}");
    let line = compact_changes["lines"][0].as_str().expect("line");
    assert!(
        line.starts_with("~ ") && line.contains("Standup (moved) [Sala 2]"),
        "{line:?}"
    );

    // ...and polling again from the new stamp does not see it again.
    let next = changes["meta"]["response_timestamp"]
        .as_str()
        .expect("stamp");
    let again = get_json(&server, &format!("/api/v1/events?since={next}")).await;
    assert_eq!(again["meta"]["total_changes"], 0, "{again}");
    assert!(again["meta"]["response_timestamp"].as_str().unwrap() > next);

    // 5. It drills down: the detail is the full record, changed.
    let detail = get_json(&server, &format!("/api/v1/events/{id}")).await;
    assert_eq!(detail, patched);
    assert_eq!(
        detail.as_object().unwrap().len(),
        19,
        "every field: {detail}"
    );
    assert_eq!(
        detail["updated_at"],
        changes["data"]["updated"][0]["updated_at"]
    );
}

#[tokio::test]
async fn every_resource_lists_pages_and_answers_errors_in_the_envelope() {
    let (server, _db) = start("resources").await;
    for resource in ["events", "notes", "emails", "contacts", "files", "diary"] {
        let page = get_json(&server, &format!("/api/v1/{resource}")).await;
        let data = page["data"].as_array().expect("data");
        assert_eq!(data.len(), 20, "default limit on {resource}");
        assert_eq!(page["meta"]["limit"], 20);
        assert_eq!(page["meta"]["offset"], 0);
        let total = page["meta"]["total"].as_u64().unwrap();
        assert!(total > 20, "{resource} has {total}");

        // Pages do not overlap, and the last one is short.
        let second = get_json(&server, &format!("/api/v1/{resource}?limit=20&offset=20")).await;
        let first_ids = ids_of(&page["data"]);
        assert!(
            ids_of(&second["data"])
                .iter()
                .all(|id| !first_ids.contains(id))
        );
        let last = get_json(
            &server,
            &format!("/api/v1/{resource}?limit=100&offset={}", total - 3),
        )
        .await;
        assert_eq!(last["data"].as_array().unwrap().len(), 3);

        // Compact applies to every list.
        let compact = get_json(
            &server,
            &format!("/api/v1/{resource}?format=compact&limit=3"),
        )
        .await;
        assert_eq!(compact["format"], "compact", "{resource}: {compact}");
        assert_eq!(compact["ids"], json!(first_ids[..3]));

        // Details by id, full; unknown ids are 404 in the envelope.
        let id = &first_ids[0];
        let detail = get_json(&server, &format!("/api/v1/{resource}/{id}")).await;
        assert_eq!(detail, page["data"][0]);
        let (status, content_type, body) =
            get(&server, &format!("/api/v1/{resource}/no-such-id")).await;
        assert_eq!((status, content_type.as_str()), (404, "application/json"));
        let error: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["error"]["code"], "not_found");
        assert!(error["error"]["hint"].is_string());
    }

    // The limit is capped at 100; bad pagination and bad `since` are 400s.
    let capped = get_json(&server, "/api/v1/emails?limit=500").await;
    assert_eq!(capped["meta"]["limit"], 100);
    for bad in [
        "/api/v1/notes?limit=abc",
        "/api/v1/notes?limit=0",
        "/api/v1/notes?offset=-1",
        "/api/v1/notes?since=yesterday",
        "/api/v1/notes?since=2026-02-30T00:00:00Z",
        "/api/v1/search",
        "/api/v1/search?q=%20",
    ] {
        let (status, content_type, body) = get(&server, bad).await;
        assert_eq!(
            (status, content_type.as_str()),
            (400, "application/json"),
            "{bad}: {body}"
        );
        let error: Value = serde_json::from_str(&body).unwrap();
        for key in ["code", "message", "hint"] {
            assert!(error["error"][key].is_string(), "{bad}: {body}");
        }
    }
    let (status, _, body) = get(&server, "/api/v1/nothing-here").await;
    assert_eq!(status, 404, "{body}");

    // PATCH refuses what it cannot apply, and leaves the record alone.
    let id = ids_of(&get_json(&server, "/api/v1/events?limit=1").await["data"])[0].clone();
    let before = get_json(&server, &format!("/api/v1/events/{id}")).await;
    for body in [
        json!({"status": "maybe"}),
        json!({"name": "typo"}),
        json!({"start_at": "2026-03-01T10:00:00Z", "end_at": "2026-03-01T09:00:00Z"}),
        json!({"title": "  "}),
    ] {
        let (status, error) = patch(&server, &format!("/api/v1/events/{id}"), &body).await;
        assert_eq!(status, 400, "{body}");
        assert!(error["error"]["message"].is_string(), "{error}");
    }
    assert_eq!(
        get_json(&server, &format!("/api/v1/events/{id}")).await,
        before
    );
    let (status, _) = patch(&server, "/api/v1/events/no-such-id", &json!({"title": "x"})).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn search_finds_every_kind_and_polls_too() {
    let (server, _db) = start("search").await;
    let hits = get_json(&server, "/api/v1/search?q=budget&limit=100").await;
    let results = hits["data"].as_array().unwrap();
    assert_eq!(
        hits["meta"]["total"].as_u64().unwrap() as usize,
        results.len()
    );
    let mut kinds: Vec<&str> = results
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert!(kinds.len() >= 4, "budget is found in {kinds:?}");
    // Best first: scores never increase down the list.
    let scores: Vec<i64> = results
        .iter()
        .map(|r| r["score"].as_i64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // Each hit's url is its detail.
    let url = results[0]["url"].as_str().unwrap();
    assert_eq!(get_json(&server, url).await["id"], results[0]["id"]);

    let compact = get_json(&server, "/api/v1/search?q=budget&limit=3&format=compact").await;
    assert_eq!(compact["format"], "compact", "{compact}");
    let first = compact["lines"][0].as_str().unwrap();
    let best = &results[0];
    let want = format!(
        "{} {}: {}",
        best["kind"].as_str().unwrap(),
        &best["updated_at"].as_str().unwrap()[..10],
        best["title"].as_str().unwrap()
    );
    assert_eq!(first, want);

    let polled = get_json(
        &server,
        "/api/v1/search?q=budget&since=2026-01-01T00:00:00Z",
    )
    .await;
    assert!(
        polled["meta"]["total_changes"].as_u64().unwrap() > 0,
        "{polled}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_report_counts_real_responses() {
    let (server, _db) = start("report").await;
    let base = format!("http://{}", server.addr());
    let endpoints = terse_bin::report::agent_api_endpoints();
    let measured = {
        let (base, endpoints) = (base.clone(), endpoints.clone());
        tokio::task::spawn_blocking(move || terse_bin::report::measure(&base, &endpoints))
            .await
            .unwrap()
            .expect("report")
    };
    assert_eq!(measured.rows.len(), 7);

    use terse_bin::report::{Asked, url};
    for row in &measured.rows {
        for (asked, sample) in [
            (Asked::Json, &row.json),
            (Asked::Toon, &row.toon),
            (Asked::Compact, &row.compact),
        ] {
            let response = raw_client()
                .get(url(&base, &row.path, asked))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200);
            let body = response.text().await.unwrap();
            assert_eq!(sample.bytes, body.len(), "{} {:?}", row.name, asked);
            assert_eq!(
                sample.tokens,
                tower_terse::tokens::exact(&body),
                "{} {:?}",
                row.name,
                asked
            );
        }
        assert!(row.compact.content_type.starts_with("application/json"));
        // The smart fallback: TOON never costs more than the JSON.
        assert!(row.toon.tokens <= row.json.tokens, "{row:?}");
    }
    // The goal the example exists to show: compact lines at least 80% cheaper.
    assert!(
        measured.mean_compact_reduction() >= 80.0,
        "{}",
        measured.table()
    );
    let table = measured.table();
    for row in &measured.rows {
        assert!(
            table.contains(&format!("{:<10} {:>6}", row.name, row.json.tokens)),
            "{table}"
        );
    }
}

/// What a response says to an agent: status, content type, `X-Token-Count`
/// and body.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: Option<String>,
    token_count: Option<String>,
    body: String,
}

async fn answer(client: &reqwest::Client, url: String, version: reqwest::Version) -> Answer {
    let response = client.get(&url).send().await.expect("GET");
    assert_eq!(response.version(), version, "{url}");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_owned())
    };
    let (content_type, token_count) = (header("content-type"), header("x-token-count"));
    Answer {
        status: response.status().as_u16(),
        content_type,
        token_count,
        body: response.text().await.expect("body"),
    }
}

#[tokio::test]
async fn an_http2_agent_gets_what_an_http1_agent_gets() {
    let (server, _db) = start("h2c").await;
    let (h1, h2) = (raw_client(), raw_h2c_client());
    let id = ids_of(&get_json(&server, "/api/v1/events?limit=1").await["data"])[0].clone();
    // Flat rows, where TOON is cheaper than the JSON and so is served.
    let toon = "/api/v1/events?limit=5&fields=title,start_at,location&format=toon";
    let compact = "/api/v1/notes?limit=5&format=compact";
    let json = "/api/v1/contacts?limit=5";
    let detail = format!("/api/v1/events/{id}");
    let missing = "/api/v1/events/no-such-id";
    for path in [toon, compact, json, &detail, missing] {
        let over_h2 = answer(&h2, server.url(path), reqwest::Version::HTTP_2).await;
        let over_h1 = answer(&h1, server.url(path), reqwest::Version::HTTP_11).await;
        assert_eq!(over_h2, over_h1, "{path}");

        let Answer {
            status,
            content_type,
            token_count,
            body,
        } = over_h2;
        let content_type = content_type.unwrap_or_default();
        if path == missing {
            assert_eq!((status, content_type.as_str()), (404, "application/json"));
            let error: Value = serde_json::from_str(&body).expect("JSON error");
            assert_eq!(error["error"]["code"], "not_found", "{body}");
            continue;
        }
        assert_eq!(status, 200, "{path}: {body}");
        let tokens: usize = token_count
            .unwrap_or_else(|| panic!("{path}: no X-Token-Count"))
            .parse()
            .expect("a count");
        assert!(tokens > 0, "{path}");
        if path == toon {
            assert!(content_type.starts_with("text/toon"), "{content_type}");
            assert!(body.starts_with("data[5]{"), "{body}");
        } else {
            assert!(
                content_type.starts_with("application/json"),
                "{content_type}"
            );
            let value: Value = serde_json::from_str(&body).expect("JSON");
            if path == compact {
                assert_eq!(value["format"], "compact", "{body}");
                assert_eq!(value["lines"].as_array().map(Vec::len), Some(5));
            }
        }
    }
}

#[tokio::test]
async fn a_browser_agent_reads_the_token_count_through_cors() {
    use axum::http::HeaderName;
    use tower_http::cors::{Any, CorsLayer};

    // The README's setup: `CorsLayer` outside the layer.
    let db = TempDb::new("cors");
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_headers([HeaderName::from_static("x-prefer-format")])
        .expose_headers([HeaderName::from_static("x-token-count")]);
    let app = agent_api::app(agent_api::Db::open(db.path()).expect("open database")).layer(cors);
    let server = TestServer::spawn(app).await;

    let response = raw_client()
        .get(server.url("/api/v1/events?limit=3&fields=title,start_at&format=toon"))
        .header("origin", "http://agent.example")
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status().as_u16(), 200);
    let headers = response.headers();
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/toon")
    );
    assert!(headers.contains_key("x-token-count"), "{headers:?}");
    assert_eq!(headers["access-control-allow-origin"], "*");
    assert_eq!(headers["access-control-expose-headers"], "x-token-count");
    let vary: Vec<&str> = headers
        .get_all("vary")
        .iter()
        .flat_map(|v| v.to_str().unwrap().split(','))
        .map(str::trim)
        .collect();
    for name in ["Accept", "X-Prefer-Format", "origin"] {
        assert!(
            vary.iter().any(|v| v.eq_ignore_ascii_case(name)),
            "{name} in {vary:?}"
        );
    }

    // The preflight for `X-Prefer-Format` is answered by `CorsLayer`.
    let preflight = raw_client()
        .request(reqwest::Method::OPTIONS, server.url("/api/v1/events"))
        .header("origin", "http://agent.example")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "x-prefer-format")
        .send()
        .await
        .expect("OPTIONS");
    assert_eq!(preflight.status().as_u16(), 200);
    assert_eq!(
        preflight.headers()["access-control-allow-headers"],
        "x-prefer-format"
    );
}
