//! The certificate authority that makes interception possible.
//!
//! One CA (certificate + key, PEM files, the key readable only by its owner)
//! signs a leaf certificate per host on demand. Every leaf shares one key
//! pair generated at start-up: minting is then a single signature (fast on
//! the first request to a new host), and nothing secret about a leaf outlives
//! the process. The TLS chain served is `leaf, CA`, so a client pinning the CA
//! (Chromium's `--ignore-certificate-errors-spki-list`) finds it in the chain.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PublicKeyData as _, SanType, SerialNumber,
};
use rustls::sign::CertifiedKey;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use sha2::{Digest as _, Sha256};
use time::{Duration, OffsetDateTime};

use crate::CaptureError;
use crate::files::{create_private_dir, read, write_file};
use crate::pem::{contains, first_pem_cert};

/// File name of the CA certificate inside the CA directory.
pub const CA_CERT_FILE: &str = "ca.pem";
/// File name of the CA private key inside the CA directory (mode 0600).
pub const CA_KEY_FILE: &str = "ca.key";

/// How many leaf certificates are kept; the oldest is forgotten beyond this.
const LEAF_CACHE_LIMIT: usize = 1024;
/// Leaves start a day in the past (clock skew between client and proxy).
const LEAF_BACKDATE: Duration = Duration::days(1);
/// Leaves end a year ahead: under the 397-day maximum browsers enforce.
const LEAF_LIFETIME: Duration = Duration::days(365);
/// Re-mint a cached leaf this long before it expires.
const LEAF_RENEW_MARGIN: Duration = Duration::days(7);

/// A CA that loads or creates its files and mints per-host leaf certificates.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let ca = ar_capture::CertificateAuthority::load_or_create(dir.path()).unwrap();
/// assert!(ca.cert_pem().starts_with("-----BEGIN CERTIFICATE-----"));
/// // The same directory gives the same CA next time.
/// let again = ar_capture::CertificateAuthority::load_or_create(dir.path()).unwrap();
/// assert_eq!(ca.spki_sha256_base64(), again.spki_sha256_base64());
/// let leaf = ca.leaf("shop.test").unwrap();
/// assert_eq!(leaf.cert.len(), 2); // leaf + CA
/// ```
pub struct CertificateAuthority {
    dir: Option<PathBuf>,
    cert_pem: String,
    cert_der: CertificateDer<'static>,
    spki_sha256: [u8; 32],
    issuer: Issuer<'static, KeyPair>,
    leaf_key: KeyPair,
    leaf_signing_key: Arc<dyn rustls::sign::SigningKey>,
    cache: Mutex<LeafCache>,
}

impl std::fmt::Debug for CertificateAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CertificateAuthority")
            .field("dir", &self.dir)
            .field("spki_sha256", &self.spki_sha256_base64())
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct LeafCache {
    leaves: HashMap<String, (Arc<CertifiedKey>, OffsetDateTime)>,
    order: VecDeque<String>,
}

impl CertificateAuthority {
    /// The default CA directory: `<user data dir>/ar/ca` (e.g. `~/.local/share/ar/ca`).
    pub fn default_dir() -> Result<PathBuf, CaptureError> {
        dirs::data_dir()
            .map(|d| d.join("ar").join("ca"))
            .ok_or(CaptureError::NoDataDir)
    }

    /// Loads the CA from `dir` (`ca.pem` + `ca.key`), or creates both files
    /// (directory 0700, key 0600) when neither exists yet.
    pub fn load_or_create(dir: &Path) -> Result<Self, CaptureError> {
        let cert_path = dir.join(CA_CERT_FILE);
        let key_path = dir.join(CA_KEY_FILE);
        match (cert_path.exists(), key_path.exists()) {
            (true, true) => {
                let cert_pem = read(&cert_path)?;
                let key_pem = read(&key_path)?;
                Self::from_pem(
                    Some(dir.to_path_buf()),
                    &cert_pem,
                    &key_pem,
                    &cert_path,
                    &key_path,
                )
            }
            (false, false) => {
                let now = OffsetDateTime::now_utc();
                let (cert_pem, key_pem) = new_ca_pem(now)?;
                create_private_dir(dir)?;
                write_file(&key_path, key_pem.as_bytes(), 0o600)?;
                write_file(&cert_path, cert_pem.as_bytes(), 0o644)?;
                Self::from_pem(
                    Some(dir.to_path_buf()),
                    &cert_pem,
                    &key_pem,
                    &cert_path,
                    &key_path,
                )
            }
            (true, false) => Err(CaptureError::CaInvalid {
                path: key_path,
                reason: "the CA certificate exists but its key is missing".into(),
            }),
            (false, true) => Err(CaptureError::CaInvalid {
                path: cert_path,
                reason: "the CA key exists but its certificate is missing".into(),
            }),
        }
    }

