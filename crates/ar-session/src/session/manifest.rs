//! `session.json`: what `--resume DIR` needs to carry on a session (the
//! target, the scope, the settings that shape capture) plus the counters a
//! person or a script reads to see what a run did. Written atomically at
//! start, on `/save` and at exit, so it always parses.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::config::Provider;
use super::status::Counters;

/// The file name inside the output directory.
pub const MANIFEST_FILE: &str = "session.json";

/// The format version; bumped when a field changes meaning.
const VERSION: u32 = 1;

/// The contents of `session.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version.
    pub version: u32,
    /// The target URL as first given.
    pub target: String,
    /// Extra in-scope hosts.
    #[serde(default)]
    pub scope: Vec<String>,
    /// Hosts taken out of scope during a session (`scope_remove`, `/scope remove`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub out_of_scope: Vec<String>,
    /// When the first run started (RFC 3339, UTC).
    pub created: String,
    /// When this file was last written (RFC 3339, UTC).
    pub updated: String,
    /// How many runs appended to this directory (1 + resumes).
    #[serde(default)]
    pub runs: u32,
    /// Capture settings a resumed run reuses.
    #[serde(default)]
    pub settings: Settings,
    /// What the archive and spec held when this file was written.
    #[serde(default)]
    pub counters: Counters,
}

/// Settings recorded for `--resume` and for the record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Chromium without a window.
    pub headless: bool,
    /// `--resolve` entries.
    #[serde(default)]
    pub resolve: Vec<String>,
    /// `--upstream-ca` file.
    pub upstream_ca: Option<PathBuf>,
    /// `--offline`: the proxy dials only `--resolve`d hosts and loopback.
    #[serde(default)]
    pub offline: bool,
    /// `--explore-unsafe`.
    #[serde(default)]
    pub explore_unsafe: bool,
    /// `--no-llm-doc`.
    #[serde(default)]
    pub no_llm_doc: bool,
    /// `--model`.
    pub model: Option<String>,
    /// `--provider`.
    pub provider: Option<Provider>,
    /// User path templates (`--template`, `--templates`), as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<String>,
}

impl Manifest {
    /// A manifest for a new session on `target` with `scope` and
    /// `settings`, or the previous one carried on (`runs` + 1).
    pub fn start(
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
    pub fn load(dir: &Path) -> anyhow::Result<Self> {
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
    pub fn save(
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

    #[test]
    fn resuming_a_directory_without_a_session_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let error = format!("{:#}", Manifest::load(dir.path()).unwrap_err());
        assert!(error.contains("no readable session.json"), "{error}");
    }
}
