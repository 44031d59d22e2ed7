//! How a response body is read ([`Mode`]), and the two steps every way of
//! reading it takes, here or on the blocking pool: [`push`] and [`finish`].

use bytes::Bytes;

use super::exchange::Exchange;
// `Readings` is the exchange's; the body and the offload name it here, with
// the steps that take it.
pub(crate) use super::exchange::Readings;
use super::sse::{Splitter, rewrite_event};
use crate::bounded::Bounded;

/// How the response body is read.
pub(crate) enum Mode {
    /// Streamed through as it comes.
    Plain,
    /// One JSON-RPC message or batch, held up to the limit.
    Json { held: Bounded, passing: bool },
    /// An event stream, rewritten event by event.
    Events(Splitter),
    /// On the blocking pool with a large rewrite (see [`offload`](super::offload)).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    Away,
}

impl Mode {
    /// The bytes held for a rewrite.
    pub(crate) fn held(&self) -> usize {
        match self {
            Mode::Json { held, .. } => held.len(),
            Mode::Events(splitter) => splitter.held(),
            Mode::Plain | Mode::Away => 0,
        }
    }
}

impl Mode {
    /// Stops holding: what is held goes out as it came, and from now on
    /// the body streams through.
    pub(crate) fn let_go(&mut self) -> Vec<u8> {
        let out = match self {
            Mode::Json { held, .. } => held.take().into(),
            Mode::Events(splitter) => {
                let mut out = Vec::new();
                splitter.finish(&mut out, &mut |_| None);
                out
            }
            Mode::Plain | Mode::Away => Vec::new(),
        };
        *self = Mode::Plain;
        out
    }
}

/// Feeds `data` to the mode; what may go out now.
pub(crate) fn push(
    mode: &mut Mode,
    exchange: Option<&Exchange>,
    data: Bytes,
    readings: &mut Readings,
) -> Vec<u8> {
    match (mode, exchange) {
        (Mode::Json { held, passing }, Some(_)) => {
            if *passing {
                return data.into();
            }
            if held.push(data).is_err() {
                *passing = true;
                return held.take().into();
            }
            Vec::new()
        }
        (Mode::Events(splitter), Some(exchange)) => {
            let mut out = Vec::new();
            splitter.feed(&data, &mut out, &mut |event| {
                rewrite_one(exchange, event, readings)
            });
            out
        }
        _ => data.into(),
    }
}

/// The stream ended (or failed): whatever is held, rewritten when whole.
pub(crate) fn finish(
    mode: &mut Mode,
    exchange: Option<&Exchange>,
    complete: bool,
    readings: &mut Readings,
) -> Vec<u8> {
    match (mode, exchange) {
        (Mode::Json { held, passing }, Some(exchange)) => {
            let held = held.take();
            if *passing || !complete {
                return held.into();
            }
            std::str::from_utf8(&held)
                .ok()
                .and_then(|text| exchange.rewrite(text, readings.pop_front()))
                .map_or_else(|| held.into(), String::into_bytes)
        }
        (Mode::Events(splitter), Some(exchange)) => {
            let mut out = Vec::new();
            splitter.finish(&mut out, &mut |event| {
                rewrite_one(exchange, event, readings)
            });
            out
        }
        _ => Vec::new(),
    }
}

fn rewrite_one(exchange: &Exchange, event: &[u8], readings: &mut Readings) -> Option<Vec<u8>> {
    rewrite_event(event, |data| exchange.rewrite(data, readings.pop_front()))
}
