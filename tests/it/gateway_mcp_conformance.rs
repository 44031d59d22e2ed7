//! The official MCP conformance suite's server scenarios, against its
//! reference server straight and through `[mcp]` of the gateway: every
//! scenario that passes straight passes through the gateway, in each of
//! several runs.
//!
//! The scenarios in which the server sends requests to the client during a
//! call (sampling, elicitation) race the session's standalone GET stream:
//! the client opens it and POSTs its call at once, and the server drops
//! requests it would send there before the stream is open. Repeated runs
//! catch the gateway letting the call overtake the stream.

use terse_tests::mcp_conformance::{self, Outcomes};
use terse_tests::python::spawn_gateway;

const CONFIG: &str = r#"
[mcp]
path = "/mcp"
"#;

/// Runs through the gateway; races show in some runs only (a run of the
/// suite takes a few seconds).
const GATEWAY_RUNS: usize = 10;

fn passed(outcomes: &Outcomes) -> Vec<&str> {
    outcomes
        .iter()
        .filter(|(_, passed)| **passed)
        .map(|(name, _)| name.as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs node 22 and npm; run with --include-ignored (.ci/run does)"]
async fn every_scenario_passing_straight_passes_through_the_gateway() {
    let Some(suite) = mcp_conformance::install() else {
        return;
    };
    let server = suite.start_server();
    let (gateway, _task) = spawn_gateway(CONFIG, &server.base()).await;
    let suite = std::sync::Arc::new(suite);
    let run = |url: String| {
        let suite = suite.clone();
        tokio::task::spawn_blocking(move || suite.run(&url))
    };
    let straight = run(server.url()).await.expect("the straight run");
    let expected = passed(&straight);
    println!(
        "straight: {} of {} scenarios pass",
        expected.len(),
        straight.len()
    );
    assert!(
        expected.contains(&"dns-rebinding-protection"),
        "the reference server passes its own suite: {straight:?}"
    );
    assert!(
        expected.iter().any(|name| name.contains("sampling"))
            && expected.iter().any(|name| name.contains("elicitation")),
        "the racing scenarios pass straight: {straight:?}"
    );
    for n in 1..=GATEWAY_RUNS {
        let started = std::time::Instant::now();
        let through = run(format!("{gateway}/mcp")).await.expect("a gateway run");
        let lost: Vec<&str> = expected
            .iter()
            .copied()
            .filter(|name| through.get(*name) != Some(&true))
            .collect();
        println!(
            "through the gateway, run {n} ({:.0?}): {} of the {} pass",
            started.elapsed(),
            expected.len() - lost.len(),
            expected.len()
        );
        assert!(
            lost.is_empty(),
            "run {n}: pass straight, not through the gateway: {lost:?}"
        );
    }
}
