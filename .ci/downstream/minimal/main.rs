//! A runtime built by hand with its I/O driver only: no time driver, so
//! anything in the layer that needed tokio's timer would panic here.

#[path = "../service.rs"]
mod service;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    runtime.spawn(async move { axum::serve(listener, service::app()).await });
    // The checks block: run them off the runtime's workers.
    std::thread::spawn(move || service::check(addr))
        .join()
        .expect("checks");
}
