//! A server for `tests/load/offload.sh`: the layer on a small runtime
//! (2 worker threads), `/big` an ~8 MiB JSON list and `/small` a small
//! object, so the latency of `/small` shows whether large rewrites hold up
//! the async workers.
//!
//!     load_target [--offload-threshold <bytes|never>] [--port <port>]
//!
//! Without `--offload-threshold` the layer keeps its default.
//! Prints `listening on http://ADDR` once it accepts connections.

use std::process::exit;

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;
use bytes::Bytes;
use tower_terse::TerseLayer;

/// Records in `/big`: about 100 bytes each, so a little over 8 MiB of JSON.
const BIG_RECORDS: usize = 85_000;

fn main() {
    let (threshold, port) = args().unwrap_or_else(|err| {
        eprintln!("load_target: {err}\nusage: load_target [--offload-threshold <bytes|never>] [--port <port>]");
        exit(2);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(serve(threshold, port));
}

fn args() -> Result<(Option<usize>, u16), String> {
    let (mut threshold, mut port) = (None, 0);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--offload-threshold" if value == "never" => threshold = Some(usize::MAX),
            "--offload-threshold" => {
                threshold = Some(
                    value
                        .parse()
                        .map_err(|_| format!("bad threshold {value}"))?,
                )
            }
            "--port" => port = value.parse().map_err(|_| format!("bad port {value}"))?,
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok((threshold, port))
}

async fn serve(threshold: Option<usize>, port: u16) {
    let big = big_body();
    // Room for the whole `/big` body, so it is rewritten, not passed on.
    let mut layer = TerseLayer::new().max_body_bytes(4 * big.len());
    if let Some(threshold) = threshold {
        layer = layer.offload_threshold(threshold);
    }
    let app = Router::new()
        .route(
            "/big",
            get(move || {
                let big = big.clone();
                async move { ([(CONTENT_TYPE, "application/json")], big) }
            }),
        )
        .route(
            "/small",
            get(|| async {
                (
                    [(CONTENT_TYPE, "application/json")],
                    r#"{"id":1,"name":"small","ok":true}"#,
                )
            }),
        )
        .layer(layer);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("a free port");
    println!(
        "listening on http://{}",
        listener.local_addr().expect("an address")
    );
    axum::serve(listener, app).await.expect("the server runs");
}

/// A uniform list of records (TOON writes it as one table, so the smart
/// fallback keeps the TOON and the rewrite does its full work).
fn big_body() -> Bytes {
    let mut out = String::with_capacity(BIG_RECORDS * 110);
    out.push('[');
    for i in 0..BIG_RECORDS {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"id":{i},"name":"user {i}","email":"user{i}@example.com","team":"team-{}","active":{},"score":{}.5}}"#,
            i % 17,
            i % 3 == 0,
            i % 1000
        ));
    }
    out.push(']');
    Bytes::from(out)
}
