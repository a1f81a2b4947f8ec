//! Just enough PEM: the `CERTIFICATE` blocks of a file (a CA, a bundle).

use base64::Engine as _;
use rustls_pki_types::CertificateDer;

/// The DER bytes of the first `CERTIFICATE` block of a PEM text.
pub(crate) fn first_pem_cert(pem: &str) -> Option<CertificateDer<'static>> {
    pem_certs(pem).into_iter().next()
}

/// Every `CERTIFICATE` block of a PEM text, as DER.
pub(crate) fn pem_certs(pem: &str) -> Vec<CertificateDer<'static>> {
    const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
    const END: &str = "-----END CERTIFICATE-----";
    let mut out = Vec::new();
    let mut rest = pem;
    while let Some(start) = rest.find(BEGIN) {
        let body = &rest[start + BEGIN.len()..];
        let Some(end) = body.find(END) else { break };
        let b64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
        if let Ok(der) = base64::engine::general_purpose::STANDARD.decode(b64) {
            out.push(CertificateDer::from(der));
        }
        rest = &body[end + END.len()..];
    }
    out
}

/// Whether `needle` occurs in `haystack` (a key's SPKI inside a certificate).
pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}
