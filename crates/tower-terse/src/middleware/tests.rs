//! Body-level behaviour that an HTTP client cannot observe precisely:
//! errors and trailers from the handler's body.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::{Body, Frame};
use tower::{ServiceExt, service_fn};
use tower_layer::Layer;

use super::{TerseLayer, TerseRequestBody};

/// A body that yields prepared frames and errors, in order.
struct Script(VecDeque<Result<Frame<Bytes>, &'static str>>);

impl Body for Script {
    type Data = Bytes;
    type Error = &'static str;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, &'static str>>> {
        Poll::Ready(self.0.pop_front())
    }
}

/// Every frame of `body`, data as text, until the end or the first error.
async fn frames<B: Body<Data = Bytes, Error = &'static str>>(body: B) -> Vec<String> {
    let mut body = Box::pin(body);
    let mut out = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => out.push(String::from_utf8(data.to_vec()).unwrap()),
                Err(frame) => out.push(format!("trailers {:?}", frame.into_trailers().unwrap())),
            },
            Err(err) => {
                out.push(format!("error {err}"));
                break;
            }
        }
    }
    out
}

async fn through_layer(uri: &str, script: Vec<Result<Frame<Bytes>, &'static str>>) -> Vec<String> {
    // Shared, so that the handler can be cloned as the layer needs.
    let script = std::sync::Arc::new(std::sync::Mutex::new(Some(script)));
    let handler = service_fn(move |_request: Request<TerseRequestBody<String>>| {
        let frames = script.lock().unwrap().take().unwrap();
        async move {
            let response = Response::builder()
                .header("content-type", "application/json")
                .body(Script(frames.into()))
                .unwrap();
            Ok::<_, Infallible>(response)
        }
    });
    let service = TerseLayer::new().max_body_bytes(16).layer(handler);
    let response = service
        .oneshot(Request::get(uri).body(String::new()).unwrap())
        .await
        .unwrap();
    frames(response.into_body()).await
}

