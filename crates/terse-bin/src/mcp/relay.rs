//! One direction of the stdio relay: newline-framed messages read with a
//! bounded line, rewritten through the session, written in order.
//!
//! The two directions share one [`Session`] (its clones are the same
//! session) and never wait on each other: the session locks its table of
//! waiting requests only to note or take an entry, never across a
//! rewrite, so a ping from the client reaches the server while a large
//! result is still being rewritten on its way to the client.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_terse::mcp::{Lines, Piece, Session};

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// Which way a relay carries messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the client (our stdin) to the server (its stdin).
    ToServer,
    /// From the server (its stdout) to the client (our stdout).
    ToClient,
}

/// Whether a relay holds bytes it read and has not written yet (a
/// rewrite in flight): the drain waits for it.
pub type Busy = Arc<AtomicBool>;

/// A piece of the stream, owned, to hand to an `await`.
enum Owned {
    Line(Vec<u8>),
    Pass(Vec<u8>),
}

/// Relays `from` to `to` until `from` ends, lines of at most `limit` bytes
/// read and rewritten, longer ones passed through as they come. A writer
/// that fails (the reader went away) stops the writing but not the
/// reading, so the other side never blocks on a full pipe. `busy` is set
/// from a read until what it read is written. Gives whether every byte
/// was written.
pub async fn relay<R, W>(
    mut from: R,
    mut to: W,
    session: Session,
    direction: Direction,
    busy: Busy,
) -> bool
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines = Lines::new(session.max_message_bytes());
    let mut buffer = vec![0; CHUNK];
    let mut writing = true;
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        busy.store(true, Ordering::SeqCst);
        let mut pieces = Vec::new();
        lines.feed(&buffer[..read], &mut |piece| pieces.push(owned(piece)));
        for piece in pieces {
            if writing {
                writing = write(&mut to, piece, &session, direction).await;
            }
        }
        if writing && !lines.passing() {
            writing = to.flush().await.is_ok();
        }
        busy.store(false, Ordering::SeqCst);
    }
    let mut tail = Vec::new();
    lines.finish(&mut |piece| tail.push(owned(piece)));
    for piece in tail {
        if writing {
            writing = write(&mut to, piece, &session, direction).await;
        }
    }
    writing = writing && to.flush().await.is_ok();
    let _ = to.shutdown().await;
    writing
}

fn owned(piece: Piece<'_>) -> Owned {
    match piece {
        Piece::Line(line) => Owned::Line(line.to_vec()),
        Piece::Pass(bytes) => Owned::Pass(bytes.to_vec()),
    }
}

/// Writes one piece, a line rewritten when the session says so.
async fn write<W: AsyncWrite + Unpin>(
    to: &mut W,
    piece: Owned,
    session: &Session,
    direction: Direction,
) -> bool {
    let mut line = match piece {
        Owned::Pass(bytes) => return to.write_all(&bytes).await.is_ok(),
        Owned::Line(line) => line,
    };
    if let Some(new) = rewrite(&line, session, direction).await {
        line = new.into_bytes();
    }
    line.push(b'\n');
    to.write_all(&line).await.is_ok()
}

