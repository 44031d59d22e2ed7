//! Fuzz target: the stdio transport's framing and session, as `terse mcp`
//! drives them: a client stream and a server stream, each split into lines
//! by [`Lines`] in chunks, each line through the [`Session`].
//!
//! Whatever the bytes: nothing panics; every byte of both streams comes out
//! once, in order, except lines the session rewrote; a rewritten line is
//! JSON, as one line, that differs from the original only in text blocks,
//! `_meta`, `instructions`, tool descriptions and schemas, and (from the
//! client) `format` arguments; a call whose `format` is refused becomes a
//! `ping` with the same id, and its answer a -32602 error with that id.
//! Batches (a line holding an array) are rewritten in one pass: the batch
//! keeps its length and order.
//!
//! Layout: byte 0 picks the layer (format, format argument, hint, counts,
//! limits); byte 1 sizes the chunks; then the client's stream up to the
//! first NUL, then the server's.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use terse_fuzz::event_resource;
use tower_terse::Format;
use tower_terse::mcp::{Lines, McpHint, McpLayer, McpTool, Piece, Session};

fn layers() -> &'static [McpLayer; 4] {
    static LAYERS: OnceLock<[McpLayer; 4]> = OnceLock::new();
    LAYERS.get_or_init(|| {
        let base = McpLayer::new().tool("list_events", McpTool::new("data", event_resource()));
        [
            base.clone().default_format(Format::Toon),
            base.clone()
                .default_format(Format::Compact)
                .format_argument(true)
                .hint(McpHint::Descriptions)
                .meta_counts(true),
            base.clone()
                .format_argument(true)
                .hint(McpHint::Instructions)
                .tool_format("other", Format::Json),
            base.default_format(Format::Toon)
                .format_argument(true)
                .meta_counts(true)
                .max_request_bytes(96)
                .max_message_bytes(256)
                .max_output_bytes(512),
        ]
    })
}

/// What came out of one stream: the bytes, and each line the session
/// rewrote (original, rewritten).
fn relay(
    lines: &mut Lines,
    input: &[u8],
    step: usize,
    rewrite: &mut dyn FnMut(&str) -> Option<String>,
) -> (Vec<u8>, Vec<(Vec<u8>, String)>) {
    let mut out = Vec::new();
    let mut changed = Vec::new();
    let mut piece = |piece: Piece<'_>| match piece {
        Piece::Pass(bytes) => out.extend_from_slice(bytes),
        Piece::Line(line) => {
            let new = std::str::from_utf8(line).ok().and_then(&mut *rewrite);
            match new {
                Some(new) => {
                    assert!(!new.contains('\n'), "a rewritten message stays one line");
                    changed.push((line.to_vec(), new));
                    out.extend_from_slice(line);
                }
                None => out.extend_from_slice(line),
            }
            out.push(b'\n');
        }
    };
    for chunk in input.chunks(step) {
        lines.feed(chunk, &mut piece);
    }
    lines.finish(&mut piece);
    (out, changed)
}

/// Whether `new` is the refusal of the call `old`: the request sent as a
/// `ping`, or its answer as a -32602 error, with the same id.
fn refusal(old: &Value, new: &Value) -> bool {
    let ping = new.get("method").and_then(Value::as_str) == Some("ping")
        && old.get("method").and_then(Value::as_str) == Some("tools/call");
    let error = new.pointer("/error/code").and_then(Value::as_i64) == Some(-32602)
        && old.get("error").is_none();
    (ping || error) && new.get("id") == old.get("id")
}

/// Both messages (or batches) with each refusal in `new` reduced, on both
/// sides, to its id.
fn without_refusals(old: &mut Value, new: &mut Value) {
    let pair = |old: &mut Value, new: &mut Value| {
        if refusal(old, new) {
            *old = serde_json::json!({"id": old["id"]});
            *new = old.clone();
        }
    };
    match (old, new) {
        (Value::Array(olds), Value::Array(news)) => {
            assert_eq!(olds.len(), news.len(), "a batch keeps its length");
            for (old, new) in olds.iter_mut().zip(news) {
                pair(old, new);
            }
        }
        (old, new) => pair(old, new),
    }
}

/// A message with everything a rewrite may change taken out.
fn stable(mut value: Value) -> Value {
    fn strip(message: &mut Value) {
        let Some(message) = message.as_object_mut() else {
            return;
        };
        if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
            result.remove("_meta");
            result.remove("instructions");
            result.remove("tools");
            if let Some(blocks) = result.get_mut("content").and_then(Value::as_array_mut) {
                for block in blocks {
                    if let Some(text) = block.get_mut("text") {
                        *text = Value::Null;
                    }
                }
            }
        }
        if let Some(arguments) = message
            .get_mut("params")
            .and_then(|params| params.get_mut("arguments"))
            .and_then(Value::as_object_mut)
        {
            arguments.remove("format");
        }
    }
    match &mut value {
        Value::Array(batch) => batch.iter_mut().for_each(strip),
        message => strip(message),
    }
    value
}

fuzz_target!(|input: &[u8]| {
    let [choice, size, rest @ ..] = input else {
        return;
    };
    let (client, server) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (&b""[..], rest),
    };
    let layer = &layers()[usize::from(choice & 3)];
    let step = usize::from(*size).max(1);
    let session = Session::new(layer);
    let limit = session.max_message_bytes();
    let (out, client_changed) = relay(&mut Lines::new(limit), client, step, &mut |line| {
        session.client_message(line)
    });
    assert_eq!(out, client, "the client's stream passes whole");
    let (out, server_changed) = relay(&mut Lines::new(limit), server, step, &mut |line| {
        session.server_message(line)
    });
    assert_eq!(out, server, "the server's stream passes whole");
    assert!(session.pending() <= tower_terse::mcp::MAX_PENDING);
    for (old, new) in client_changed.into_iter().chain(server_changed) {
        let mut old: Value = serde_json::from_slice(&old).expect("only JSON is rewritten");
        let mut new: Value = serde_json::from_str(&new).expect("a rewritten message is JSON");
        without_refusals(&mut old, &mut new);
        assert_eq!(
            stable(new),
            stable(old),
            "only what a rewrite may change changes"
        );
    }
});
