//! [`Connector`]: hyper-util's `HttpConnector` whose connections add
//! nothing to the answers they carry.
//!
//! hyper-util's client copies what a connection says about itself
//! (`Connected`'s extra: for a TCP connection, its two addresses as an
//! `HttpInfo`) into the extensions of every answer it gives: an allocation
//! and an insertion per answer, which nothing in the gateway reads and the
//! gateway used to remove again, a second lookup. Connections made here
//! say nothing of the kind.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::Uri;
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tower::Service;

use crate::upstream_body::BoxError;

/// An [`HttpConnector`] whose connections carry no `HttpInfo`.
#[derive(Clone, Debug)]
pub(crate) struct Connector(pub(crate) HttpConnector);

impl Service<Uri> for Connector {
    type Response = Plain;
    type Error = BoxError;
    // Boxed: one per connection made, not per request.
    type Future = Pin<Box<dyn Future<Output = Result<Plain, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let connecting = self.0.call(uri);
        // The connector's own error, boxed: the client's error has it as
        // its source as before (its causes, a timeout's included, below).
        Box::pin(async move { connecting.await.map(Plain).map_err(Into::into) })
    }
}

/// A TCP connection to the upstream that tells the client nothing about
/// itself ([`Connected::new`]).
#[derive(Debug)]
pub(crate) struct Plain(TokioIo<TcpStream>);

impl Connection for Plain {
    fn connected(&self) -> Connected {
        Connected::new()
    }
}

impl Read for Plain {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl Write for Plain {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Empty};
    use hyper_util::client::legacy::Client;
    use hyper_util::client::legacy::connect::HttpInfo;
    use hyper_util::rt::TokioExecutor;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// An answer through the connector has no `HttpInfo`, where one through
    /// hyper-util's own connector has.
    #[tokio::test]
    async fn answers_carry_no_connection_info() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut socket, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.ends_with(b"\r\n\r\n") {
                        let n = socket.read(&mut buf).await.unwrap();
                        assert!(n > 0);
                        head.extend_from_slice(&buf[..n]);
                    }
                    socket
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                        .await
                        .unwrap();
                });
            }
        });
        let uri: Uri = format!("http://{addr}/").parse().unwrap();

        let plain: Client<Connector, Empty<bytes::Bytes>> =
            Client::builder(TokioExecutor::new()).build(Connector(HttpConnector::new()));
        let answer = plain.get(uri.clone()).await.unwrap();
        assert_eq!(answer.status(), 200);
        assert!(answer.extensions().get::<HttpInfo>().is_none());
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"ok");

        let usual: Client<HttpConnector, Empty<bytes::Bytes>> =
            Client::builder(TokioExecutor::new()).build(HttpConnector::new());
        let answer = usual.get(uri).await.unwrap();
        assert_eq!(
            answer
                .extensions()
                .get::<HttpInfo>()
                .map(|info| info.remote_addr()),
            Some(addr)
        );
    }
}
