//! A bench-only MITM proxy built on the `hudsucker` crate with its no-op
//! handler (it relays; it does not record anything), the same CA as `ar`,
//! ring for crypto, and the origin's CA as its upstream trust root.
//!
//! Usage: hudsucker_proxy PORT CA_DIR UPSTREAM_CA_PEM

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
    let issuer = Issuer::from_ca_cert_pem(&std::fs::read_to_string(ca_dir.join("ca.pem")).unwrap(), key).unwrap();
    let ca = RcgenAuthority::new(issuer, 1_000, rustls::crypto::ring::default_provider());

    let mut roots = rustls::RootCertStore::empty();
    let pem = std::fs::read(&args[3]).unwrap();
    for cert in rustls_pki_types::pem::PemObject::pem_slice_iter(&pem) {
        let cert: rustls_pki_types::CertificateDer<'static> = cert.unwrap();
        roots.add(cert).unwrap();
    }
    let client_config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(client_config).https_or_http().enable_http1().build();

    let proxy = Proxy::builder()
        .with_addr(SocketAddr::from(([127, 0, 0, 1], port)))
        .with_ca(ca)
        .with_http_connector(connector)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .build()
        .unwrap();
    proxy.start().await.unwrap();
}