fn data(text: &'static str) -> Result<Frame<Bytes>, &'static str> {
    Ok(Frame::data(Bytes::from_static(text.as_bytes())))
}

#[tokio::test]
async fn a_body_error_while_reading_answers_502_in_the_envelope() {
    let got = through_layer("/?format=toon", vec![data("[1,"), data("2"), Err("boom")]).await;
    assert_eq!(got.len(), 1, "{got:?}");
    let envelope: serde_json::Value = serde_json::from_str(&got[0]).unwrap();
    assert_eq!(envelope["error"]["code"], "body_failed", "{envelope}");
}

/// The layer with `budget` around a handler answering `body` as JSON.
fn budgeted(
    budget: &crate::budget::MemoryBudget,
    body: &'static str,
) -> impl tower::Service<
    Request<String>,
    Response = Response<super::TerseBody<http_body_util::Full<Bytes>>>,
    Error = Infallible,
> {
    let handler = service_fn(
        move |_request: Request<TerseRequestBody<String>>| async move {
            let response = Response::builder()
                .header("content-type", "application/json")
                .body(http_body_util::Full::new(Bytes::from_static(
                    body.as_bytes(),
                )))
                .unwrap();
            Ok::<_, Infallible>(response)
        },
    );
    TerseLayer::new()
        .memory_budget(budget.clone())
        .layer(handler)
}

/// The `Content-Length` a response declares.
fn content_length<B>(response: &Response<B>) -> usize {
    response.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_rewrite_past_the_budget_is_not_started() {
    let budget = crate::budget::MemoryBudget::new(8);
    let response = budgeted(&budget, r#"[{"a":1},{"a":2}]"#)
        .oneshot(Request::get("/?format=toon").body(String::new()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    assert_eq!(&body[..], br#"[{"a":1},{"a":2}]"#);
    assert_eq!((budget.refused(), budget.in_use()), (1, 0));
}

#[tokio::test]
async fn a_rewritten_body_is_held_against_the_budget_until_dropped() {
    let budget = crate::budget::MemoryBudget::new(1 << 20);
    let response = budgeted(&budget, r#"[{"a":1},{"a":2}]"#)
        .oneshot(Request::get("/?format=toon").body(String::new()).unwrap())
        .await
        .unwrap();
    let length = content_length(&response);
    assert_eq!(budget.in_use(), length);
    drop(response);
    assert_eq!((budget.in_use(), budget.refused()), (0, 0));
}

#[tokio::test]
async fn the_budget_holds_what_rendering_may_take_not_only_the_body() {
    // 20 000 records of two fields: 360 KB of JSON, 100 000 values. TOON's
    // document takes a few bytes per value; the tree `?fields=` builds
    // takes far more, which a budget of 12 MB cannot hold beside it.
    let records: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"id":{i},"a":0}}"#))
        .collect();
    let big = format!("[{}]", records.join(","));
    let big: &'static str = Box::leak(big.into_boxed_str());
    let budget = crate::budget::MemoryBudget::new(12 << 20);
    let max_output = crate::defaults::MAX_BODY_BYTES;
    let bound = |format, projected| {
        let options = crate::toon::EncodeOptions::default();
        crate::render::working_bytes(big.as_bytes(), format, projected, &options, max_output)
    };
    let (toon, tree) = (
        bound(crate::Format::Toon, false),
        bound(crate::Format::Json, true),
    );
    assert!(big.len() + toon < budget.limit(), "{toon}");
    assert!(budget.limit() < big.len() + tree, "{tree}");

    let projected = budgeted(&budget, big)
        .oneshot(
            Request::get("/?format=json&fields=id")
                .body(String::new())
                .unwrap(),
        )
        .await
        .unwrap();
    let vary = projected.headers()["vary"].to_str().unwrap().to_owned();
    assert!(vary.contains("Accept"), "{vary}");
    let body = http_body_util::BodyExt::collect(projected.into_body())
        .await
        .unwrap()
        .to_bytes();
    assert_eq!(&body[..], big.as_bytes(), "refused: the body as it came");
    assert_eq!((budget.refused(), budget.in_use()), (1, 0));

    let toon = budgeted(&budget, big)
        .oneshot(Request::get("/?format=toon").body(String::new()).unwrap())
        .await
        .unwrap();
    assert_eq!(toon.headers()["content-type"], "text/toon; charset=utf-8");
    let length = content_length(&toon);
    assert_eq!(budget.in_use(), length, "only the output is held once made");
    drop(toon);
    assert_eq!((budget.refused(), budget.in_use()), (1, 0));
}

#[tokio::test]
async fn a_large_body_goes_out_in_bounded_frames() {
    let big = format!("[{}1]", "1,".repeat(100_000));
    let big: &'static str = Box::leak(big.into_boxed_str());
    let budget = crate::budget::MemoryBudget::default();
    let response = budgeted(&budget, big)
        .oneshot(Request::get("/?format=json").body(String::new()).unwrap())
        .await
        .unwrap();
    let mut body = Box::pin(response.into_body());
    let mut total = 0;
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let data = frame.unwrap().into_data().unwrap();
        assert!(data.len() <= 64 * 1024);
        total += data.len();
    }
    assert_eq!(total, big.len());
}

#[tokio::test]
async fn over_the_limit_the_rest_streams_including_errors() {
    let script = vec![
        data("[\"0123456789"),
        data("abcdefg\""),
        data(",1"),
        Err("late"),
    ];
    let got = through_layer("/?format=toon", script).await;
    assert_eq!(got, ["[\"0123456789abcdefg\"", ",1", "error late"]);
}

#[tokio::test]
async fn trailers_follow_a_rewritten_body() {
    let mut trailers = HeaderMap::new();
    trailers.insert("x-checksum", HeaderValue::from_static("abc"));
    let script = vec![data("[1,2]"), Ok(Frame::trailers(trailers))];
    let got = through_layer("/?format=json", script).await;
    assert_eq!(got, ["[1,2]", "trailers {\"x-checksum\": \"abc\"}"]);
}
