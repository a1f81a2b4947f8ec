//! `ar ca`: where the interception CA lives and how to make clients trust it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use ar_capture::CertificateAuthority;

/// Show, create or export the CA that `ar` uses to intercept HTTPS.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Directory holding ca.pem and ca.key (created on first use).
    /// Default: <user data dir>/ar/ca, e.g. ~/.local/share/ar/ca.
    #[arg(long, value_name = "DIR")]
    pub(crate) ca_dir: Option<PathBuf>,
    /// Print only the base64 SHA-256 of the CA's public key, for Chromium's
    /// --ignore-certificate-errors-spki-list.
    #[arg(long, conflicts_with = "export")]
    print_spki: bool,
    /// Write the CA certificate (PEM) to PATH.
    #[arg(long, value_name = "PATH")]
    export: Option<PathBuf>,
}

/// Loads the CA from `--ca-dir` or the default directory, creating it on first use.
pub(crate) fn load(ca_dir: Option<PathBuf>) -> anyhow::Result<CertificateAuthority> {
    let dir = match ca_dir {
        Some(dir) => dir,
        None => CertificateAuthority::default_dir()?,
    };
    CertificateAuthority::load_or_create(&dir)
        .with_context(|| format!("cannot load the CA in {}", dir.display()))
}

pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let ca = load(args.ca_dir)?;
    if args.print_spki {
        writeln!(out, "{}", ca.spki_sha256_base64())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.export {
        ca.export(path)
            .with_context(|| format!("cannot export the CA to {}", path.display()))?;
        writeln!(out, "wrote the ar CA certificate to {}", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let cert = ca
        .cert_path()
        .map_or_else(|| "(in memory)".to_string(), |p| p.display().to_string());
    let key = ca
        .dir()
        .map(|d| d.join(ar_capture::CA_KEY_FILE).display().to_string())
        .unwrap_or_default();
    write!(
        out,
        "{}",
        trust_help(&cert, &key, &ca.spki_sha256_base64(), "127.0.0.1:8080")
    )?;
    Ok(ExitCode::SUCCESS)
}

/// How to trust the CA, client by client.
pub(crate) fn trust_help(cert: &str, key: &str, spki: &str, proxy: &str) -> String {
    format!(
        "\
ar interception CA
  certificate: {cert}
  private key: {key} (keep it private: it can impersonate any site to clients that trust it)
  SPKI sha256: {spki}

Trust it, per client (proxy at http://{proxy}):
  curl        curl --proxy http://{proxy} --cacert {cert} https://example.com/
  OpenSSL     SSL_CERT_FILE={cert}            (Python ssl, Ruby, git, ...; replaces the default bundle)
  Node.js     NODE_EXTRA_CA_CERTS={cert}      (adds to Node's roots)
  requests    REQUESTS_CA_BUNDLE={cert}       (Python requests / httpx via SSL_CERT_FILE)
  Chromium    chromium --proxy-server=http://{proxy} --ignore-certificate-errors-spki-list={spki}
  Everything  export HTTP_PROXY=http://{proxy} HTTPS_PROXY=http://{proxy}
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_names_every_client_and_the_spki() {
        let text = trust_help("/ca/ca.pem", "/ca/ca.key", "AAAA=", "127.0.0.1:9");
        for needle in [
            "--cacert /ca/ca.pem",
            "SSL_CERT_FILE=/ca/ca.pem",
            "NODE_EXTRA_CA_CERTS",
            "REQUESTS_CA_BUNDLE",
            "spki-list=AAAA=",
        ] {
            assert!(text.contains(needle), "{needle} missing from:\n{text}");
        }
    }
}
