//! The cheapest faithful form through `terse gateway`: in front of a Python
//! service that writes every document of `tests/corpus` and five lists of
//! 50 API records (issues, orders, products, charges, log rows) with
//! `json.dumps` (`indent=2`, Python's `", "` separators with ASCII escapes,
//! and minified), a client asking `?format=toon` gets at most as many
//! exact o200k_base tokens as the smaller of the same JSON minified and
//! its TOON, in a body that reads back to the same value; a plain request
//! gets the service's bytes. The headers follow the body sent:
//! `X-Token-Count`, `Content-Length`, `X-Response-Format` (`; minified`),
//! the relabelled weak `ETag`; `HEAD` says what `GET` does.
//!
//! Prints the table of the five lists as the gateway serves them, in exact
//! tokens, beside the JSON as written and as the choice between it and
//! TOON alone would serve it.

use std::path::Path;

use serde_json::Value;
use terse_tests::json_formats::minify;
use terse_tests::python::{PythonUpstream, spawn_gateway};
use terse_tests::server::raw_client;
use terse_tests::values::difference;
use tower_terse::tokens::{Counting, choose, estimate, exact};

/// What one GET or HEAD answered.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

async fn fetch(method: reqwest::Method, url: &str) -> Answer {
    let response = raw_client()
        .request(method, url)
        .send()
        .await
        .unwrap_or_else(|err| panic!("{url}: {err}"));
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.text().await.expect("body"),
    }
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().expect("ASCII"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3; run with --include-ignored (.ci/run does)"]
async fn toon_requests_get_the_cheapest_of_json_minified_and_toon() {
    let upstream =
        PythonUpstream::start_framework(Path::new("python3"), "formatted_upstream.py", &[]);
    let (gateway, _task) = spawn_gateway("[gateway]\n", &upstream.url()).await;
    let names: Vec<String> = serde_json::from_str(
        &fetch(reqwest::Method::GET, &format!("{}/names", upstream.url()))
            .await
            .body,
    )
    .expect("names");
    assert!(names.len() >= 20, "{names:?}");
    let mut table = String::from(
        "| document | style | JSON as written | JSON minified | TOON | before | served |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let (mut minified_served, mut toon_served) = (0, 0);
    for name in &names {
        for style in ["indent2", "python", "minified"] {
            let path = format!("/doc/{name}/{style}");
            let own = fetch(reqwest::Method::GET, &format!("{}{path}", upstream.url())).await;
            assert_eq!(own.status, 200, "{path}");
            let value: Value = serde_json::from_str(&own.body).expect("JSON");

            // A plain request: the service's bytes.
            let plain = fetch(reqwest::Method::GET, &format!("{gateway}{path}")).await;
            assert_eq!(plain.body, own.body, "{path}: plain");
            assert_eq!(plain.header("etag"), own.header("etag"), "{path}");

            let url = format!("{gateway}{path}?format=toon");
            let got = fetch(reqwest::Method::GET, &url).await;
            assert_eq!(got.status, 200, "{path}");
            let minified = minify(&own.body);
            let toon = terse_toon::encode(&value, &Default::default());
            let (written, min, toon_tokens) = (exact(&own.body), exact(&minified), exact(&toon));
            let served = exact(&got.body);
            assert!(
                served <= min.min(toon_tokens),
                "{path}: served {served} tokens, minified JSON {min}, TOON {toon_tokens}"
            );
            let format = got.header("x-response-format").expect("format").to_owned();
            let is_toon = got
                .header("content-type")
                .is_some_and(|t| t.starts_with("text/toon"));
            let read: Value = if is_toon {
                toon_served += 1;
                assert_eq!(format, "toon", "{path}");
                terse_toon::decode(&got.body, &Default::default()).expect("TOON")
            } else {
                serde_json::from_str(&got.body).expect("JSON")
            };
            assert_eq!(difference(&read, &value), None, "{path}");
            if !is_toon {
                // JSON: the service's bytes, minified when they had
                // whitespace to drop, and the header says which.
                assert_eq!(got.body, minified, "{path}");
                let was_minified = got.body != own.body;
                minified_served += usize::from(was_minified);
                let want = if was_minified {
                    "json; minified; fallback=not-cheaper"
                } else {
                    "json; fallback=not-cheaper"
                };
                assert_eq!(format, want, "{path}");
            }
            // The headers follow the body sent: its exact count, its
            // estimate, or, for a long near tie settled in stages, the
            // choice's count (exact for the slices counted, estimated for
            // the rest).
            let count: usize = got.header("x-token-count").expect("count").parse().unwrap();
            let staged = choose(&minified, &toon, Counting::Estimate);
            assert!(
                count == served
                    || count == estimate(got.body.as_bytes())
                    || (!staged.exact && count == staged.served_tokens()),
                "{path}: X-Token-Count {count}, body {served} exact, choice {staged:?}"
            );
            assert_eq!(
                got.header("content-length"),
                Some(got.body.len().to_string().as_str()),
                "{path}"
            );
            let own_tag = own.header("etag").expect("etag");
            let suffix = match (is_toon, got.body == own.body) {
                (true, _) => Some("-toon"),
                (false, false) => Some("-json-min"),
                (false, true) => None,
            };
            let tag = got.header("etag").expect("etag");
            match suffix {
                Some(suffix) => assert_eq!(
                    tag,
                    format!("W/{}{suffix}\"", own_tag.trim_end_matches('"')),
                    "{path}"
                ),
                None => assert_eq!(tag, own_tag, "{path}"),
            }
            let head = fetch(reqwest::Method::HEAD, &url).await;
            assert!(head.body.is_empty(), "{path}: HEAD has no body");
            for name in [
                "content-type",
                "content-length",
                "x-token-count",
                "x-response-format",
                "etag",
            ] {
                assert_eq!(head.header(name), got.header(name), "{path}: HEAD {name}");
            }
            if let Some(list) = name.strip_prefix("list-") {
                let before = written.min(toon_tokens);
                table.push_str(&format!(
                    "| {list} | {style} | {written} | {min} | {toon_tokens} | {before} | {served} |\n"
                ));
            }
        }
    }
    // Both forms win somewhere: nested records minified, flat rows TOON.
    assert!(minified_served > 0 && toon_served > 0);
    eprintln!("{table}");
}
