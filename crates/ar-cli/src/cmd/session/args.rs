//! The flags of `ar <url>`, flattened into the top-level command line.
//!
//! Parsing stops at strings; [`SessionArgs::config`] turns them into a
//! validated [`SessionConfig`] (target URL, scope hosts, resolve entries,
//! and with `--resume` the previous run's settings), so the session never
//! re-checks them.

use std::path::{Path, PathBuf};

use anyhow::bail;
use ar_session::session::{Manifest, Provider, SessionConfig, default_out_dir, parse_target};

use crate::args::{AgainstArgs, TemplateArgs, UiArgs, UpstreamProxyArgs};

/// `ar <url>`: browse a site through the capture proxy and grow its spec.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct SessionArgs {
    /// The site to reverse-engineer, e.g. `https://shop.example` (a bare host gets https://).
    #[arg(value_name = "URL")]
    pub(crate) url: Option<String>,
    /// Output directory [default: ./ar-out/<host>-<timestamp>/].
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Run Chromium without a window (CI, servers). Headed by default so you can watch and /take.
    #[arg(long)]
    pub(crate) headless: bool,
    /// A persistent Chromium profile directory (cookies and logins survive across runs).
    #[arg(long, value_name = "DIR")]
    pub(crate) profile: Option<PathBuf>,
    /// More hosts whose traffic belongs in the spec (the target's site is always in scope).
    #[arg(long, value_name = "HOST,...", value_delimiter = ',')]
    pub(crate) scope: Vec<String>,
    /// Path templates (kept in session.json: `--resume` and `ar import` of the
    /// session apply them).
    #[command(flatten)]
    pub(crate) templates: TemplateArgs,
    /// A published spec to hold the traffic against, as it arrives.
    #[command(flatten)]
    pub(crate) against: AgainstArgs,
    /// The model the agent uses (needs the agent, see --provider).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// The LLM provider for the agent.
    #[arg(long, value_enum)]
    pub(crate) provider: Option<Provider>,
    /// The LLM API's base URL (a proxy, vLLM, llama.cpp, Ollama) [default: the provider's, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL].
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// Model calls per agent turn before it stops [default: 40].
    #[arg(long, value_name = "N")]
    pub(crate) max_steps: Option<usize>,
    /// Tokens (prompt + output) per agent turn before it stops [default: 2000000].
    #[arg(long, value_name = "N")]
    pub(crate) max_tokens: Option<u64>,
    /// Do not ask an LLM to name and describe endpoints; the spec stays complete.
    #[arg(long)]
    pub(crate) no_llm_doc: bool,
    /// Run the built-in explorer (no LLM) right away; without a terminal, exit when it is done.
    #[arg(long)]
    pub(crate) explore: bool,
    /// Let the explorer click destructive things too (logout, delete, pay), and let the
    /// proxy send destructive requests while it drives (DELETE, POST .../delete).
    #[arg(long)]
    pub(crate) explore_unsafe: bool,
    /// The explorer's page budget [default: 40].
    #[arg(long, value_name = "N")]
    pub(crate) explore_pages: Option<usize>,
    /// The explorer's time budget in seconds [default: 180].
    #[arg(long, value_name = "SECS")]
    pub(crate) explore_time: Option<u64>,
    /// Carry on a previous session: reopen its archive and spec and keep appending.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub(crate) resume: Option<PathBuf>,
    /// The capture proxy's port on 127.0.0.1 [default: any free port].
    #[arg(long, value_name = "N")]
    pub(crate) proxy_port: Option<u16>,
    /// The live web view.
    #[command(flatten)]
    pub(crate) ui: UiArgs,
    /// Use this WebDriver server instead of starting chromedriver.
    #[arg(long, value_name = "URL")]
    pub(crate) webdriver: Option<String>,
    /// Pursue this intent without a REPL and exit when done (repeatable; needs the agent).
    #[arg(long, value_name = "TEXT")]
    pub(crate) intent: Vec<String>,
    /// Send connections for HOST:PORT to ADDR (curl's meaning), e.g. shop.test:443:127.0.0.1.
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    pub(crate) resolve: Vec<String>,
    /// Dial only hosts mapped with --resolve and loopback addresses; never look up a
    /// name (demos and tests on a closed network: browser background traffic stays local).
    #[arg(long)]
    pub(crate) offline: bool,
    /// The HTTP proxy the session's Chromium reaches origins through (via ar).
    #[command(flatten)]
    pub(crate) upstream: UpstreamProxyArgs,
    /// Also trust the CA certificates in this PEM file for upstream TLS (test sites).
    #[arg(long, value_name = "FILE")]
    pub(crate) upstream_ca: Option<PathBuf>,
    /// Where ar's own CA lives [default: the user's data dir].
    #[arg(long, value_name = "DIR")]
    pub(crate) ca_dir: Option<PathBuf>,
    /// When the session ends, write a typed client of the API it mapped (`ar gen-client`).
    #[arg(long, value_enum, value_name = "LANG")]
    pub(crate) gen_client: Option<crate::cmd::gen_client::Lang>,
    /// Never start the REPL: run the start-up work and exit (`ar demo`); not a flag.
    #[arg(skip)]
    pub(crate) batch: bool,
}

