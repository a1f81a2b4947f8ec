//! `ar-capture`'s proxy alone: every flow is built and handed to a sink that
//! counts and drops it. Compared with `ar proxy`, the difference is the cost
//! of the archive (HAR encoding + writing flows.jsonl); compared with the
//! hudsucker proxy, it is the same job (relay) plus building every flow.
//!
//! Usage: capture_core PORT CA_DIR UPSTREAM_CA_PEM

use std::sync::Arc;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = args[1].parse().unwrap();
    let ca = Arc::new(ar_capture::CertificateAuthority::load_or_create(std::path::Path::new(&args[2])).unwrap());
    let (tx, mut flows) = tokio::sync::mpsc::channel(16 * 1024);
    let proxy = ar_capture::Proxy::builder(ca)
        .port(port)
        .archive_sink(tx)
        .upstream_roots_pem(std::path::Path::new(&args[3]))
        .unwrap()
        .bind()
        .await
        .unwrap();
    let handle = proxy.spawn();
    let mut seen = 0u64;
    loop {
        tokio::select! {
            flow = flows.recv() => match flow { Some(_) => seen += 1, None => break },
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    eprintln!("capture_core: {seen} flows, {:?}", handle.stats());
}
