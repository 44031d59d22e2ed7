//! Tests that measure the whole process (CPU time, resident memory,
//! bystander latency) or install process-wide state (the `metrics`
//! recorder, the `tracing` subscriber, `record_metrics`). Every test here
//! holds [`terse_tests::process::PROCESS`]: exclusively when it measures
//! or installs, shared otherwise, so that no test runs beside one that
//! measures or counts what the whole process does.

mod common;
mod gateway_attack;
mod gateway_cost_attack;
mod gateway_toon_requests;
mod layer_rewrite_memo;
mod redteam3_attacks;
mod report;
mod report_mcp;
mod report_off;
