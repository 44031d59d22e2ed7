//! `terse gateway --metrics-listen`: the layers' token counters
//! (`terse_responses_total`, `terse_tokens_total`, `terse_json_tokens_total`)
//! at `GET /metrics`, in the Prometheus text format, on a listener of their
//! own, so that they are never exposed on the address agents reach, nor
//! shadow a path of the upstream.

use std::convert::Infallible;
use std::net::SocketAddr;

use http::{Method, Request, Response, StatusCode, header};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use terse_gateway::{ServerOptions, serve, shutdown_signal};

/// Installs the Prometheus recorder, binds `addr` and serves the counters
/// there until shutdown; returns the bound address.
pub async fn start(addr: SocketAddr, options: ServerOptions) -> Result<SocketAddr, String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|err| format!("cannot listen on {addr} (--metrics-listen): {err}"))?;
    let bound = listener.local_addr().map_or(addr, |a| a);
    let handle = PrometheusBuilder::new()
        .install_recorder()
        .map_err(|err| format!("cannot record metrics: {err}"))?;
    let service = tower::service_fn(move |request: Request<_>| {
        std::future::ready(Ok::<_, Infallible>(answer(&handle, &request)))
    });
    tokio::spawn(serve(listener, service, options, shutdown_signal()));
    Ok(bound)
}

/// `GET /metrics` (and `HEAD`) gets the counters; anything else a 404.
fn answer<B>(handle: &PrometheusHandle, request: &Request<B>) -> Response<String> {
    let readable = matches!(*request.method(), Method::GET | Method::HEAD);
    let mut response = if readable && request.uri().path() == "/metrics" {
        Response::new(handle.render())
    } else {
        let mut response = Response::new("not found\n".to_owned());
        *response.status_mut() = StatusCode::NOT_FOUND;
        response
    };
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
