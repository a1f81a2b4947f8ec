//! The validated session config: the target URL, where output goes, and the
//! settings every part of the session reads. Built once from the flags (and,
//! with `--resume`, from the previous run's `session.json`).

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use url::Url;

use super::args::{Provider, SessionArgs};
use super::manifest::{Manifest, Settings};

/// Everything a session needs to start, already checked.
#[derive(Debug, Clone)]
pub(crate) struct SessionConfig {
    /// The page the browser opens first.
    pub(crate) target: Url,
    /// The output directory (created if missing).
    pub(crate) out_dir: PathBuf,
    /// Whether `out_dir` holds a previous session we carry on.
    pub(crate) resume: bool,
    /// Extra in-scope hosts (`--scope`).
    pub(crate) scope: Vec<String>,
    /// User path templates (`--template`, `--templates`, and a resumed
    /// session's), checked.
    pub(crate) templates: Vec<String>,
    /// Chromium without a window.
    pub(crate) headless: bool,
    /// A persistent Chromium profile.
    pub(crate) profile: Option<PathBuf>,
    /// An external WebDriver server.
    pub(crate) webdriver: Option<String>,
    /// The proxy's port (0 = any).
    pub(crate) proxy_port: u16,
    /// The live web view's port (0 = any), or `None` for no web view.
    pub(crate) ui_port: Option<u16>,
    /// `HOST:PORT:ADDR` entries for the proxy's upstream connections.
    pub(crate) resolve: Vec<String>,
    /// Extra upstream roots (PEM).
    pub(crate) upstream_ca: Option<PathBuf>,
    /// The proxy dials only `resolve`d hosts and loopback.
    pub(crate) offline: bool,
    /// Where ar's CA lives; `None` = the user's data dir.
    pub(crate) ca_dir: Option<PathBuf>,
    /// Start the explorer right away.
    pub(crate) explore: bool,
    /// Let the explorer do destructive things.
    pub(crate) explore_unsafe: bool,
    /// The explorer's page budget, when not the default.
    pub(crate) explore_pages: Option<usize>,
    /// The explorer's time budget, when not the default.
    pub(crate) explore_time: Option<std::time::Duration>,
    /// Intents to pursue without a REPL.
    pub(crate) intents: Vec<String>,
    /// The agent's model, when one is asked for.
    pub(crate) model: Option<String>,
    /// The agent's provider, when one is asked for.
    pub(crate) provider: Option<Provider>,
    /// The LLM API's base URL (`--base-url`).
    pub(crate) base_url: Option<String>,
    /// Model calls per agent turn (`--max-steps`).
    pub(crate) max_steps: Option<usize>,
    /// Tokens per agent turn (`--max-tokens`).
    pub(crate) max_tokens: Option<u64>,
    /// No LLM naming of endpoints.
    pub(crate) no_llm_doc: bool,
    /// No REPL even on a terminal.
    pub(crate) batch: bool,
}

impl SessionConfig {
    /// `session.json` for this session: a new one, or `previous` carried on.
    pub(crate) fn manifest(
        &self,
        previous: Option<Manifest>,
        now: time::OffsetDateTime,
    ) -> Manifest {
        let settings = Settings {
            headless: self.headless,
            resolve: self.resolve.clone(),
            upstream_ca: self.upstream_ca.clone(),
            offline: self.offline,
            explore_unsafe: self.explore_unsafe,
            no_llm_doc: self.no_llm_doc,
            model: self.model.clone(),
            provider: self.provider,
            templates: self.templates.clone(),
        };
        Manifest::start(
            self.target.to_string(),
            self.scope.clone(),
            settings,
            previous,
            now,
        )
    }

