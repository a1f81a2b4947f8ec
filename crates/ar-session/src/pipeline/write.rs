//! Atomic, debounced writing of the generated documents.
//!
//! A reader (an editor, a validator, `cat`) must never see half a file, and a
//! crash must leave the previous version: each document goes through
//! [`crate::files::write_atomic`], the one atomic-write helper of `ar`.

use std::path::Path;
use std::time::{Duration, Instant};

use super::drift::{DRIFT_JSON, DRIFT_MD, DriftDocuments};
use crate::files::write_atomic;

/// The documents a pipeline produces, ready to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Documents {
    /// `openapi.yaml`
    pub yaml: String,
    /// `openapi.json`
    pub json: String,
    /// `API.md`
    pub markdown: String,
    /// `DRIFT.md` and `drift.json`, when the flows are held against a published spec.
    pub drift: Option<DriftDocuments>,
}

impl Documents {
    /// Writes the three files (and the two drift documents, when there are) into `dir`
    /// (which must exist), each atomically.
    pub fn write_to(&self, dir: &Path) -> anyhow::Result<()> {
        write_atomic(&dir.join("openapi.yaml"), self.yaml.as_bytes())?;
        write_atomic(&dir.join("openapi.json"), self.json.as_bytes())?;
        if let Some(drift) = &self.drift {
            write_atomic(&dir.join(DRIFT_MD), drift.markdown.as_bytes())?;
            write_atomic(&dir.join(DRIFT_JSON), drift.json.as_bytes())?;
        }
        write_atomic(&dir.join("API.md"), self.markdown.as_bytes())
    }
}

/// Decides when to rewrite the documents during live capture: at most once
/// per `interval`, only when something changed, and always on demand.
#[derive(Debug)]
pub(crate) struct Debounce {
    interval: Duration,
    last_write: Option<Instant>,
    dirty: bool,
}

impl Debounce {
    /// A debouncer allowing one write per `interval`.
    pub(crate) fn new(interval: Duration) -> Self {
        Self {
            interval,
            last_write: None,
            dirty: false,
        }
    }

    /// Notes that the documents changed.
    pub(crate) fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// Whether a write is due at `now`: something changed and the interval passed.
    pub(crate) fn due(&self, now: Instant) -> bool {
        self.dirty
            && self
                .last_write
                .is_none_or(|last| now.duration_since(last) >= self.interval)
    }

    /// Records a write at `now`.
    pub(crate) fn written(&mut self, now: Instant) {
        self.dirty = false;
        self.last_write = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_written_whole_and_nothing_else_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let docs = Documents {
            yaml: "openapi: 3.0.3\n".into(),
            json: "{}\n".into(),
            markdown: "# API\n".into(),
            drift: None,
        };
        docs.write_to(dir.path()).unwrap();
        docs.write_to(dir.path()).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["API.md", "openapi.json", "openapi.yaml"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("API.md")).unwrap(),
            "# API\n"
        );
        let error = docs.write_to(Path::new("/nonexistent-ar-dir")).unwrap_err();
        assert!(
            format!("{error:#}").contains("/nonexistent-ar-dir"),
            "{error:#}"
        );
    }

    #[test]
    fn debounce_allows_one_write_per_interval() {
        let start = Instant::now();
        let mut debounce = Debounce::new(Duration::from_secs(1));
        assert!(!debounce.due(start));
        debounce.mark_dirty();
        assert!(debounce.due(start));
        debounce.written(start);
        debounce.mark_dirty();
        assert!(!debounce.due(start + Duration::from_millis(500)));
        assert!(debounce.due(start + Duration::from_secs(1)));
    }
}