/// The line rewritten, or `None` to send it as it came (not UTF-8, not a
/// message the session rewrites). A line whose rewrite costs
/// [`OFFLOAD_BYTES`](tower_terse::mcp::OFFLOAD_BYTES) or more (a large tool
/// result, or a small one nested deep, whose TOON is mostly indentation) is
/// read on tokio's blocking pool under the layer's
/// [`BlockingLimit`](tower_terse::settings::BlockingLimit), one for the whole
/// process (both directions): such a result never stalls a worker, and a
/// flood of them never runs more rewrites at once than the limit's slots. A server's message that finds no slot within
/// the limit's wait goes to the client as it came; a client's is read
/// here all the same (see [`Session::client_message_offloaded`]).
async fn rewrite(line: &[u8], session: &Session, direction: Direction) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    match direction {
        Direction::ToServer => session.client_message_offloaded(text).await,
        Direction::ToClient => session.server_message_offloaded(text).await,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, BufReader, DuplexStream};
    use tower_terse::Format;
    use tower_terse::mcp::{McpLayer, OFFLOAD_BYTES};
    use tower_terse::settings::BlockingLimit;

    use super::*;

    /// The server's answer to call `id`: a list of records larger than
    /// [`OFFLOAD_BYTES`], cheaper as TOON.
    fn answer(id: u64) -> String {
        let rows: Vec<_> = (0..2_000)
            .map(|i| json!({"id": i, "name": format!("user {i}"), "active": i % 2 == 0}))
            .collect();
        let text = serde_json::to_string(&rows).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
            .to_string();
        assert!(answer.len() > OFFLOAD_BYTES);
        answer
    }

    /// A call's answer whose text block is a few kilobytes of records
    /// nested 60 levels deep: far below [`OFFLOAD_BYTES`], its TOON is
    /// mostly the indentation of each line.
    fn deep_answer(id: u64) -> String {
        let mut text = format!(
            "[{}]",
            (0..200)
                .map(|i| format!(r#"{{"id":{i},"name":"row {i}","tags":["a","b"]}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        for level in 0..60 {
            text = format!(r#"{{"level":{level},"child":{text}}}"#);
        }
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
            .to_string();
        assert!(answer.len() < OFFLOAD_BYTES / 2, "{}", answer.len());
        answer
    }

    /// A relay of `session`'s server-to-client direction: where the
    /// server writes, and the lines the client reads.
    fn to_client(
        session: Session,
    ) -> (
        DuplexStream,
        tokio::io::Lines<BufReader<DuplexStream>>,
        tokio::task::JoinHandle<bool>,
    ) {
        let (server, from) = tokio::io::duplex(1 << 20);
        let (to, client) = tokio::io::duplex(1 << 20);
        let task = tokio::spawn(relay(
            from,
            to,
            session,
            Direction::ToClient,
            Busy::default(),
        ));
        (server, BufReader::new(client).lines(), task)
    }

    #[test]
    fn rewrites_share_one_limit_and_pass_unchanged_past_it() {
        // One blocking thread, held until released: a rewrite that took
        // the limit's only slot waits behind it, slot held.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(1)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let limit = BlockingLimit::new(1).with_wait(Duration::from_millis(50));
            let layer = McpLayer::new()
                .default_format(Format::Toon)
                .blocking_limit(limit.clone());
            let (first, second) = (Session::new(&layer), Session::new(&layer));
            let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users","arguments":{}}}"#;
            first.client_message(call);
            second.client_message(call);
            let (release, released) = std::sync::mpsc::channel::<()>();
            let blocker = tokio::task::spawn_blocking(move || released.recv());

            let (mut first_in, mut first_out, _first) = to_client(first);
            first_in
                .write_all(format!("{}\n", answer(1)).as_bytes())
                .await
                .unwrap();
            while limit.available() > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }

            // The slot taken: past the wait, the other answer goes to its
            // client as the server wrote it.
            let (mut second_in, mut second_out, _second) = to_client(second);
            second_in
                .write_all(format!("{}\n", answer(1)).as_bytes())
                .await
                .unwrap();
            let passed = second_out.next_line().await.unwrap().unwrap();
            assert_eq!(passed, answer(1));
            assert_eq!(limit.busy(), 1);

            // Once the thread is free, the first is rewritten, in full.
            release.send(()).unwrap();
            blocker.await.unwrap().unwrap();
            let rewritten = first_out.next_line().await.unwrap().unwrap();
            assert!(
                rewritten.contains("[2000]{id,name,active}:"),
                "{}",
                &rewritten[..200]
            );
            assert_eq!(limit.busy(), 1);
            assert_eq!(limit.available(), 1);
        });
    }

    #[test]
    fn a_small_answer_that_renders_large_takes_a_slot_and_passes_unchanged_past_it() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let limit = BlockingLimit::new(1).with_wait(Duration::from_millis(20));
            let layer = McpLayer::new()
                .default_format(Format::Toon)
                .smart_fallback(false)
                .blocking_limit(limit.clone());
            let session = Session::new(&layer);
            for id in [1, 2] {
                let call = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"tree","arguments":{{}}}}}}"#
                );
                session.client_message(&call);
            }
            // The limit's only slot held by other blocking work.
            let (release, released) = std::sync::mpsc::channel::<()>();
            let holder = tokio::spawn({
                let limit = limit.clone();
                async move { limit.off_the_workers(|| released.recv()) }
            });
            while limit.available() > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let (mut server_in, mut client_out, _relay) = to_client(session);

            // Small, but costly to render: it waits for the slot, and past
            // the wait goes to the client as the server wrote it.
            server_in
                .write_all(format!("{}\n", deep_answer(1)).as_bytes())
                .await
                .unwrap();
            let passed = client_out.next_line().await.unwrap().unwrap();
            assert!(
                passed == deep_answer(1),
                "rewritten while the slot was held: {}",
                &passed[..120]
            );
            assert_eq!(limit.busy(), 1);

            // With the slot free, the same answer is rewritten: past the
            // threshold it came in under half of.
            release.send(()).unwrap();
            holder.await.unwrap();
            server_in
                .write_all(format!("{}\n", deep_answer(2)).as_bytes())
                .await
                .unwrap();
            let rewritten = client_out.next_line().await.unwrap().unwrap();
            assert!(rewritten.contains("level: 59"), "{}", &rewritten[..200]);
            assert!(
                rewritten.len() > OFFLOAD_BYTES,
                "{} bytes",
                rewritten.len()
            );
            assert_eq!((limit.busy(), limit.available()), (1, 1));
        });
    }
}
