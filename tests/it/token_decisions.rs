//! The smart fallback serves the format with fewer exact o200k_base tokens,
//! on every document the project has: the realistic responses of
//! `tests/corpus`, the JSON samples of the estimator corpus, agent-api's
//! lists, records and sparse fieldsets, and the JSON bodies the README
//! shows; each in every JSON formatting real services emit (minified,
//! Python's and Django's default separators, with and without their ASCII
//! escapes, pretty-printed with 2 or 4 spaces or tabs, CRLF line ends).
//!
//! There are three candidates: the JSON as written, the same JSON minified
//! (its insignificant whitespace dropped, every other byte kept) and TOON.
//! Each document is checked twice: `tokens::choose` of the minified JSON
//! and the TOON against the exact counts (with the minified JSON never
//! taking more exact tokens than the JSON as written, which is why the
//! layer weighs TOON against it), and the layer on a real server on
//! loopback, asked with `?format=toon` by a real client, whose answer must
//! be the cheapest text: the JSON exactly as the handler wrote it when it
//! has nothing to drop, else the same minified, or the TOON.

use axum::Router;
use axum::routing::get;
use serde_json::Value;
use terse_tests::json_formats::{FORMATTINGS, minify};
use terse_tests::server::{TestServer, raw_client};
use terse_toon::EncodeOptions;
use tower_terse::TerseLayer;
use tower_terse::tokens::{Counting, Served, choose, estimates, exact, record_cuts};

/// A document's JSON in one formatting and its TOON.
struct Case {
    name: String,
    formatting: &'static str,
    /// The JSON as the handler writes it.
    json: String,
    /// The same minified.
    minified: String,
    toon: String,
}

impl Case {
    /// TOON, or the minified JSON (a tie goes to JSON).
    fn cheaper(&self) -> Served {
        if exact(&self.toon) < exact(&self.minified) {
            Served::Toon
        } else {
            Served::Json
        }
    }

    /// The text the layer must serve: the fewest exact tokens of the
    /// three, the JSON as written when minifying drops nothing.
    fn cheapest(&self) -> &str {
        match self.cheaper() {
            Served::Toon => &self.toon,
            Served::Json => &self.minified,
        }
    }
}

/// One case per formatting of `value`.
fn cases(name: &str, value: &Value) -> Vec<Case> {
    let toon = terse_toon::encode(value, &EncodeOptions::default());
    FORMATTINGS
        .iter()
        .map(|&(formatting, write)| {
            let json = write(value);
            Case {
                name: name.to_owned(),
                formatting,
                minified: minify(&json),
                json,
                toon: toon.clone(),
            }
        })
        .collect()
}

