//! The floor the load bench holds `terse gateway` to: a reverse proxy of
//! hyper and tokio with nothing else, the same server (hyper-util's auto
//! server, HTTP/1.1 and h2c, on tokio's multi-thread runtime) and client
//! (hyper-util's pooled legacy client) as the gateway, the bodies streamed
//! both ways, no rewriting, no counting, no log, no header hygiene. What the
//! gateway spends beyond this proxy per request is terse's own.
//!
//! ```text
//! cargo run --release -p terse-gateway --example bare_proxy -- 127.0.0.1:3001 http://127.0.0.1:8000
//! ```
//!
//! Not a gateway: it forwards whatever it is sent, headers and all.

use std::convert::Infallible;
use std::net::SocketAddr;

use http::uri::{Authority, PathAndQuery, Scheme};
use http::{Request, Response, StatusCode, Uri};
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;

type Body = UnsyncBoxBody<bytes::Bytes, hyper::Error>;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(upstream)) = (args.next(), args.next()) else {
        return Err("usage: bare_proxy LISTEN_ADDR http://UPSTREAM_HOST:PORT".into());
    };
    let listen: SocketAddr = listen.parse()?;
    let upstream: Uri = upstream.parse()?;
    let authority = upstream
        .authority()
        .cloned()
        .ok_or("the upstream URL has no host")?;
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client: Client<HttpConnector, Incoming> =
        Client::builder(TokioExecutor::new()).build(connector);
    let listener = tokio::net::TcpListener::bind(listen).await?;
    println!("bare proxy listening on http://{}", listener.local_addr()?);
    let server = auto::Builder::new(TokioExecutor::new());
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let (client, authority, server) = (client.clone(), authority.clone(), server.clone());
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            forward(client.clone(), authority.clone(), request)
        });
        tokio::spawn(async move {
            let _ = server.serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// `request` sent to the upstream at `authority`, its answer given back as
/// it comes; a 502 when the upstream cannot be asked.
async fn forward(
    client: Client<HttpConnector, Incoming>,
    authority: Authority,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let (mut parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .cloned()
        .unwrap_or_else(|| PathAndQuery::from_static("/"));
    let Ok(uri) = Uri::builder()
        .scheme(Scheme::HTTP)
        .authority(authority)
        .path_and_query(path)
        .build()
    else {
        return Ok(status(StatusCode::BAD_REQUEST));
    };
    parts.uri = uri;
    match client.request(Request::from_parts(parts, body)).await {
        Ok(response) => Ok(response.map(|body| body.boxed_unsync())),
        Err(_) => Ok(status(StatusCode::BAD_GATEWAY)),
    }
}

/// An empty answer with `code`.
fn status(code: StatusCode) -> Response<Body> {
    let mut response = Response::new(
        http_body_util::Empty::new()
            .map_err(|never| match never {})
            .boxed_unsync(),
    );
    *response.status_mut() = code;
    response
}
