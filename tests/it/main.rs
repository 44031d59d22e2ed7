//! The workspace's integration tests, one module per subject, in one test
//! binary: each links tower-terse, the gateway, the CLI and agent-api once.
//! Tests that measure or own process-wide state run in `process/`
//! (serialized by [`terse_tests::process`]), the global allocator's in
//! `gateway_memory/`, and the layer's once-per-process warning in `once/`.

mod agent_api;
mod changes;
mod compact_lines;
mod compact_logging;
mod compact_routes;
mod conformance_decode;
mod conformance_encode;
mod consistency;
mod container_config;
mod gateway;
mod gateway_agent_api;
mod gateway_cheapest_form;
mod gateway_frameworks;
mod gateway_headers_attack;
mod gateway_mcp;
mod gateway_mcp_conformance;
mod gateway_mcp_oauth;
mod gateway_mcp_stream_order;
mod gateway_settings;
mod hostile;
mod interop;
mod layer_compression;
mod layer_exact_tokens;
mod layer_fields;
mod layer_headers;
mod layer_minified;
mod layer_near_tie_offload;
mod layer_negotiation;
mod layer_offload;
mod layer_passthrough;
mod layer_response_format;
mod layer_toon;
mod layer_toon_requests;
mod mcp_format_argument_http;
mod mcp_near_tie_offload;
mod mcp_stdio;
mod mcp_stdio_everything;
mod mcp_stdio_filesystem;
mod readme_figures;
mod reference_differential;
mod rewrite_cost_attack;
mod roundtrip_props;
mod route_settings;
mod token_decisions;
mod token_estimator;
