//! A bench-only MITM proxy built on the `hudsucker` crate, the same CA as
//! `ar`, ring for crypto, and the origin's CA as its upstream trust root.
//!
//! Built with hudsucker's `http2` feature: inside TLS it offers clients h2
//! and http/1.1, and its upstream client offers an origin both (ALPN), as
//! `ar proxy` does; hudsucker's pooled client then carries every client
//! connection's requests to an h2 origin over shared connections.
//!
//! By default it runs hudsucker's no-op handler: it relays and records
//! nothing. With a fourth argument it records, built the way `ar` is (the
//! recorder in [`record`]): the handler keeps each exchange's parts and
//! collected bodies and hands them to a writer thread, which serializes one
//! HAR entry per exchange (serde derive) and appends it to that file. That
//! is the capture `ar proxy` does, less the live spec.
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
        .enable_http2()
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

/// A HAR recorder on hudsucker, built as `ar` is: the relay only keeps the
/// exchange; a writer thread does the serializing and the writing.
mod record {
    use std::borrow::Cow;
    use std::io::Write as _;
    use std::sync::mpsc;
    use std::time::{Instant, SystemTime};

    use bytes::Bytes;
    use http_body_util::{BodyExt as _, Full};
    use hudsucker::hyper::{HeaderMap, Method, Request, Response, StatusCode, Uri, Version};
    use hudsucker::{Body, HttpContext, HttpHandler, RequestOrResponse};
    use serde::Serialize;

    /// The request's half of an exchange, kept until its response.
    #[derive(Clone)]
    struct Sent {
        started: SystemTime,
        at: Instant,
        method: Method,
        uri: Uri,
        version: Version,
        headers: HeaderMap,
        body: Bytes,
    }

    /// One finished exchange, for the writer thread.
    struct Exchange {
        sent: Sent,
        ms: f64,
        status: StatusCode,
        version: Version,
        headers: HeaderMap,
        body: Bytes,
    }

    /// Cloned per request by hudsucker: it carries the request's half to its response.
    #[derive(Clone)]
    pub struct Recorder {
        exchanges: mpsc::Sender<Box<Exchange>>,
        sent: Option<Sent>,
    }

    /// The thread that serializes and appends the entries.
    pub struct Writer {
        thread: std::thread::JoinHandle<()>,
    }

    impl Writer {
        /// Waits for every entry to reach the file (all senders are gone once the proxy is).
        pub fn finish(self) {
            let _ = self.thread.join();
        }
    }

    impl Recorder {
        pub fn to_file(path: &str) -> (Self, Writer) {
            let file = std::fs::File::create(path).unwrap();
            let (exchanges, queue) = mpsc::channel::<Box<Exchange>>();
            let thread = std::thread::spawn(move || {
                let mut out = std::io::BufWriter::with_capacity(256 * 1024, file);
                let write = |out: &mut std::io::BufWriter<std::fs::File>, exchange: &Exchange| {
                    serde_json::to_writer(&mut *out, &entry(exchange)).unwrap();
                    out.write_all(b"\n").unwrap();
                };
                while let Ok(exchange) = queue.recv() {
                    write(&mut out, &exchange);
                    // Written out whenever the queue is drained, as `ar` does.
                    while let Ok(exchange) = queue.try_recv() {
                        write(&mut out, &exchange);
                    }
                    out.flush().unwrap();
                }
            });
            (
                Self {
                    exchanges,
                    sent: None,
                },
                Writer { thread },
            )
        }
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Entry<'a> {
        started_date_time: String,
        time: f64,
        request: HarRequest<'a>,
        response: HarResponse<'a>,
        cache: Empty,
        timings: Timings,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct HarRequest<'a> {
        method: &'a str,
        url: String,
        http_version: &'static str,
        headers: Vec<Header<'a>>,
        cookies: [Empty; 0],
        query_string: [Empty; 0],
        headers_size: i64,
        body_size: usize,
        post_data: Content<'a>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct HarResponse<'a> {
        status: u16,
        status_text: &'static str,
        http_version: &'static str,
        headers: Vec<Header<'a>>,
        cookies: [Empty; 0],
        content: Content<'a>,
        #[serde(rename = "redirectURL")]
        redirect_url: &'static str,
        headers_size: i64,
        body_size: usize,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Content<'a> {
        size: usize,
        mime_type: &'a str,
        text: Cow<'a, str>,
    }

    #[derive(Serialize)]
    struct Header<'a> {
        name: &'a str,
        value: Cow<'a, str>,
    }

    #[derive(Serialize)]
    struct Timings {
        send: f64,
        wait: f64,
        receive: f64,
    }

    #[derive(Serialize)]
    struct Empty {}

    fn entry(exchange: &Exchange) -> Entry<'_> {
        let sent = &exchange.sent;
        Entry {
            started_date_time: humantime::format_rfc3339_millis(sent.started).to_string(),
            time: exchange.ms,
            request: HarRequest {
                method: sent.method.as_str(),
                url: sent.uri.to_string(),
                http_version: version(sent.version),
                headers: headers(&sent.headers),
                cookies: [],
                query_string: [],
                headers_size: -1,
                body_size: sent.body.len(),
                post_data: content(&sent.headers, &sent.body),
            },
            response: HarResponse {
                status: exchange.status.as_u16(),
                status_text: exchange.status.canonical_reason().unwrap_or(""),
                http_version: version(exchange.version),
                headers: headers(&exchange.headers),
                cookies: [],
                content: content(&exchange.headers, &exchange.body),
                redirect_url: "",
                headers_size: -1,
                body_size: exchange.body.len(),
            },
            cache: Empty {},
            timings: Timings {
                send: 0.0,
                wait: exchange.ms,
                receive: 0.0,
            },
        }
    }

    fn version(version: Version) -> &'static str {
        match version {
            Version::HTTP_2 => "HTTP/2",
            Version::HTTP_10 => "HTTP/1.0",
            _ => "HTTP/1.1",
        }
    }

    fn headers(map: &HeaderMap) -> Vec<Header<'_>> {
        map.iter()
            .map(|(name, value)| Header {
                name: name.as_str(),
                value: String::from_utf8_lossy(value.as_bytes()),
            })
            .collect()
    }

    fn content<'a>(headers: &'a HeaderMap, body: &'a [u8]) -> Content<'a> {
        Content {
            size: body.len(),
            mime_type: headers
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or(""),
            text: String::from_utf8_lossy(body),
        }
    }

    /// Collects a body (hudsucker hands it over as a stream and has no tap), to keep and to send on.
    async fn collect(body: Body) -> Bytes {
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
            let body = collect(body).await;
            self.sent = Some(Sent {
                started: SystemTime::now(),
                at: Instant::now(),
                method: parts.method.clone(),
                uri: parts.uri.clone(),
                version: parts.version,
                headers: parts.headers.clone(),
                body: body.clone(),
            });
            Request::from_parts(parts, Body::from(Full::new(body))).into()
        }

        async fn handle_response(
            &mut self,
            _ctx: &HttpContext,
            res: Response<Body>,
        ) -> Response<Body> {
            let (parts, body) = res.into_parts();
            let body = collect(body).await;
            if let Some(sent) = self.sent.take() {
                let ms = sent.at.elapsed().as_secs_f64() * 1e3;
                let _ = self.exchanges.send(Box::new(Exchange {
                    sent,
                    ms,
                    status: parts.status,
                    version: parts.version,
                    headers: parts.headers.clone(),
                    body: body.clone(),
                }));
            }
            Response::from_parts(parts, Body::from(Full::new(body)))
        }
    }
}
