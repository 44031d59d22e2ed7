//! Every token figure the README and the `docs/` pages quote, recomputed:
//! a figure that no longer matches what the code counts fails here, with the
//! figure they should say.
//!
//! The figures come from the bodies the README shows (counted with
//! `tokens::estimate` and `tokens::exact`), from agent-api on a real server
//! (`terse report`, and the sparse-fieldset example through the layer), and
//! from `terse stats`'s renderings of `tests/corpus/orders.json`.

use serde_json::Value;
use terse_tests::server::{TestServer, raw_client};
use terse_toon::{Delimiter, EncodeOptions};
use tower_terse::tokens::{estimate, exact};

/// The README and the `docs/` pages, as one text.
fn readme() -> &'static str {
    terse_tests::docs::text()
}

/// The README with every run of whitespace made one space, so that a
/// sentence reads the same wherever its lines break.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sentences the README should say and does not, all reported at once.
#[derive(Default)]
struct Check(Vec<String>);

impl Check {
    /// Notes `sentence` unless the README says it (whitespace aside).
    fn says(&mut self, sentence: &str) {
        if !flat(readme()).contains(&flat(sentence)) {
            self.0.push(sentence.to_owned());
        }
    }

    fn finish(self) {
        assert!(
            self.0.is_empty(),
            "the README or a docs/ page should say:\n{}",
            self.0.join("\n")
        );
    }
}

/// The first line of the README or a `docs/` page that starts with `start`.
fn line_starting(start: &str) -> &'static str {
    readme()
        .lines()
        .find(|line| line.starts_with(start))
        .unwrap_or_else(|| panic!("no README or docs/ line starts with {start}"))
}

