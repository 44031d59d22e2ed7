//! One direction of the stdio relay: newline-framed messages read with a
//! bounded line, rewritten through the shared session, written in order.

use std::sync::{Arc, Mutex, MutexGuard};

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

/// The session both directions share.
pub type Shared = Arc<Mutex<Session>>;

fn lock(session: &Shared) -> MutexGuard<'_, Session> {
    // A panic elsewhere while holding it leaves plain data behind.
    session
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A piece of the stream, owned, to hand to an `await`.
enum Owned {
    Line(Vec<u8>),
    Pass(Vec<u8>),
}

/// Relays `from` to `to` until `from` ends, lines of at most `limit` bytes
/// read and rewritten, longer ones passed through as they come. A writer
/// that fails (the reader went away) stops the writing but not the
/// reading, so the other side never blocks on a full pipe. Gives whether
/// every byte was written.
pub async fn relay<R, W>(
    mut from: R,
    mut to: W,
    session: Shared,
    direction: Direction,
    limit: usize,
) -> bool
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines = Lines::new(limit);
    let mut buffer = vec![0; CHUNK];
    let mut writing = true;
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
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
    session: &Shared,
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
/// message the session rewrites). A long server line is rewritten on
/// tokio's blocking pool, so a large tool result never stalls a worker.
async fn rewrite(line: &[u8], session: &Shared, direction: Direction) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    match direction {
        Direction::ToServer => lock(session).client_message(text),
        Direction::ToClient if line.len() < OFFLOAD_BYTES => lock(session).server_message(text),
        Direction::ToClient => {
            let text = text.to_owned();
            let session = session.clone();
            tokio::task::spawn_blocking(move || lock(&session).server_message(&text))
                .await
                .ok()
                .flatten()
        }
    }
}
