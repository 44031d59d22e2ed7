//! `terse gateway --metrics-listen`: the layers' token counters
//! (`terse_responses_total`, `terse_tokens_total`, `terse_json_tokens_total`)
//! at `GET /metrics`, in the Prometheus text format, and the probes
//! `/healthz` and `/readyz` ([`Health`]), on a listener of their own, so
//! that they are never exposed on the address agents reach, nor shadow a
//! path of the upstream.

use std::convert::Infallible;
use std::net::SocketAddr;

use http::{Method, Request, Response, StatusCode, header};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use terse_gateway::{ServerOptions, serve};

use crate::health::Health;

/// Installs the Prometheus recorder, binds `addr` and serves the counters
/// and probes there until the process ends; returns the bound address.
pub async fn start(
    addr: SocketAddr,
    options: ServerOptions,
    health: Health,
) -> Result<SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|err| format!("cannot listen on {addr} (--metrics-listen): {err}"))?;
    let bound = listener.local_addr().map_or(addr, |a| a);
    let handle = PrometheusBuilder::new()
        .install_recorder()
        .map_err(|err| format!("cannot record metrics: {err}"))?;
    let service = tower::service_fn(move |request: Request<_>| {
        let (handle, health) = (handle.clone(), health.clone());
        async move { Ok::<_, Infallible>(answer(&handle, &health, &request).await) }
    });
    // No shutdown of its own: while the gateway drains, probes still get
    // their answer (`/readyz` a 503) rather than a refused connection.
    tokio::spawn(serve(listener, service, options, std::future::pending()));
    Ok(bound)
}

/// `GET /metrics` (and `HEAD`) gets the counters, `/healthz` and `/readyz`
/// the probes' answers; anything else a 404.
async fn answer<B>(
    handle: &PrometheusHandle,
    health: &Health,
    request: &Request<B>,
) -> Response<String> {
    let readable = matches!(*request.method(), Method::GET | Method::HEAD);
    let path = request.uri().path();
    let (status, body, content_type) = if !readable {
        (StatusCode::NOT_FOUND, "not found\n".to_owned(), TEXT)
    } else if path == "/metrics" {
        (StatusCode::OK, handle.render(), PROMETHEUS)
    } else if let Some((status, body)) = health.answer(path).await {
        (status, body.to_owned(), TEXT)
    } else {
        (StatusCode::NOT_FOUND, "not found\n".to_owned(), TEXT)
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

const PROMETHEUS: &str = "text/plain; version=0.0.4; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