/// The body of the console block whose command line contains `command`:
/// after the headers (`-i`) or the command, up to the closing fence.
fn shown_body(command: &str) -> String {
    let mut lines = readme()
        .lines()
        .skip_while(|line| !(line.starts_with("$ ") && line.contains(command)))
        .skip(1)
        .peekable();
    if lines.peek().is_some_and(|line| line.starts_with("HTTP/")) {
        lines.by_ref().find(|line| line.is_empty());
    }
    lines
        .take_while(|line| !line.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_format_examples_count_what_they_show() {
    let mut check = Check::default();
    let json = line_starting(r#"{"data":[{"id":"evt_1000""#);
    check.says(&format!(
        "`?format=json`, counts {})",
        estimate(json.as_bytes())
    ));

    let toon = shown_body("events?limit=2&format=toon'");
    assert!(toon.starts_with("data[2]"), "{toon}");
    check.says(&format!("x-token-count: {}", estimate(toon.as_bytes())));
    check.says(&format!("content-length: {}", toon.len()));

    let record = line_starting(r#"{"id":"evt_1004""#);
    let value: Value = serde_json::from_str(record).expect("JSON");
    let record_toon = terse_toon::encode(&value, &EncodeOptions::default());
    check.says(&format!(
        "TOON would cost {} tokens against the JSON's {} ({} against {}, counted exactly)",
        estimate(record_toon.as_bytes()),
        estimate(record.as_bytes()),
        exact(&record_toon),
        exact(record),
    ));
    // A near tie, settled on exact counts: the header carries the exact one.
    check.says(&format!("x-token-count: {}", exact(record)));

    let compact = line_starting(r#"{"format":"compact","summary":"3 of 120 events""#);
    check.says(&format!(
        "`X-Token-Count: {}` for these three events",
        estimate(compact.as_bytes())
    ));
    check.finish();
}

/// The rows `terse stats` prints for the JSON file at `path`.
fn stats_rows(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("a JSON file");
    let value: Value = serde_json::from_str(&text).expect("JSON");
    let toon =
        |delimiter| terse_toon::encode(&value, &EncodeOptions::new().with_delimiter(delimiter));
    let rows = [
        ("JSON (minified)", terse_tests::json_formats::minify(&text)),
        ("JSON (as read)", text.clone()),
        (
            "JSON (pretty)",
            serde_json::to_string_pretty(&value).unwrap(),
        ),
        ("TOON (comma)", toon(Delimiter::Comma)),
        ("TOON (tab)", toon(Delimiter::Tab)),
        ("TOON (pipe)", toon(Delimiter::Pipe)),
    ];
    let base = (rows[0].1.len(), exact(&rows[0].1));
    let saved = |base: usize, size: usize| {
        format!("{:.1}%", (base as f64 - size as f64) / base as f64 * 100.0)
    };
    rows.iter()
        .enumerate()
        .map(|(index, (label, text))| {
            let (bytes_saved, tokens_saved) = if index == 0 {
                ("-".to_owned(), "-".to_owned())
            } else {
                (saved(base.0, text.len()), saved(base.1, exact(text)))
            };
            format!(
                "{label} {} {bytes_saved} {} {} {tokens_saved}",
                text.len(),
                estimate(text.as_bytes()),
                exact(text)
            )
        })
        .collect()
}

#[test]
fn the_stats_table_is_what_terse_stats_prints() {
    let mut check = Check::default();
    for row in stats_rows(&terse_tests::corpus::corpus_dir().join("orders.json")) {
        check.says(&row);
    }
    check.finish();
}

/// The bulk request body agents may send as TOON: its table, and the ratio
/// the README quotes.
#[test]
fn the_bulk_request_table_is_what_terse_stats_prints() {
    let mut check = Check::default();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("requests/tasks_bulk.json");
    let rows = stats_rows(&path);
    for row in &rows {
        check.says(row);
    }
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("JSON");
    let (json, toon) = (
        exact(&value.to_string()),
        exact(&terse_toon::encode(&value, &EncodeOptions::default())),
    );
    check.says(&format!(
        "{toon} o200k tokens as TOON against {json} as compact JSON ({:.0}%)",
        toon as f64 / json as f64 * 100.0
    ));
    check.finish();
}

/// The documents of the `token_accuracy` bench: the estimator corpus, the
/// held-out texts, and `tests/corpus` as JSON and as TOON.
fn accuracy_documents() -> Vec<String> {
    let data =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/terse-tokens/tests/data");
    let mut texts = Vec::new();
    for folder in ["tokens", "tokens_heldout"] {
        let mut paths: Vec<_> = std::fs::read_dir(data.join(folder))
            .expect("token data")
            .map(|entry| entry.expect("entry").path())
            .collect();
        paths.sort();
        texts.extend(
            paths
                .iter()
                .map(|p| std::fs::read_to_string(p).expect("text")),
        );
    }
    for doc in terse_tests::corpus::documents() {
        texts.push(terse_toon::encode(&doc.value, &EncodeOptions::default()));
        texts.push(doc.value.to_string());
    }
    texts
}

/// Mean and nearest-rank 95th percentile, in percent to one decimal.
fn mean_p95(mut errors: Vec<f64>) -> (String, String) {
    errors.sort_by(f64::total_cmp);
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    let rank = (0.95 * errors.len() as f64).ceil() as usize;
    let p95 = errors[rank.clamp(1, errors.len()) - 1];
    (
        format!("{:.1}", mean * 100.0),
        format!("{:.1}", p95 * 100.0),
    )
}

#[test]
fn the_estimator_error_is_what_the_accuracy_bench_measures() {
    let mut check = Check::default();
    let texts = accuracy_documents();
    let truth: Vec<f64> = texts.iter().map(|t| exact(t) as f64).collect();
    let error = |count: &dyn Fn(&str) -> usize| {
        mean_p95(
            texts
                .iter()
                .zip(&truth)
                .map(|(t, &y)| (count(t) as f64 - y).abs() / y.max(1.0))
                .collect(),
        )
    };
    let (mean, p95) = error(&|t| estimate(t.as_bytes()));
    let (mean4, p954) = error(&|t| t.len().div_ceil(4));
    check.says(&format!(
        "the estimate is {mean}% off the exact count on average ({p95}% at p95) where bytes/4 is {mean4}% off ({p954}%)"
    ));
    check.finish();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_api_figures_are_what_it_serves() {
    let mut check = Check::default();
    let db = agent_api::Db::open_in_memory().expect("database");
    let server = TestServer::spawn(agent_api::app(db)).await;
    let base = format!("http://{}", server.addr());

    // `terse report`: the table as printed, for the README's URL.
    let table = {
        let base = base.clone();
        tokio::task::spawn_blocking(move || {
            let endpoints = terse_bin::report::agent_api_endpoints();
            terse_bin::report::measure(&base, &endpoints)
                .expect("report")
                .table()
        })
        .await
        .unwrap()
    };
    let table = table.replace(&base, "http://127.0.0.1:3000");
    for line in table.lines().filter(|line| !line.trim().is_empty()) {
        check.says(line);
    }
    let column = |row: &str| {
        table
            .lines()
            .find(|line| line.starts_with(row))
            .and_then(|line| line.split_whitespace().last())
            .unwrap_or_else(|| panic!("no {row} row in {table}"))
            .to_owned()
    };
    check.says(&format!(
        "Compact lines cost {} fewer tokens than the compact JSON the service sends, averaged over the seven resources ({} in total)",
        column("mean"),
        column("total"),
    ));

    // The sparse fieldset that makes TOON pay off.
    let path = "/api/v1/events?limit=3&fields=title,start_at,location";
    let count = |format: &'static str| {
        let url = server.url(&format!("{path}&format={format}"));
        async move {
            let response = raw_client().get(url).send().await.expect("GET");
            response.headers()["x-token-count"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    check.says(&format!(
        "is a TOON table of {} tokens (a near tie, so counted exactly) against {} estimated for the same JSON",
        count("toon").await,
        count("json").await
    ));
    check.finish();
}

/// The memory figures are the soak's: every row of the table that
/// `benches/load/soak_rss.sh` writes, as the README shows it.
#[test]
fn the_memory_figures_are_the_soaks() {
    let results = include_str!("../../benches/load/rss_results.md");
    let rows: Vec<&str> = results
        .lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| setup"))
        .collect();
    assert!(rows.len() >= 2, "rows of the soak: {results}");
    let mut check = Check::default();
    for row in rows {
        check.says(row);
    }
    check.finish();
}

/// The gateway's throughput table is the one `benches/load/run.sh` last
/// wrote to `benches/load/results.md`: every row, and the line saying
/// where and how it was measured.
#[test]
fn the_load_table_is_what_the_load_bench_wrote() {
    let results = include_str!("../../benches/load/results.md");
    let rows: Vec<&str> = results
        .lines()
        .filter(|line| line.starts_with('|'))
        .collect();
    // The header, the rule, and eight paths for each of three documents
    // (nginx, the bare proxy, the gateway's three, its two rewrites with
    // the memo off, and its pass-through with the request log on).
    assert_eq!(rows.len(), 2 + 3 * 8, "{results}");
    let mut check = Check::default();
    for row in rows {
        check.says(row);
    }
    let setting = results
        .lines()
        .skip_while(|line| !line.starts_with("`benches/load/run.sh`"))
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(!setting.is_empty(), "{results}");
    check.says(&setting);
    check.finish();
}
