//! The smart fallback serves the format with fewer exact o200k_base tokens,
//! on every document the project has: the realistic responses of
//! `tests/corpus`, agent-api's lists, records and sparse fieldsets, and the
//! JSON bodies the README shows.
//!
//! Each document is checked twice: `tokens::choose` against the exact
//! counts, and the layer on a real server on loopback, asked with
//! `?format=toon` by a real client, whose answer must be the cheaper text.

use axum::Router;
use axum::routing::get;
use serde_json::Value;
use terse_tests::server::{TestServer, raw_client};
use terse_toon::EncodeOptions;
use tower_terse::TerseLayer;
use tower_terse::tokens::{Counting, Served, choose, exact};

/// A document's compact JSON and its TOON, and which has fewer exact tokens
/// (a tie goes to JSON).
struct Case {
    name: String,
    json: String,
    toon: String,
}

impl Case {
    fn new(name: impl Into<String>, value: &Value) -> Case {
        Case {
            name: name.into(),
            json: value.to_string(),
            toon: terse_toon::encode(value, &EncodeOptions::default()),
        }
    }

    fn cheaper(&self) -> Served {
        if exact(&self.toon) < exact(&self.json) {
            Served::Toon
        } else {
            Served::Json
        }
    }
}

/// Checks `choose` on every case and returns how many were near ties.
fn check_choices(cases: &[Case]) -> usize {
    let mut near_ties = 0;
    for case in cases {
        let choice = choose(&case.json, &case.toon, Counting::Estimate);
        near_ties += usize::from(choice.decided_exactly);
        assert_eq!(
            choice.served,
            case.cheaper(),
            "{}: JSON {} exact tokens, TOON {} ({choice:?})",
            case.name,
            exact(&case.json),
            exact(&case.toon),
        );
    }
    near_ties
}

/// Serves each case's JSON behind the default layer and checks what
/// `?format=toon` answers.
async fn check_served(cases: &[Case]) {
    let mut router = Router::new();
    for (index, case) in cases.iter().enumerate() {
        let body = case.json.clone();
        router = router.route(
            &format!("/doc/{index}"),
            get(move || async move { ([("content-type", "application/json")], body) }),
        );
    }
    let server = TestServer::spawn(router.layer(TerseLayer::new())).await;
    let client = raw_client();
    for (index, case) in cases.iter().enumerate() {
        let body = client
            .get(server.url(&format!("/doc/{index}?format=toon")))
            .send()
            .await
            .expect("GET")
            .text()
            .await
            .expect("body");
        let want = match case.cheaper() {
            Served::Toon => &case.toon,
            Served::Json => &case.json,
        };
        assert_eq!(&body, want, "{}: served the costlier format", case.name);
    }
}

fn corpus_cases() -> Vec<Case> {
    terse_tests::corpus::documents()
        .iter()
        .map(|doc| Case::new(format!("corpus/{}", doc.name), &doc.value))
        .collect()
}

/// Every JSON body the README shows in a console block.
fn readme_cases() -> Vec<Case> {
    let readme = include_str!("../../README.md");
    readme
        .lines()
        .filter(|line| line.starts_with('{') || line.starts_with('['))
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .enumerate()
        .map(|(i, value)| Case::new(format!("README body {i}"), &value))
        .collect()
}

/// agent-api's lists (several sizes and sparse fieldsets) and records, as
/// JSON.
async fn agent_api_cases() -> Vec<Case> {
    let db = agent_api::Db::open_in_memory().expect("database");
    let server = TestServer::spawn(agent_api::app(db)).await;
    let client = raw_client();
    let get = |path: String| {
        let client = client.clone();
        let url = server.url(&path);
        async move {
            let response = client.get(url).send().await.expect("GET");
            assert_eq!(response.status().as_u16(), 200, "{path}");
            let text = response.text().await.expect("body");
            serde_json::from_str::<Value>(&text).expect("JSON")
        }
    };
    let mut cases = Vec::new();
    for resource in ["events", "notes", "emails", "contacts", "files", "diary"] {
        for query in [
            "limit=1",
            "limit=3",
            "limit=10",
            "limit=50",
            "limit=3&fields=title,start_at,location",
            "limit=10&fields=id",
            "limit=5&fields=name,email",
        ] {
            let path = format!("/api/v1/{resource}?{query}&format=json");
            let value = get(path.clone()).await;
            if let Some(first) = value["data"].as_array().and_then(|d| d.first()) {
                let id = first["id"].as_str().expect("id").to_owned();
                let record = get(format!("/api/v1/{resource}/{id}?format=json")).await;
                cases.push(Case::new(format!("{resource}/{id}"), &record));
            }
            cases.push(Case::new(path, &value));
        }
    }
    cases.push(Case::new(
        "search",
        &get("/api/v1/search?q=review&limit=10&format=json".to_owned()).await,
    ));
    cases
}

#[tokio::test]
async fn the_fallback_serves_the_format_with_fewer_exact_tokens_everywhere() {
    let mut cases = corpus_cases();
    cases.extend(readme_cases());
    cases.extend(agent_api_cases().await);
    assert!(cases.len() >= 100, "only {} documents", cases.len());
    let near_ties = check_choices(&cases);
    println!(
        "{} documents, {near_ties} near ties settled on exact counts, every choice right",
        cases.len()
    );
    check_served(&cases).await;
}