    /// Validates the flags; `now` names a fresh output directory.
    pub(crate) fn from_args(args: SessionArgs, now: time::OffsetDateTime) -> anyhow::Result<Self> {
        let previous = match &args.resume {
            Some(dir) => Some(Manifest::load(dir)?),
            None => None,
        };
        let target = match (&args.url, &previous) {
            (Some(url), _) => parse_target(url)?,
            (None, Some(manifest)) => parse_target(&manifest.target)?,
            (None, None) => bail!("give the site to explore, e.g. `ar https://shop.example`"),
        };
        if let (Some(manifest), Some(dir)) = (&previous, &args.resume)
            && parse_target(&manifest.target)?.host_str() != target.host_str()
        {
            bail!(
                "{} holds a session for {}, not {}: resume without a URL, or pick another --out",
                dir.display(),
                manifest.target,
                target
            );
        }
        for entry in &args.resolve {
            check_resolve(entry)?;
        }
        let mut scope: Vec<String> = args
            .scope
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        let mut resolve = args.resolve.clone();
        let mut upstream_ca = args.upstream_ca.clone();
        let mut offline = args.offline;
        let mut templates = args.templates.read()?;
        if let Some(manifest) = &previous {
            for pattern in &manifest.settings.templates {
                if !templates.contains(pattern) {
                    templates.push(pattern.clone());
                }
            }
            scope.extend(manifest.scope.iter().cloned());
            resolve.extend(manifest.settings.resolve.iter().cloned());
            upstream_ca = upstream_ca.or_else(|| manifest.settings.upstream_ca.clone());
            offline |= manifest.settings.offline;
        }
        scope.retain(|h| !h.is_empty());
        scope.sort();
        scope.dedup();
        resolve.sort();
        resolve.dedup();
        let out_dir = match (&args.resume, &args.out) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => dir.clone(),
            (None, None) => default_out_dir(Path::new("ar-out"), &target, now),
        };
        Ok(Self {
            target,
            out_dir,
            resume: previous.is_some(),
            scope,
            templates,
            headless: args.headless,
            profile: args.profile,
            webdriver: args.webdriver,
            proxy_port: args.proxy_port.unwrap_or(0),
            ui_port: args.ui.port(),
            resolve,
            upstream_ca,
            offline,
            ca_dir: args.ca_dir,
            explore: args.explore,
            explore_unsafe: args.explore_unsafe,
            explore_pages: args.explore_pages,
            explore_time: args.explore_time.map(std::time::Duration::from_secs),
            intents: args.intent,
            model: args.model,
            provider: args.provider,
            base_url: args.base_url,
            max_steps: args.max_steps,
            max_tokens: args.max_tokens,
            no_llm_doc: args.no_llm_doc,
            batch: args.batch,
        })
    }
}

/// Parses the target: an absolute http(s) URL, or a bare host that gets `https://`.
pub(crate) fn parse_target(text: &str) -> anyhow::Result<Url> {
    let text = text.trim();
    let with_scheme = if text.contains("://") {
        text.to_owned()
    } else {
        format!("https://{text}")
    };
    let url = Url::parse(&with_scheme).with_context(|| format!("`{text}` is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("`{text}`: ar browses http and https sites only");
    }
    if url.host_str().is_none_or(str::is_empty) {
        bail!("`{text}` has no host");
    }
    Ok(url)
}

/// `./ar-out/<host>-<YYYYMMDD-HHMMSS>` (UTC), with `-2`, `-3` … if it exists.
pub(crate) fn default_out_dir(base: &Path, target: &Url, now: time::OffsetDateTime) -> PathBuf {
    let host: String = target
        .host_str()
        .unwrap_or("site")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stamp = format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    );
    let first = base.join(format!("{host}-{stamp}"));
    if !first.exists() {
        return first;
    }
    (2..)
        .map(|n| base.join(format!("{host}-{stamp}-{n}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// Checks a `HOST:PORT:ADDR` entry early, so a typo fails before Chromium starts.
fn check_resolve(entry: &str) -> anyhow::Result<()> {
    let mut parts = entry.splitn(3, ':');
    let (host, port, addr) = (parts.next(), parts.next(), parts.next());
    let ok = host.is_some_and(|h| !h.is_empty())
        && port.is_some_and(|p| p.parse::<u16>().is_ok())
        && addr.is_some_and(|a| {
            a.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok()
        });
    if !ok {
        bail!("--resolve `{entry}`: expected HOST:PORT:ADDR, e.g. shop.test:443:127.0.0.1");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_hosts_get_https_and_other_schemes_are_refused() {
        assert_eq!(
            parse_target("shop.test").unwrap().as_str(),
            "https://shop.test/"
        );
        assert_eq!(
            parse_target("http://a.test:8080/x").unwrap().port(),
            Some(8080)
        );
        assert!(
            parse_target("ftp://a.test")
                .unwrap_err()
                .to_string()
                .contains("http and https")
        );
    }

    #[test]
    fn default_out_dir_is_host_and_utc_stamp_and_never_reuses_a_dir() {
        let base = tempfile::tempdir().unwrap();
        let now = time::macros::datetime!(2026-11-21 06:46:28 UTC);
        let url = parse_target("https://shop.test:8443/").unwrap();
        let first = default_out_dir(base.path(), &url, now);
        assert_eq!(first, base.path().join("shop.test-20261121-064628"));
        std::fs::create_dir_all(&first).unwrap();
        assert_eq!(
            default_out_dir(base.path(), &url, now),
            base.path().join("shop.test-20261121-064628-2")
        );
    }

    #[test]
    fn resolve_entries_are_checked_before_anything_starts() {
        assert!(check_resolve("shop.test:443:127.0.0.1").is_ok());
        assert!(check_resolve("shop.test:443:[::1]").is_ok());
        let error = check_resolve("shop.test:127.0.0.1")
            .unwrap_err()
            .to_string();
        assert!(error.contains("HOST:PORT:ADDR"), "{error}");
    }

    #[test]
    fn a_url_is_required_without_resume() {
        let error =
            SessionConfig::from_args(SessionArgs::default(), time::OffsetDateTime::UNIX_EPOCH)
                .unwrap_err()
                .to_string();
        assert!(error.contains("give the site"), "{error}");
    }
}