impl SessionArgs {
    /// Validates the flags; `now` names a fresh output directory.
    pub(crate) fn config(self, now: time::OffsetDateTime) -> anyhow::Result<SessionConfig> {
        let previous = match &self.resume {
            Some(dir) => Some(Manifest::load(dir)?),
            None => None,
        };
        let target = match (&self.url, &previous) {
            (Some(url), _) => parse_target(url)?,
            (None, Some(manifest)) => parse_target(&manifest.target)?,
            (None, None) => bail!("give the site to explore, e.g. `ar https://shop.example`"),
        };
        if let (Some(manifest), Some(dir)) = (&previous, &self.resume)
            && parse_target(&manifest.target)?.host_str() != target.host_str()
        {
            bail!(
                "{} holds a session for {}, not {}: resume without a URL, or pick another --out",
                dir.display(),
                manifest.target,
                target
            );
        }
        for entry in &self.resolve {
            check_resolve(entry)?;
        }
        let against = self.against.read()?;
        let mut scope: Vec<String> = self
            .scope
            .iter()
            .map(|h| h.trim().to_ascii_lowercase())
            .collect();
        let mut resolve = self.resolve.clone();
        let mut upstream_ca = self.upstream_ca.clone();
        let mut offline = self.offline;
        let mut templates = self.templates.read()?;
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
        if offline && self.upstream.upstream_proxy.is_some() {
            bail!("--upstream-proxy: the resumed session is --offline, which dials no proxy");
        }
        scope.retain(|h| !h.is_empty());
        scope.sort();
        scope.dedup();
        resolve.sort();
        resolve.dedup();
        let out_dir = match (&self.resume, &self.out) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) => dir.clone(),
            (None, None) => default_out_dir(Path::new("ar-out"), &target, now),
        };
        Ok(SessionConfig {
            target,
            out_dir,
            resume: previous.is_some(),
            scope,
            templates,
            against,
            headless: self.headless,
            profile: self.profile,
            webdriver: self.webdriver,
            proxy_port: self.proxy_port.unwrap_or(0),
            ui_port: self.ui.port(),
            resolve,
            upstream_ca,
            offline,
            upstream_proxy: self.upstream.proxy(),
            ca_dir: self.ca_dir,
            explore: self.explore,
            explore_unsafe: self.explore_unsafe,
            explore_pages: self.explore_pages,
            explore_time: self.explore_time.map(std::time::Duration::from_secs),
            intents: self.intent,
            model: self.model,
            provider: self.provider,
            base_url: self.base_url,
            max_steps: self.max_steps,
            max_tokens: self.max_tokens,
            no_llm_doc: self.no_llm_doc,
            batch: self.batch,
        })
    }
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
    use ar_session::session::{Counters, MANIFEST_FILE};

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
    fn a_published_spec_is_read_with_the_flags_before_anything_starts() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("shop.yaml");
        std::fs::write(&spec, "openapi: 3.0.3\npaths: {}\n").unwrap();
        let args = |against: PathBuf| SessionArgs {
            url: Some("https://shop.test/".into()),
            out: Some(dir.path().join("out")),
            against: AgainstArgs {
                against: Some(against),
            },
            ..SessionArgs::default()
        };
        let config = args(spec).config(time::OffsetDateTime::UNIX_EPOCH).unwrap();
        assert_eq!(
            config.against.as_ref().map(ar_diff::Baseline::name),
            Some("shop.yaml")
        );
        let error = args(dir.path().join("missing.yaml"))
            .config(time::OffsetDateTime::UNIX_EPOCH)
            .unwrap_err();
        let error = format!("{error:#}");
        assert!(
            error.starts_with("--against: cannot read") && error.contains("missing.yaml"),
            "{error}"
        );
        assert!(!dir.path().join("out").exists());
    }

    #[test]
    fn a_url_is_required_without_resume() {
        let error = SessionArgs::default()
            .config(time::OffsetDateTime::UNIX_EPOCH)
            .unwrap_err()
            .to_string();
        assert!(error.contains("give the site"), "{error}");
    }

    fn config_in(dir: &Path) -> SessionConfig {
        let args = SessionArgs {
            url: Some("https://shop.test:8443/".into()),
            out: Some(dir.to_path_buf()),
            resolve: vec!["shop.test:8443:127.0.0.1".into()],
            scope: vec!["api.shop.test".into()],
            ..SessionArgs::default()
        };
        args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap()
    }

    #[test]
    fn a_saved_manifest_resumes_with_its_target_scope_and_resolve_entries() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = config_in(dir.path()).manifest(None, time::OffsetDateTime::UNIX_EPOCH);
        let counters = Counters {
            flows: 12,
            in_scope_flows: 7,
            endpoints: 4,
            hosts: 3,
        };
        manifest
            .save(dir.path(), counters, time::OffsetDateTime::UNIX_EPOCH)
            .unwrap();

        let args = SessionArgs {
            resume: Some(dir.path().to_path_buf()),
            ..SessionArgs::default()
        };
        let resumed = args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap();
        assert!(resumed.resume);
        assert_eq!(resumed.target.as_str(), "https://shop.test:8443/");
        assert_eq!(resumed.scope, ["api.shop.test"]);
        assert_eq!(resumed.resolve, ["shop.test:8443:127.0.0.1"]);
        assert_eq!(resumed.out_dir, dir.path());

        let loaded = Manifest::load(dir.path()).unwrap();
        assert_eq!(loaded.counters, counters);
        let again = resumed.manifest(Some(loaded), time::OffsetDateTime::UNIX_EPOCH);
        assert_eq!(again.runs, 2);
    }

    /// Writes `config`'s session.json into `dir`, as a session that ended does.
    fn save_manifest(config: &SessionConfig, dir: &Path) {
        (config.manifest(None, time::OffsetDateTime::UNIX_EPOCH))
            .save(dir, Counters::default(), time::OffsetDateTime::UNIX_EPOCH)
            .unwrap();
    }

    #[test]
    fn the_upstream_proxy_is_not_kept_for_resume_and_an_offline_session_refuses_one() {
        let dir = tempfile::tempdir().unwrap();
        let upstream = |resume: Option<PathBuf>| SessionArgs {
            url: resume.is_none().then(|| "https://shop.test/".into()),
            out: resume.is_none().then(|| dir.path().to_path_buf()),
            resume,
            upstream: UpstreamProxyArgs {
                upstream_proxy: Some("http://me:hunter2@proxy.corp:3128".parse().unwrap()),
                no_upstream_proxy: vec!["intranet.test".into()],
            },
            ..SessionArgs::default()
        };
        let config = upstream(None)
            .config(time::OffsetDateTime::UNIX_EPOCH)
            .unwrap();
        let proxy = config.upstream_proxy.as_ref().unwrap();
        assert_eq!(proxy.direct(), ["intranet.test"]);
        save_manifest(&config, dir.path());
        let saved = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).unwrap();
        assert!(
            !saved.contains("hunter2") && !saved.contains("proxy.corp"),
            "{saved}"
        );

        let args = SessionArgs {
            resume: Some(dir.path().to_path_buf()),
            ..SessionArgs::default()
        };
        let resumed = args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap();
        assert!(resumed.upstream_proxy.is_none());

        let offline = tempfile::tempdir().unwrap();
        let args = SessionArgs {
            url: Some("https://shop.test/".into()),
            out: Some(offline.path().to_path_buf()),
            offline: true,
            ..SessionArgs::default()
        };
        save_manifest(
            &args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap(),
            offline.path(),
        );
        let error = upstream(Some(offline.path().to_path_buf()))
            .config(time::OffsetDateTime::UNIX_EPOCH)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("--upstream-proxy") && error.contains("--offline"),
            "{error}"
        );
        assert!(!error.contains("hunter2"), "{error}");
    }

    #[test]
    fn templates_are_kept_and_a_resumed_run_adds_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("templates.txt");
        std::fs::write(&file, "# downloads\n\napi.shop.test/files/{path*}\n").unwrap();
        let args = SessionArgs {
            url: Some("https://shop.test/".into()),
            out: Some(dir.path().to_path_buf()),
            templates: TemplateArgs {
                template: vec!["/users/{user}/avatar".into()],
                templates: vec![file],
            },
            ..SessionArgs::default()
        };
        let config = args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap();
        let mut manifest = config.manifest(None, time::OffsetDateTime::UNIX_EPOCH);
        manifest
            .save(
                dir.path(),
                Counters::default(),
                time::OffsetDateTime::UNIX_EPOCH,
            )
            .unwrap();
        let saved = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).unwrap();
        assert!(saved.contains("api.shop.test/files/{path*}"), "{saved}");

        let args = SessionArgs {
            resume: Some(dir.path().to_path_buf()),
            templates: TemplateArgs {
                template: vec!["/v1/{tenant}/items".into()],
                ..TemplateArgs::default()
            },
            ..SessionArgs::default()
        };
        let resumed = args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap();
        assert_eq!(
            resumed.templates,
            [
                "/v1/{tenant}/items",
                "/users/{user}/avatar",
                "api.shop.test/files/{path*}"
            ]
        );

        let args = SessionArgs {
            url: Some("https://shop.test/".into()),
            templates: TemplateArgs {
                template: vec!["/files/{path*}/raw".into()],
                ..TemplateArgs::default()
            },
            ..SessionArgs::default()
        };
        let error = args.config(time::OffsetDateTime::UNIX_EPOCH).unwrap_err();
        let error = format!("{error:#}");
        assert!(error.contains("`/files/{path*}/raw`"), "{error}");
        assert!(error.contains("last segment"), "{error}");
    }
}
