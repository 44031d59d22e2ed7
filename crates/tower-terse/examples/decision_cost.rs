//! Runs the parts of the smart fallback's choice on one JSON body, for
//! instruction counts under callgrind: what weighing the JSON minified
//! costs a `?format=toon` request beside the rewrite itself.
//!
//! ```text
//! cargo build --release -p tower-terse --example decision_cost
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/examples/decision_cost body.json minify 10
//! ```
//!
//! Arguments: a JSON file, what to run (`read`: nothing but reading it;
//! `minify`: `minify_json`, which checks every byte it drops, as it must
//! on text that may not be JSON (the rendering minifies text its parser has
//! read, without that check: see its share of `toon` under
//! `callgrind_annotate --inclusive=yes`); `estimate`: the estimate of the
//! body as read;
//! `estimate-minified`: minifying it and estimating that; `toon`: the
//! whole rendering of a `?format=toon` request, `render_json`; `exact`: the
//! exact o200k_base count of the file's text, which need not be JSON) and
//! how many
//! rounds (default 10). Instructions per round are the total less `read`'s,
//! divided by the rounds.
//!
//! `document` parses the file into a `terse_toon` document, `encode` is
//! `terse_toon::encode_json` (parse and emit), `serde` is
//! `serde_json::from_str::<Value>`, the baseline both are held to; `speed`
//! times those three in turn, `rounds` times each per turn, over 20 turns,
//! and prints each one's MB/s (median of the turns) and its ratio to
//! `serde`'s, measured in the same run.
//!
//! Three more modes answer the file through the layer, as the gateway
//! does (a current-thread runtime, the rewrite memo off, a route with a
//! line template as the load bench's `[[resource]]`s): `layer` (the JSON
//! passed through, the baseline to subtract), `layer-toon` and
//! `layer-compact` (`?format=toon` and `?format=compact`). The template
//! fits the load bench's documents: a `flat` in the file's name takes the
//! flat rows' line, anything else the orders'.

use std::hint::black_box;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use tower::{Service, ServiceExt};
use tower_layer::Layer;
use tower_terse::compact::{CompactResource, Template};
use tower_terse::format::{minify_json, render_json};
use tower_terse::{Format, TerseLayer, tokens};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a JSON file");
    let what = args.next().unwrap_or_else(|| "read".to_owned());
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let body = std::fs::read_to_string(&path).expect("a UTF-8 file");
    if what == "exact" {
        // Rounds here default to one: the first count loads the tokenizer,
        // which dwarfs a count; the marginal cost of one count is
        // (I(n + 10) - I(n)) / 10 over two runs.
        let rounds: usize = std::env::args()
            .nth(3)
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let mut count = 0;
        for _ in 0..rounds {
            count = tokens::exact(black_box(&body));
        }
        println!("{count}");
        return;
    }
    if what == "speed" {
        speed(&body, rounds);
        return;
    }
    if what == "weigh" {
        // The two texts the smart fallback weighs, their estimates and
        // exact counts: how near a tie the document is.
        let json = minify_json(&body);
        let toon = tower_terse::toon::encode_json(&json, &Default::default()).expect("JSON");
        let (json_estimate, toon_estimate) = tokens::estimates(&json, &toon);
        println!(
            "JSON {} bytes, estimate {json_estimate}, exact {}; TOON {} bytes, estimate {toon_estimate}, exact {}",
            json.len(),
            tokens::exact(&json),
            toon.len(),
            tokens::exact(&toon)
        );
        return;
    }
    if let Some(query) = what.strip_prefix("layer") {
        layered(&path, body, query, rounds);
        return;
    }
    let mut out = 0usize;
    for _ in 0..rounds {
        let body = black_box(body.as_str());
        out = out.wrapping_add(match what.as_str() {
            "read" => body.len(),
            "minify" => minify_json(body).len(),
            "estimate" => tokens::estimate(body.as_bytes()),
            "estimate-minified" => tokens::estimate(minify_json(body).as_bytes()),
            "toon" => render_json(body, Format::Toon).map_or(0, |text| text.len()),
            "document" => terse_toon::document::Document::parse(body)
                .map_or(0, |doc| usize::from(doc.may_have_whitespace())),
            "encode" => tower_terse::toon::encode_json(body, &Default::default())
                .map_or(0, |text| text.len()),
            "serde" => serde_json::from_str::<serde_json::Value>(body)
                .map_or(0, |value| usize::from(value.is_object())),
            other => panic!("unknown: {other}"),
        });
    }
    println!("{what} {} bytes x {rounds}: {out}", body.len());
}