    /// A fresh CA that lives only in memory (tests, one-off sessions).
    pub fn ephemeral() -> Result<Self, CaptureError> {
        let (cert_pem, key_pem) = new_ca_pem(OffsetDateTime::now_utc())?;
        Self::from_pem(
            None,
            &cert_pem,
            &key_pem,
            Path::new("<memory>"),
            Path::new("<memory>"),
        )
    }

    fn from_pem(
        dir: Option<PathBuf>,
        cert_pem: &str,
        key_pem: &str,
        cert_path: &Path,
        key_path: &Path,
    ) -> Result<Self, CaptureError> {
        let invalid = |path: &Path, reason: String| CaptureError::CaInvalid {
            path: path.to_path_buf(),
            reason,
        };
        let key = KeyPair::from_pem(key_pem).map_err(|e| invalid(key_path, e.to_string()))?;
        let spki_sha256: [u8; 32] = Sha256::digest(key.subject_public_key_info()).into();
        let cert_der = first_pem_cert(cert_pem)
            .ok_or_else(|| invalid(cert_path, "no CERTIFICATE block found".into()))?;
        if !contains(&cert_der, &key.subject_public_key_info()) {
            return Err(invalid(
                cert_path,
                format!(
                    "the certificate does not match the key in {}",
                    key_path.display()
                ),
            ));
        }
        let issuer = Issuer::from_ca_cert_pem(cert_pem, key)
            .map_err(|e| invalid(cert_path, e.to_string()))?;
        let leaf_key = KeyPair::generate().map_err(|e| cert_error("leaf key", &e))?;
        let pkcs8 = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
        let leaf_signing_key = rustls::crypto::ring::sign::any_supported_type(&pkcs8)
            .map_err(|e| CaptureError::Tls(e.to_string()))?;
        Ok(Self {
            dir,
            cert_pem: cert_pem.to_string(),
            cert_der,
            spki_sha256,
            issuer,
            leaf_key,
            leaf_signing_key,
            cache: Mutex::new(LeafCache::default()),
        })
    }

    /// The directory the CA files live in (`None` for an ephemeral CA).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The path of the CA certificate file, when the CA lives on disk.
    pub fn cert_path(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(CA_CERT_FILE))
    }

    /// The CA certificate in PEM form (what clients are told to trust).
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The CA certificate in DER form.
    pub fn cert_der(&self) -> &CertificateDer<'static> {
        &self.cert_der
    }

    /// Base64 of the SHA-256 of the CA's SubjectPublicKeyInfo: the value
    /// Chromium's `--ignore-certificate-errors-spki-list` takes.
    pub fn spki_sha256_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.spki_sha256)
    }

    /// Writes the CA certificate (PEM) to `path`.
    pub fn export(&self, path: &Path) -> Result<(), CaptureError> {
        write_file(path, self.cert_pem.as_bytes(), 0o644)
    }

    /// The leaf certificate chain and key for `host` (a DNS name or an IP
    /// literal), minted on first use and cached.
    pub fn leaf(&self, host: &str) -> Result<Arc<CertifiedKey>, CaptureError> {
        self.leaf_at(host, OffsetDateTime::now_utc())
    }

    /// Like [`CertificateAuthority::leaf`], with the current time given by the caller.
    pub fn leaf_at(
        &self,
        host: &str,
        now: OffsetDateTime,
    ) -> Result<Arc<CertifiedKey>, CaptureError> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if let Some((leaf, not_after)) = self.lock_cache().leaves.get(&host)
            && now + LEAF_RENEW_MARGIN < *not_after
        {
            return Ok(Arc::clone(leaf));
        }
        let (leaf, not_after) = self.mint(&host, now)?;
        let mut cache = self.lock_cache();
        if cache
            .leaves
            .insert(host.clone(), (Arc::clone(&leaf), not_after))
            .is_none()
        {
            cache.order.push_back(host);
            while cache.order.len() > LEAF_CACHE_LIMIT {
                if let Some(old) = cache.order.pop_front() {
                    cache.leaves.remove(&old);
                }
            }
        }
        Ok(leaf)
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, LeafCache> {
        // A panic while holding the lock cannot leave the map inconsistent.
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn mint(
        &self,
        host: &str,
        now: OffsetDateTime,
    ) -> Result<(Arc<CertifiedKey>, OffsetDateTime), CaptureError> {
        let fail = |e: rcgen::Error| cert_error(host, &e);
        let mut params = CertificateParams::default();
        let san = match host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            Ok(ip) => SanType::IpAddress(ip),
            Err(_) => SanType::DnsName(host.to_string().try_into().map_err(fail)?),
        };
        params.subject_alt_names = vec![san];
        let mut dn = DistinguishedName::new();
        dn.push(
            DnType::CommonName,
            host.chars().take(64).collect::<String>(),
        );
        params.distinguished_name = dn;
        params.not_before = now - LEAF_BACKDATE;
        let not_after = now + LEAF_LIFETIME;
        params.not_after = not_after;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.serial_number = Some(serial(host, now));
        params.use_authority_key_identifier_extension = true;
        let cert = params
            .signed_by(&self.leaf_key, &self.issuer)
            .map_err(fail)?;
        let chain = vec![cert.der().clone(), self.cert_der.clone()];
        Ok((
            Arc::new(CertifiedKey::new(chain, Arc::clone(&self.leaf_signing_key))),
            not_after,
        ))
    }
}

