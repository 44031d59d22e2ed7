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
use tower_terse::mcp::{Lines, OFFLOAD_BYTES, Piece, Session};

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
/// message the session rewrites). A long line is read on tokio's blocking
/// pool, so a large tool result never stalls a worker.
async fn rewrite(line: &[u8], session: &Session, direction: Direction) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    let read = move |session: &Session, text: &str| match direction {
        Direction::ToServer => session.client_message(text),
        Direction::ToClient => session.server_message(text),
    };
    if line.len() < OFFLOAD_BYTES {
        return read(session, text);
    }
    let text = text.to_owned();
    let session = session.clone();
    tokio::task::spawn_blocking(move || read(&session, &text))
        .await
        .ok()
        .flatten()
}