/// The handler: its body as JSON, to any request (cloned cheaply, as the
/// layer clones the service it wraps).
#[derive(Clone)]
struct Handler(Bytes);

impl<B> Service<Request<B>> for Handler {
    type Response = Response<Full<Bytes>>;
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<Self::Response, Self::Error>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: Request<B>) -> Self::Future {
        std::future::ready(Ok(Response::builder()
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::CONTENT_LENGTH, self.0.len())
            .body(Full::new(self.0.clone()))
            .expect("a valid response")))
    }
}

/// `rounds` requests for `body` through the layer, `query` naming the format
/// (`-toon`, `-compact`, or nothing for the JSON as it came).
fn layered(path: &str, body: String, query: &str, rounds: usize) {
    let line = if path.contains("flat") {
        "{name} <{email}> score {score}, since {created}"
    } else {
        "{status} for {customer.name} in {customer.address.city}, total {total}"
    };
    let noun = if path.contains("flat") {
        "user"
    } else {
        "order"
    };
    let template = Template::parse(line).expect("a valid template");
    let mut service = TerseLayer::new()
        .rewrite_memo_bytes(0)
        .compact_resource("/doc", CompactResource::new(noun, template))
        .layer(Handler(Bytes::from(body.clone())));
    let uri = match query {
        "" => "/doc".to_owned(),
        format => format!("/doc?format={}", format.trim_start_matches('-')),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let mut out = 0usize;
    let mut head = String::new();
    for _ in 0..rounds {
        let request = Request::get(uri.as_str())
            .body(String::new())
            .expect("a valid request");
        let bytes = runtime.block_on(async {
            let response = ServiceExt::<Request<String>>::ready(&mut service)
                .await
                .expect("always ready")
                .call(request)
                .await
                .expect("infallible");
            response
                .into_body()
                .collect()
                .await
                .expect("infallible")
                .to_bytes()
        });
        out = out.wrapping_add(black_box(bytes.len()));
        head = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
    }
    println!(
        "layer{query} {} bytes x {rounds}: {out} ({head:?})",
        body.len()
    );
}

/// MB/s of the document parse, the encode and `serde_json`'s parse of
/// `body`, measured in turns (the machine's load moves all three alike),
/// with each ratio to `serde_json`.
fn speed(body: &str, rounds: usize) {
    type Run = fn(&str) -> usize;
    let runs: [(&str, Run); 3] = [
        ("serde_json::from_str::<Value>", |body| {
            serde_json::from_str::<serde_json::Value>(body)
                .map_or(0, |v| usize::from(v.is_object()))
        }),
        ("terse_toon Document::parse", |body| {
            terse_toon::document::Document::parse(body)
                .map_or(0, |d| usize::from(d.may_have_whitespace()))
        }),
        ("terse_toon::encode_json", |body| {
            tower_terse::toon::encode_json(body, &Default::default()).map_or(0, |t| t.len())
        }),
    ];
    let mut times = vec![Vec::new(); runs.len()];
    for _ in 0..20 {
        for (at, (_, run)) in runs.iter().enumerate() {
            let start = std::time::Instant::now();
            for _ in 0..rounds {
                black_box(run(black_box(body)));
            }
            times[at].push(start.elapsed().as_secs_f64() / rounds as f64);
        }
    }
    let mbps: Vec<f64> = times
        .iter_mut()
        .map(|turns| {
            turns.sort_by(f64::total_cmp);
            body.len() as f64 / turns[turns.len() / 2] / 1e6
        })
        .collect();
    for ((name, _), speed) in runs.iter().zip(&mbps) {
        println!(
            "{name:<32} {speed:8.0} MB/s  {:.2}x serde_json",
            speed / mbps[0]
        );
    }
}