/// Checks `choose` on every case: no wrong decision. Prints, per
/// formatting, how many decisions needed exact counts (and how many of
/// those stopped before counting both texts whole), and how far the
/// difference of the two estimates was from the difference of the exact
/// counts (as a share of the larger estimate, the unit of the tie band):
/// the two renderings share every value, yet their estimates do not err
/// alike enough for a band narrower than the one per text.
fn check_choices(cases: &[Case]) {
    let mut wrong = Vec::new();
    println!(
        "{:<9} {:>5} {:>15} {:>13} {:>15}",
        "format", "docs", "counted exactly", "stopped early", "paired err max"
    );
    for (formatting, _) in FORMATTINGS {
        let (mut docs, mut counted, mut early, mut paired) = (0, 0, 0, 0f64);
        for case in cases.iter().filter(|c| c.formatting == formatting) {
            let choice = choose(&case.minified, &case.toon, Counting::Estimate);
            docs += 1;
            counted += usize::from(choice.decided_exactly);
            early += usize::from(choice.decided_exactly && !choice.exact);
            let (json, toon) = estimates(&case.minified, &case.toon);
            let estimated = toon as f64 - json as f64;
            let exactly = exact(&case.toon) as f64 - exact(&case.minified) as f64;
            paired = paired.max((estimated - exactly).abs() / json.max(toon).max(1) as f64);
            let (written, minified, toon) =
                (exact(&case.json), exact(&case.minified), exact(&case.toon));
            if choice.served != case.cheaper() || minified > written {
                wrong.push(format!(
                    "{} ({formatting}): JSON {written} exact tokens, minified {minified}, \
                     TOON {toon} ({choice:?})",
                    case.name,
                ));
            }
        }
        println!(
            "{formatting:<9} {docs:>5} {counted:>7} ({:>4.1}%) {early:>13} {:>14.1}%",
            100.0 * counted as f64 / docs as f64,
            100.0 * paired
        );
    }
    assert!(
        wrong.is_empty(),
        "{} wrong decisions:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Checks the bands a long near tie is counted in stages with (see
/// `tokens::choose`), on every near tie here whatever its length, each rest
/// estimated alone (minified and Python-escaped JSON only: the other
/// formattings minify to the minified text):
/// - each text cut at every eighth where a piece starts: the estimated
///   difference of the two rests is no further from the exact difference
///   than the estimator's band on each rest, added (8% of the two rests'
///   estimates, plus 4);
/// - both texts cut after the first key of the same record of a list
///   (`record_cuts`): the rests are renderings of the same records, and the
///   difference is no further from the exact one than a near tie's band
///   (8% of the larger rest, plus 4). The exact counts of the two sides of
///   each cut add up to the text's.
fn check_stages(cases: &[Case]) {
    // Where o200k_base starts a piece whatever surrounds it, as the staged
    // count cuts: after an ASCII letter or digit, before `"`, `,`, `:` or a
    // line break.
    let cut = |text: &str, share: usize| {
        let bytes = text.as_bytes();
        (bytes.len() * share / 8..bytes.len() * (share + 1) / 8).find(|&at| {
            at > 0
                && bytes[at - 1].is_ascii_alphanumeric()
                && matches!(bytes[at], b'"' | b',' | b':' | b'\n')
        })
    };
    // How far the estimated difference of the rests after `json_at` and
    // `toon_at` is from the exact one, and the two rests' estimates.
    let error = |case: &Case, json_at: usize, toon_at: usize| {
        let (json_rest, toon_rest) = (&case.minified[json_at..], &case.toon[toon_at..]);
        let (json_estimate, toon_estimate) = estimates(json_rest, toon_rest);
        let error = (toon_estimate as i64 - json_estimate as i64)
            - (exact(toon_rest) as i64 - exact(json_rest) as i64);
        (error, json_estimate, toon_estimate)
    };
    let (mut checked, mut closest) = (0, i64::MAX);
    let (mut record_ties, mut records, mut record_closest) = (0, 0, i64::MAX);
    for case in cases
        .iter()
        .filter(|c| matches!(c.formatting, "minified" | "python"))
    {
        if !choose(&case.minified, &case.toon, Counting::Estimate).decided_exactly {
            continue;
        }
        for share in 1..8 {
            let (Some(json_at), Some(toon_at)) =
                (cut(&case.minified, share), cut(&case.toon, share))
            else {
                continue;
            };
            let (error, json_estimate, toon_estimate) = error(case, json_at, toon_at);
            let band = ((json_estimate + toon_estimate) * 8 / 100 + 4) as i64;
            assert!(
                error.abs() <= band,
                "{} ({}), cut at {share}/8: the rests' difference is off by {error}, band {band}",
                case.name,
                case.formatting
            );
            checked += 1;
            closest = closest.min(band - error.abs());
        }
        let cuts: Vec<_> = record_cuts(&case.minified, &case.toon).collect();
        record_ties += usize::from(!cuts.is_empty());
        let (json_whole, toon_whole) = (exact(&case.minified), exact(&case.toon));
        for (json_at, toon_at) in cuts {
            let (json_head, toon_head) = (&case.minified[..json_at], &case.toon[..toon_at]);
            let (json_rest, toon_rest) = (&case.minified[json_at..], &case.toon[toon_at..]);
            assert_eq!(
                exact(json_head) + exact(json_rest),
                json_whole,
                "{}",
                case.name
            );
            assert_eq!(
                exact(toon_head) + exact(toon_rest),
                toon_whole,
                "{}",
                case.name
            );
            let (error, json_estimate, toon_estimate) = error(case, json_at, toon_at);
            let band = (json_estimate.max(toon_estimate) * 8 / 100 + 4) as i64;
            assert!(
                error.abs() <= band,
                "{} ({}), cut at a record ({json_at}, {toon_at}): the rests' difference is \
                 off by {error}, band {band}",
                case.name,
                case.formatting
            );
            records += 1;
            record_closest = record_closest.min(band - error.abs());
        }
    }
    println!("staged band: {checked} cuts of near ties, the closest {closest} tokens inside");
    println!(
        "paired band: {records} cuts at records of {record_ties} near ties, the closest \
         {record_closest} tokens inside"
    );
    assert!(checked > 1000, "only {checked} cuts");
    assert!(records > 500, "only {records} cuts at records");
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
        let response = client
            .get(server.url(&format!("/doc/{index}?format=toon")))
            .send()
            .await
            .expect("GET");
        let format = response.headers()["x-response-format"]
            .to_str()
            .expect("ASCII")
            .to_owned();
        let body = response.text().await.expect("body");
        assert_eq!(
            body,
            case.cheapest(),
            "{} ({}): served the costlier format",
            case.name,
            case.formatting
        );
        let minified = body != case.json && case.cheaper() == Served::Json;
        assert_eq!(
            format.contains("; minified"),
            minified,
            "{} ({}): {format}",
            case.name,
            case.formatting
        );
    }
}

fn corpus_cases() -> Vec<Case> {
    terse_tests::corpus::documents()
        .iter()
        .flat_map(|doc| cases(&format!("corpus/{}", doc.name), &doc.value))
        .collect()
}

/// The JSON samples of the estimator's corpus (eleven languages).
fn token_corpus_cases() -> Vec<Case> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/terse-tokens/tests/data/tokens");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("token corpus")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .flat_map(|path| {
            let value: Value =
                serde_json::from_slice(&std::fs::read(path).expect("sample")).expect("JSON");
            cases(&path.file_name().unwrap().to_string_lossy(), &value)
        })
        .collect()
}

/// Every JSON body the README and the `docs/` pages show in a console block.
fn readme_cases() -> Vec<Case> {
    terse_tests::docs::text()
        .lines()
        .filter(|line| line.starts_with('{') || line.starts_with('['))
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .enumerate()
        .flat_map(|(i, value)| cases(&format!("README body {i}"), &value))
        .collect()
}

/// agent-api's lists (several sizes and sparse fieldsets) and records.
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
    let mut all = Vec::new();
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
                all.extend(cases(&format!("{resource}/{id}"), &record));
            }
            all.extend(cases(&path, &value));
        }
    }
    all.extend(cases(
        "search",
        &get("/api/v1/search?q=review&limit=10&format=json".to_owned()).await,
    ));
    all
}

#[tokio::test]
async fn the_fallback_serves_the_format_with_fewer_exact_tokens_everywhere() {
    let mut cases = corpus_cases();
    cases.extend(token_corpus_cases());
    cases.extend(readme_cases());
    cases.extend(agent_api_cases().await);
    assert!(cases.len() >= 700, "only {} documents", cases.len());
    check_choices(&cases);
    check_stages(&cases);
    check_served(&cases).await;
}
