//! Raw client bytes into a loopback `ar-capture` proxy: the HTTP/1 request
//! head (and whatever follows it) as a hostile client sends it.

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ar_capture::{CertificateAuthority, Proxy};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// How long the proxy may take to answer or close after the client stops
/// sending: any longer is a hang.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// The proxy and a loopback origin, started once per process.
struct Running {
    proxy: SocketAddr,
    origin: SocketAddr,
}

/// Sends `data` on a fresh connection to the proxy, closes the sending side
/// and reads until the proxy closes. The proxy answers or closes within
/// ten seconds, and then still relays a well-formed request.
pub fn check(data: &[u8]) {
    let running = running();
    let mut tcp = TcpStream::connect(running.proxy).expect("the proxy accepts");
    tcp.set_read_timeout(Some(ANSWER_WITHIN)).expect("timeout");
    // The proxy may close before taking every byte (a refused head).
    let _ = tcp.write_all(data);
    let _ = tcp.shutdown(Shutdown::Write);
    let mut sink = [0u8; 16 * 1024];
    loop {
        match tcp.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            // A signal (libFuzzer's timers) interrupted the wait: wait again.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("the proxy neither answered nor closed: {e}"),
        }
    }
    let health = format!(
        "GET http://{}/health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        running.origin, running.origin
    );
    let mut tcp = TcpStream::connect(running.proxy).expect("the proxy still accepts");
    tcp.set_read_timeout(Some(ANSWER_WITHIN)).expect("timeout");
    tcp.write_all(health.as_bytes()).expect("the proxy reads");
    let mut reply = Vec::new();
    let _ = tcp.read_to_end(&mut reply);
    assert!(
        reply.starts_with(b"HTTP/1.1 200"),
        "the proxy no longer relays: {}",
        String::from_utf8_lossy(&reply)
    );
}

fn running() -> &'static Running {
    static RUNNING: OnceLock<Running> = OnceLock::new();
    RUNNING.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(serve(tx));
        });
        rx.recv().expect("the proxy starts")
    })
}

/// Runs the origin and the proxy (offline: it dials loopback only) forever.
async fn serve(ready: std::sync::mpsc::Sender<Running>) {
    let origin = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("origin binds");
    let origin_addr = origin.local_addr().expect("origin address");
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = origin.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = tcp.read(&mut buf).await;
                let _ = tcp
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                          content-length: 11\r\nconnection: close\r\n\r\n{\"ok\":true}",
                    )
                    .await;
            });
        }
    });
    let ca = Arc::new(CertificateAuthority::ephemeral().expect("a CA"));
    let (flows, mut drain) = tokio::sync::mpsc::channel(1024);
    tokio::spawn(async move { while drain.recv().await.is_some() {} });
    let proxy = Proxy::builder(ca)
        .offline(true)
        .archive_sink(flows)
        .bind()
        .await
        .expect("the proxy binds");
    let _ = ready.send(Running {
        proxy: proxy.local_addr(),
        origin: origin_addr,
    });
    proxy.run_until(std::future::pending()).await;
}