/// A serial unique per host and minting time: browsers reject two different
/// certificates with the same issuer and serial.
fn serial(host: &str, now: OffsetDateTime) -> SerialNumber {
    let mut hash = Sha256::new();
    hash.update(host.as_bytes());
    hash.update(now.unix_timestamp_nanos().to_be_bytes());
    let mut bytes: [u8; 16] = hash.finalize()[..16].try_into().unwrap_or([1; 16]);
    bytes[0] &= 0x7f; // positive
    bytes[0] |= 0x01; // no leading zero byte
    SerialNumber::from_slice(&bytes)
}

fn new_ca_pem(now: OffsetDateTime) -> Result<(String, String), CaptureError> {
    let fail = |e: rcgen::Error| cert_error("CA", &e);
    let key = KeyPair::generate().map_err(fail)?;
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    let who = std::env::var("USER").unwrap_or_default();
    let cn = if who.is_empty() {
        "ar capture CA".to_string()
    } else {
        format!("ar capture CA ({who})")
    };
    dn.push(DnType::CommonName, cn);
    dn.push(DnType::OrganizationName, "ar (auto-reverse)");
    params.distinguished_name = dn;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params.not_before = now - LEAF_BACKDATE;
    params.not_after = now + Duration::days(3650);
    params.serial_number = Some(serial("CA", now));
    let cert = params.self_signed(&key).map_err(fail)?;
    Ok((cert.pem(), key.serialize_pem()))
}

fn cert_error(host: &str, error: &rcgen::Error) -> CaptureError {
    CaptureError::Certificate {
        host: host.to_string(),
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_file_is_private_and_ca_reloads_identically() {
        let dir = tempfile::tempdir().unwrap();
        let ca_dir = dir.path().join("nested").join("ca");
        let ca = CertificateAuthority::load_or_create(&ca_dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(ca_dir.join(CA_KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = CertificateAuthority::load_or_create(&ca_dir).unwrap();
        assert_eq!(ca.cert_pem(), again.cert_pem());
        assert_eq!(ca.spki_sha256_base64().len(), 44);
    }

    #[test]
    fn missing_key_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        CertificateAuthority::load_or_create(dir.path()).unwrap();
        std::fs::remove_file(dir.path().join(CA_KEY_FILE)).unwrap();
        let err = CertificateAuthority::load_or_create(dir.path()).unwrap_err();
        assert!(err.to_string().contains("key is missing"), "{err}");
    }

    #[test]
    fn mismatched_key_is_rejected() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        CertificateAuthority::load_or_create(a.path()).unwrap();
        CertificateAuthority::load_or_create(b.path()).unwrap();
        std::fs::copy(b.path().join(CA_KEY_FILE), a.path().join(CA_KEY_FILE)).unwrap();
        let err = CertificateAuthority::load_or_create(a.path()).unwrap_err();
        assert!(err.to_string().contains("does not match"), "{err}");
    }

    #[test]
    fn leaves_are_cached_and_distinct_per_host() {
        let ca = CertificateAuthority::ephemeral().unwrap();
        let a = ca.leaf("Shop.Test").unwrap();
        let b = ca.leaf("shop.test").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let ip = ca.leaf("127.0.0.1").unwrap();
        assert_ne!(ip.cert[0], a.cert[0]);
        assert_eq!(a.cert[1], *ca.cert_der());
    }

    #[test]
    fn pem_certs_reads_bundles() {
        let a = CertificateAuthority::ephemeral().unwrap();
        let b = CertificateAuthority::ephemeral().unwrap();
        let bundle = format!("junk\n{}\n{}", a.cert_pem(), b.cert_pem());
        assert_eq!(crate::pem::pem_certs(&bundle).len(), 2);
        assert!(crate::pem::pem_certs("no certs here").is_empty());
    }
}
