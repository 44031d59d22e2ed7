//! `terse gateway` with one of its stages taken out, to learn what each
//! costs per request: run it in front of the same upstream as the gateway,
//! load both alike, and compare their CPU time per request. The stage
//! names are those of the crate docs of `terse-gateway` (`Design`).
//!
//! ```text
//! cargo build --release -p terse-bin --example gateway_stages
//! target/release/examples/gateway_stages 127.0.0.1:3001 http://127.0.0.1:8000 terse.toml without-log
//! ```
//!
//! Stages (the fourth argument):
//!
//! - `full`: the gateway as `terse gateway` builds it, logging as it does;
//! - `without-subscriber`: the same with no log subscriber (the request log
//!   finds its level off and writes nothing);
//! - `without-compression`, `without-log`, `without-split` (the MCP
//!   router), `without-terse` (the layer), `without-inflate`: that one
//!   stage out of the gateway;
//! - `without-counting`: the layer with `count_plain_responses = false`
//!   (no `X-Token-Count` on pass-through, the body streamed unread);
//! - `upstream-only`: the forwarding alone behind the server.
//!
//! A measuring aid, not a gateway: the config's `[mcp]` section, metrics
//! and probes are left out.

use std::net::SocketAddr;

use http::{Request, Response};
use http_body::Body;
use hyper::body::Incoming;
use terse_gateway::{
    BoxError, BoxResponseBody, Config, Inflate, McpSplit, RequestLogLayer, ServerOptions, Upstream,
    serve, shutdown_signal,
};
use tower::{Service, ServiceBuilder};
use tower_http::compression::CompressionLayer;
use tower_terse::mcp::Mcp;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [listen, upstream, config, stage] = args.as_slice() else {
        return Err("usage: gateway_stages LISTEN_ADDR http://UPSTREAM CONFIG.toml STAGE".into());
    };
    let listen: SocketAddr = listen.parse()?;
    let config = Config::load(std::path::Path::new(config))?;
    let upstream = config.upstream(upstream)?;
    let _flush = (stage != "without-subscriber").then(|| terse_bin::logging::init_buffered("info"));
    // As `terse gateway` without `--metrics-listen`: no recorder.
    tower_terse::proxy::record_metrics(false);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        println!(
            "gateway stages ({stage}) listening on http://{}",
            listener.local_addr()?
        );
        let options = config.server_options();
        let layer = config.layer();
        let inflate = || Inflate::new(upstream.clone(), layer.limit().clone());
        match stage.as_str() {
            "full" | "without-subscriber" => {
                // Boxes its own bodies: served as `terse gateway` serves it.
                let gateway = config.gateway_on(upstream, listen);
                serve(listener, gateway, options, shutdown_signal()).await;
            }
            "without-compression" => {
                let service = ServiceBuilder::new().layer(RequestLogLayer).service(split(
                    ServiceBuilder::new()
                        .layer(layer.clone())
                        .service(inflate()),
                ));
                run(listener, service, options).await;
            }
            "without-log" => {
                let service = ServiceBuilder::new()
                    .layer(CompressionLayer::new())
                    .service(split(
                        ServiceBuilder::new()
                            .layer(layer.clone())
                            .service(inflate()),
                    ));
                run(listener, service, options).await;
            }
            "without-split" => {
                let service = ServiceBuilder::new()
                    .layer(CompressionLayer::new())
                    .layer(RequestLogLayer)
                    .layer(layer.clone())
                    .service(inflate());
                run(listener, service, options).await;
            }
            "without-terse" => {
                let service = ServiceBuilder::new()
                    .layer(CompressionLayer::new())
                    .layer(RequestLogLayer)
                    .service(split(inflate()));
                run(listener, service, options).await;
            }
            "without-inflate" => {
                let service = ServiceBuilder::new()
                    .layer(CompressionLayer::new())
                    .layer(RequestLogLayer)
                    .service(split(
                        ServiceBuilder::new()
                            .layer(layer.clone())
                            .service(upstream.clone()),
                    ));
                run(listener, service, options).await;
            }
            "without-counting" => {
                let layer = layer.clone().count_plain_responses(false);
                let service = ServiceBuilder::new()
                    .layer(CompressionLayer::new())
                    .layer(RequestLogLayer)
                    .service(split(ServiceBuilder::new().layer(layer).service(inflate())));
                run(listener, service, options).await;
            }
            "upstream-only" => run(listener, upstream.clone(), options).await,
            other => return Err(format!("no stage {other:?}").into()),
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}

/// `http` behind the MCP router, with no MCP endpoint: the MCP service's
/// type is the gateway's all the same, since it sizes the response (and
/// what moving it costs) whether or not an endpoint is set.
fn split<H>(http: H) -> McpSplit<H, Mcp<Inflate<Upstream>>> {
    McpSplit::new(http, None)
}

/// Serves a stage until SIGTERM or Ctrl-C as `terse gateway` serves the
/// whole, its response bodies boxed once as the gateway's are.
async fn run<S, B>(listener: tokio::net::TcpListener, service: S, options: ServerOptions)
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    serve(
        listener,
        BoxResponseBody::new(service),
        options,
        shutdown_signal(),
    )
    .await;
}
