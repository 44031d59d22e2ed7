//! agent-api behind `terse gateway` (its layer off, the same templates in
//! `examples/gateway/agent-api.toml`) measures as agent-api with the layer
//! embedded: `terse report` gives the same figures through both.

use terse_bin::report::{Report, agent_api_endpoints, measure};
use terse_tests::python::spawn_gateway;
use terse_tests::server::TestServer;

const CONFIG: &str = include_str!("../../examples/gateway/agent-api.toml");

async fn report(base: String) -> Report {
    let endpoints = agent_api_endpoints();
    tokio::task::spawn_blocking(move || measure(&base, &endpoints))
        .await
        .unwrap()
        .expect("terse report")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terse_report_through_the_gateway_matches_the_embedded_layer() {
    let db = agent_api::Db::open_in_memory().expect("seeded database");
    let embedded = TestServer::spawn(agent_api::app(db.clone())).await;
    let plain = TestServer::spawn(agent_api::routes::plain_app(db)).await;
    let (gateway, _task) = spawn_gateway(CONFIG, &plain.url("")).await;

    let expected = report(embedded.url("")).await;
    let measured = report(gateway).await;
    assert_eq!(measured.rows.len(), expected.rows.len());
    for (row, want) in measured.rows.iter().zip(&expected.rows) {
        assert_eq!(row.name, want.name);
        assert_eq!(row.json, want.json, "{}: JSON", row.name);
        assert_eq!(row.toon, want.toon, "{}: TOON", row.name);
        // agent-api writes email lines by hand (`unread` for a false
        // `is_read`), which no template can say; every other resource's
        // compact lines come from the same template both ways.
        if row.name == "emails" {
            assert_eq!(row.compact.content_type, "application/json");
            assert!(
                row.compact.tokens < row.json.tokens / 3,
                "{}",
                measured.table()
            );
        } else {
            assert_eq!(row.compact, want.compact, "{}: compact", row.name);
        }
    }
}
