//! The validated session config: the target URL, where output goes, and the
//! settings every part of the session reads. `ar`'s flags (and, with
//! `--resume`, the previous run's `session.json`) are turned into one by the
//! binary; an embedder starts from [`SessionConfig::new`].

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use url::Url;

use super::manifest::{Manifest, Settings};

/// The LLM provider the agent uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY`).
    Anthropic,
    /// Any OpenAI-compatible chat-completions endpoint (`OPENAI_API_KEY`).
    Openai,
}

/// Everything a session needs to start, already checked.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The page the browser opens first.
    pub target: Url,
    /// The output directory (created if missing).
    pub out_dir: PathBuf,
    /// Whether `out_dir` holds a previous session we carry on.
    pub resume: bool,
    /// Extra in-scope hosts (`--scope`).
    pub scope: Vec<String>,
    /// User path templates (`--template`, `--templates`, and a resumed
    /// session's), checked.
    pub templates: Vec<String>,
    /// The published spec the traffic is held against (`--against`), read and checked.
    pub against: Option<ar_diff::Baseline>,
    /// Chromium without a window.
    pub headless: bool,
    /// A persistent Chromium profile.
    pub profile: Option<PathBuf>,
    /// An external WebDriver server.
    pub webdriver: Option<String>,
    /// The proxy's port (0 = any).
    pub proxy_port: u16,
    /// The live web view's port (0 = any), or `None` for no web view.
    pub ui_port: Option<u16>,
    /// `HOST:PORT:ADDR` entries for the proxy's upstream connections.
    pub resolve: Vec<String>,
    /// Extra upstream roots (PEM).
    pub upstream_ca: Option<PathBuf>,
    /// The proxy dials only `resolve`d hosts and loopback.
    pub offline: bool,
    /// The HTTP proxy the capture proxy reaches origins through, and the
    /// hosts it reaches directly. Never kept in `session.json`: its
    /// credentials are given again on each run.
    pub upstream_proxy: Option<ar_capture::UpstreamProxy>,
    /// Where ar's CA lives; `None` = the user's data dir.
    pub ca_dir: Option<PathBuf>,
    /// Start the explorer right away.
    pub explore: bool,
    /// Let the explorer do destructive things.
    pub explore_unsafe: bool,
    /// The explorer's page budget, when not the default.
    pub explore_pages: Option<usize>,
    /// The explorer's time budget, when not the default.
    pub explore_time: Option<std::time::Duration>,
    /// Intents to pursue without a REPL.
    pub intents: Vec<String>,
    /// The agent's model, when one is asked for.
    pub model: Option<String>,
    /// The agent's provider, when one is asked for.
    pub provider: Option<Provider>,
    /// The LLM API's base URL (`--base-url`).
    pub base_url: Option<String>,
    /// Model calls per agent turn (`--max-steps`).
    pub max_steps: Option<usize>,
    /// Tokens per agent turn (`--max-tokens`).
    pub max_tokens: Option<u64>,
    /// No LLM naming of endpoints.
    pub no_llm_doc: bool,
    /// No REPL even on a terminal.
    pub batch: bool,
}

impl SessionConfig {
    /// A session on `target` writing to `out_dir`, every other setting at
    /// its default: a new archive, a headed Chromium started here, any free
    /// ports, the web view on, the agent and the explorer idle until asked.
    pub fn new(target: Url, out_dir: PathBuf) -> Self {
        Self {
            target,
            out_dir,
            resume: false,
            scope: Vec::new(),
            templates: Vec::new(),
            against: None,
            headless: false,
            profile: None,
            webdriver: None,
            proxy_port: 0,
            ui_port: Some(0),
            resolve: Vec::new(),
            upstream_ca: None,
            offline: false,
            upstream_proxy: None,
            ca_dir: None,
            explore: false,
            explore_unsafe: false,
            explore_pages: None,
            explore_time: None,
            intents: Vec::new(),
            model: None,
            provider: None,
            base_url: None,
            max_steps: None,
            max_tokens: None,
            no_llm_doc: false,
            batch: false,
        }
    }

    /// `session.json` for this session: a new one, or `previous` carried on.
    pub fn manifest(&self, previous: Option<Manifest>, now: time::OffsetDateTime) -> Manifest {
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
}

/// Parses the target: an absolute http(s) URL, or a bare host that gets `https://`.
pub fn parse_target(text: &str) -> anyhow::Result<Url> {
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
pub fn default_out_dir(base: &Path, target: &Url, now: time::OffsetDateTime) -> PathBuf {
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

/// The banner line (`ar proxy`'s and the session's) that says which proxy
/// origins are reached through, its password masked, and which hosts go
/// direct: `  upstream http://me:****@proxy.corp:3128 (direct: loopback,
/// --resolve'd hosts, intranet.test)`, no newline.
pub fn upstream_line(proxy: &ar_capture::UpstreamProxy) -> String {
    let mut direct = vec!["loopback", "--resolve'd hosts"];
    direct.extend(proxy.direct().iter().map(String::as_str));
    format!("  upstream {proxy} (direct: {})", direct.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_upstream_line_masks_the_password_and_names_the_direct_hosts() {
        let proxy: ar_capture::UpstreamProxy = "http://me:hunter2@proxy.corp:3128".parse().unwrap();
        let line = upstream_line(&proxy.direct_to(["*.Intranet.test"]));
        assert_eq!(
            line,
            "  upstream http://me:****@proxy.corp:3128 (direct: loopback, --resolve'd hosts, intranet.test)"
        );
    }

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
}
