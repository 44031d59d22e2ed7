//! tokio with every feature (`full`, which brings `parking_lot`), the
//! runtime from `#[tokio::main]`.

#[path = "../service.rs"]
mod service;

#[tokio::main]
async fn main() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, service::app()).await });
    tokio::task::spawn_blocking(move || service::check(addr)).await.expect("checks");
}
