//! `session.json`: what `--resume DIR` needs to carry on a session (the
//! target, the scope, the settings that shape capture) plus the counters a
//! person or a script reads to see what a run did. Written atomically at
//! start, on `/save` and at exit, so it always parses.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::args::Provider;
use super::status::Counters;

/// The file name inside the output directory.
pub(crate) const MANIFEST_FILE: &str = "session.json";

/// The format version; bumped when a field changes meaning.
const VERSION: u32 = 1;

/// The contents of `session.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// Format version.
    pub(crate) version: u32,
    /// The target URL as first given.
    pub(crate) target: String,
    /// Extra in-scope hosts.
    #[serde(default)]
    pub(crate) scope: Vec<String>,
    /// Hosts taken out of scope during a session (`scope_remove`, `/scope remove`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) out_of_scope: Vec<String>,
    /// When the first run started (RFC 3339, UTC).
    pub(crate) created: String,
    /// When this file was last written (RFC 3339, UTC).
    pub(crate) updated: String,
    /// How many runs appended to this directory (1 + resumes).
    #[serde(default)]
    pub(crate) runs: u32,
    /// Capture settings a resumed run reuses.
    #[serde(default)]
    pub(crate) settings: Settings,
    /// What the archive and spec held when this file was written.
    #[serde(default)]
    pub(crate) counters: Counters,
}

/// Settings recorded for `--resume` and for the record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Settings {
    /// Chromium without a window.
    pub(crate) headless: bool,
    /// `--resolve` entries.
    #[serde(default)]
    pub(crate) resolve: Vec<String>,
    /// `--upstream-ca` file.
    pub(crate) upstream_ca: Option<PathBuf>,
    /// `--offline`: the proxy dials only `--resolve`d hosts and loopback.
    #[serde(default)]
    pub(crate) offline: bool,
    /// `--explore-unsafe`.
    #[serde(default)]
    pub(crate) explore_unsafe: bool,
    /// `--no-llm-doc`.
    #[serde(default)]
    pub(crate) no_llm_doc: bool,
    /// `--model`.
    pub(crate) model: Option<String>,
    /// `--provider`.
    pub(crate) provider: Option<Provider>,
    /// User path templates (`--template`, `--templates`), as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) templates: Vec<String>,
}

impl Manifest {
    /// A manifest for a new session on `target` with `scope` and
    /// `settings`, or the previous one carried on (`runs` + 1).
    pub(crate) fn start(
        target: String,
        scope: Vec<String>,
        settings: Settings,
        previous: Option<Manifest>,
        now: time::OffsetDateTime,
    ) -> Self {
        let stamp = rfc3339(now);
        match previous {
            Some(previous) => Self {
                scope,
                updated: stamp,
                runs: previous.runs + 1,
                settings,
                ..previous
            },
            None => Self {
                version: VERSION,
                target,
                scope,
                out_of_scope: Vec::new(),
                created: stamp.clone(),
                updated: stamp,
                runs: 1,
                settings,
                counters: Counters::default(),
            },
        }
    }

    /// Reads `DIR/session.json`, saying clearly when `DIR` is not a session.
    pub(crate) fn load(dir: &Path) -> anyhow::Result<Self> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "cannot resume {}: no readable {MANIFEST_FILE} there",
                dir.display()
            )
        })?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a valid session file", path.display()))
    }

    /// Writes `DIR/session.json` atomically with fresh counters.
    pub(crate) fn save(
        &mut self,
        dir: &Path,
        counters: Counters,
        now: time::OffsetDateTime,
    ) -> anyhow::Result<()> {
        self.counters = counters;
        self.updated = rfc3339(now);
        let mut json = serde_json::to_string_pretty(self)?;
        json.push('\n');
        crate::files::write_atomic(&dir.join(MANIFEST_FILE), json.as_bytes())
    }
}

fn rfc3339(now: time::OffsetDateTime) -> String {
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::TemplateArgs;
    use crate::session::args::SessionArgs;
    use crate::session::config::SessionConfig;

    fn config(dir: &Path) -> SessionConfig {
        let args = SessionArgs {
            url: Some("https://shop.test:8443/".into()),
            out: Some(dir.to_path_buf()),
            resolve: vec!["shop.test:8443:127.0.0.1".into()],
            scope: vec!["api.shop.test".into()],
            ..SessionArgs::default()
        };
        SessionConfig::from_args(args, time::OffsetDateTime::UNIX_EPOCH).unwrap()
    }

    #[test]
    fn a_saved_manifest_resumes_with_its_target_scope_and_resolve_entries() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = config(dir.path()).manifest(None, time::OffsetDateTime::UNIX_EPOCH);
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
        let resumed = SessionConfig::from_args(args, time::OffsetDateTime::UNIX_EPOCH).unwrap();
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
        let config = SessionConfig::from_args(args, time::OffsetDateTime::UNIX_EPOCH).unwrap();
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
        let resumed = SessionConfig::from_args(args, time::OffsetDateTime::UNIX_EPOCH).unwrap();
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
        let error = SessionConfig::from_args(args, time::OffsetDateTime::UNIX_EPOCH).unwrap_err();
        let error = format!("{error:#}");
        assert!(error.contains("`/files/{path*}/raw`"), "{error}");
        assert!(error.contains("last segment"), "{error}");
    }

    #[test]
    fn resuming_a_directory_without_a_session_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let error = format!("{:#}", Manifest::load(dir.path()).unwrap_err());
        assert!(error.contains("no readable session.json"), "{error}");
    }
}
