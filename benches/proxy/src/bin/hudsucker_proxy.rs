//! A bench-only MITM proxy built on the `hudsucker` crate, the same CA as
//! `ar`, ring for crypto, and the origin's CA as its upstream trust root.
//!
//! By default it runs hudsucker's no-op handler: it relays and records
//! nothing. With a fourth argument it records the way a hudsucker user would
//! write it (the recorder in [`record`]): each exchange, bodies collected,
//! becomes one HAR entry (serde_json) appended to that file by a writer
//! thread. That is the capture `ar proxy` does, less the live spec.
//!
//! Usage: hudsucker_proxy PORT CA_DIR UPSTREAM_CA_PEM [HAR_JSONL_OUT]

use std::net::SocketAddr;
use std::sync::Arc;

use hudsucker::Proxy;
use hudsucker::certificate_authority::RcgenAuthority;
use rcgen::{Issuer, KeyPair};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = args[1].parse().unwrap();
    let ca_dir = std::path::PathBuf::from(&args[2]);
    let key = KeyPair::from_pem(&std::fs::read_to_string(ca_dir.join("ca.key")).unwrap()).unwrap();
    let issuer = Issuer::from_ca_cert_pem(
        &std::fs::read_to_string(ca_dir.join("ca.pem")).unwrap(),
        key,
    )
    .unwrap();
    let ca = RcgenAuthority::new(issuer, 1_000, rustls::crypto::ring::default_provider());

    let mut roots = rustls::RootCertStore::empty();
    let pem = std::fs::read(&args[3]).unwrap();
    for cert in rustls_pki_types::pem::PemObject::pem_slice_iter(&pem) {
        let cert: rustls_pki_types::CertificateDer<'static> = cert.unwrap();
        roots.add(cert).unwrap();
    }
    let client_config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(client_config)
        .https_or_http()
        .enable_http1()
        .build();

    let builder = Proxy::builder()
        .with_addr(SocketAddr::from(([127, 0, 0, 1], port)))
        .with_ca(ca)
        .with_http_connector(connector);
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match args.get(4) {
        Some(out) => {
            let (recorder, writer) = record::Recorder::to_file(out);
            let proxy = builder
                .with_http_handler(recorder)
                .with_graceful_shutdown(stop)
                .build()
                .unwrap();
            proxy.start().await.unwrap();
            writer.finish();
        }
        None => {
            let proxy = builder.with_graceful_shutdown(stop).build().unwrap();
            proxy.start().await.unwrap();
        }
    }
}

/// A HAR recorder as a hudsucker user would write one.
mod record {
    use std::io::Write as _;
    use std::sync::mpsc;
    use std::time::{Instant, SystemTime};

    use http_body_util::{BodyExt as _, Full};
    use hudsucker::hyper::{Request, Response};
    use hudsucker::{Body, HttpContext, HttpHandler, RequestOrResponse};
    use serde_json::{Value, json};

    /// Cloned per request by hudsucker: it carries the request's half of the entry to its response.
    #[derive(Clone)]
    pub struct Recorder {
        lines: mpsc::Sender<Vec<u8>>,
        request: Option<(SystemTime, Instant, Value)>,
    }

    /// The thread appending lines to the file.
    pub struct Writer {
        thread: std::thread::JoinHandle<()>,
    }

    impl Writer {
        /// Waits for every line to reach the file (all senders are gone once the proxy is).
        pub fn finish(self) {
            let _ = self.thread.join();
        }
    }

    impl Recorder {
        pub fn to_file(path: &str) -> (Self, Writer) {
            let file = std::fs::File::create(path).unwrap();
            let (lines, queue) = mpsc::channel::<Vec<u8>>();
            let thread = std::thread::spawn(move || {
                let mut out = std::io::BufWriter::with_capacity(256 * 1024, file);
                while let Ok(line) = queue.recv() {
                    out.write_all(&line).unwrap();
                    // Written out whenever the queue is drained, as `ar` does.
                    while let Ok(line) = queue.try_recv() {
                        out.write_all(&line).unwrap();
                    }
                    out.flush().unwrap();
                }
            });
            (
                Self {
                    lines,
                    request: None,
                },
                Writer { thread },
            )
        }
    }

    fn headers(map: &hudsucker::hyper::HeaderMap) -> Value {
        map.iter()
            .map(|(name, value)| json!({"name": name.as_str(), "value": String::from_utf8_lossy(value.as_bytes())}))
            .collect()
    }

    fn content_type(map: &hudsucker::hyper::HeaderMap) -> &str {
        map.get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// Collects a body (hudsucker hands it over as a stream), for the entry and to send on.
    async fn collect(body: Body) -> bytes::Bytes {
        body.collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default()
    }

    impl HttpHandler for Recorder {
        async fn handle_request(
            &mut self,
            _ctx: &HttpContext,
            req: Request<Body>,
        ) -> RequestOrResponse {
            let (parts, body) = req.into_parts();
            let bytes = collect(body).await;
            let entry = json!({
                "method": parts.method.as_str(),
                "url": parts.uri.to_string(),
                "httpVersion": format!("{:?}", parts.version),
                "headers": headers(&parts.headers),
                "cookies": [],
                "queryString": [],
                "headersSize": -1,
                "bodySize": bytes.len(),
                "postData": {"mimeType": content_type(&parts.headers), "text": String::from_utf8_lossy(&bytes)},
            });
            self.request = Some((SystemTime::now(), Instant::now(), entry));
            Request::from_parts(parts, Body::from(Full::new(bytes))).into()
        }

        async fn handle_response(
            &mut self,
            _ctx: &HttpContext,
            res: Response<Body>,
        ) -> Response<Body> {
            let (parts, body) = res.into_parts();
            let bytes = collect(body).await;
            if let Some((started, at, request)) = self.request.take() {
                let ms = at.elapsed().as_secs_f64() * 1e3;
                let entry = json!({
                    "startedDateTime": humantime::format_rfc3339_millis(started).to_string(),
                    "time": ms,
                    "request": request,
                    "response": {
                        "status": parts.status.as_u16(),
                        "statusText": parts.status.canonical_reason().unwrap_or(""),
                        "httpVersion": format!("{:?}", parts.version),
                        "headers": headers(&parts.headers),
                        "cookies": [],
                        "content": {"size": bytes.len(), "mimeType": content_type(&parts.headers), "text": String::from_utf8_lossy(&bytes)},
                        "redirectURL": "",
                        "headersSize": -1,
                        "bodySize": bytes.len(),
                    },
                    "cache": {},
                    "timings": {"send": 0, "wait": ms, "receive": 0},
                });
                let mut line = serde_json::to_vec(&entry).unwrap();
                line.push(b'\n');
                let _ = self.lines.send(line);
            }
            Response::from_parts(parts, Body::from(Full::new(bytes)))
        }
    }
}
