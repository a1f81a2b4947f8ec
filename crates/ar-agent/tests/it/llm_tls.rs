//! The real TLS path: rustls (ring) to an HTTPS endpoint whose certificate is
//! issued by a test CA, trusted through `extra_root_certs_der`.

use std::error::Error as _;
use std::sync::Arc;

use ar_agent::llm::{LlmError, ProviderConfig, ProviderKind};
use ar_mock_llm::{MockLlm, Reply};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use tokio_rustls::rustls;

use crate::llm_support::{fast_retry, request, run};

/// Terminates TLS on 127.0.0.1:0 and relays to the (plain HTTP) mock.
async fn tls_front(mock: &MockLlm) -> (u16, Vec<u8>) {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone(), ca.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into()),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let upstream = mock.addr();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    (port, ca.der().to_vec())
}

#[tokio::test]
async fn talks_https_to_a_server_signed_by_an_extra_root() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("over TLS"));
    let (port, ca_der) = tls_front(&mock).await;
    let mut cfg = ProviderConfig::new(ProviderKind::Anthropic)
        .with_base_url(format!("https://localhost:{port}"))
        .with_api_key(ar_agent::llm::ApiKey::new("sk-ant-tls"));
    cfg.extra_root_certs_der = vec![ca_der];
    let p = cfg.build(|_| None).unwrap();
    let (result, _) = run(p.as_ref(), &request("hi")).await;
    assert_eq!(result.unwrap().message.text(), "over TLS");
    assert_eq!(mock.requests()[0].header("x-api-key"), Some("sk-ant-tls"));
}

#[tokio::test]
async fn refuses_a_certificate_from_an_unknown_issuer() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("must not arrive"));
    let (port, _) = tls_front(&mock).await;
    let p = ProviderConfig::new(ProviderKind::Anthropic)
        .with_base_url(format!("https://localhost:{port}"))
        .with_api_key(ar_agent::llm::ApiKey::new("sk-ant-tls"))
        .with_retry(fast_retry(2))
        .build(|_| None)
        .unwrap();
    let err = run(p.as_ref(), &request("hi")).await.0.unwrap_err();
    let cause = match &err {
        LlmError::GaveUp { .. } => err.source().unwrap().to_string(),
        other => other.to_string(),
    };
    assert!(cause.to_lowercase().contains("certificate"), "{cause}");
    assert_eq!(mock.request_count(), 0, "nothing reached the server");
}
