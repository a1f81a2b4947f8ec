//! The generated specs pass a real OpenAPI validator: Python's
//! `openapi-spec-validator` (pinned in `.ci/requirements.txt`; `.ci/run`
//! installs it into `.ci/.venv` and puts it on PATH).

use std::path::PathBuf;
use std::process::Command;

use crate::{HARS, everything, import};

pub(crate) fn validator() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../.ci/.venv/bin/openapi-spec-validator");
    if venv.exists() {
        return venv;
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("openapi-spec-validator"))
        .find(|candidate| candidate.exists());
    on_path.unwrap_or_else(|| {
        panic!(
            "openapi-spec-validator is not installed: run `python3 -m venv .ci/.venv && .ci/.venv/bin/pip install -r .ci/requirements.txt` (what .ci/run does)"
        )
    })
}

#[test]
fn every_generated_spec_passes_openapi_spec_validator() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for name in HARS {
        let imported = import(name, everything());
        let yaml = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&yaml, imported.docs.yaml().unwrap()).unwrap();
        let json = dir.path().join(format!("{name}.json"));
        std::fs::write(&json, imported.docs.json().unwrap()).unwrap();
        files.push(yaml);
        files.push(json);
    }
    assert_all_valid(&files);
}

/// Runs openapi-spec-validator once over `files`; panics with its report
/// unless it accepted every one.
pub(crate) fn assert_all_valid(files: &[PathBuf]) {
    let output = Command::new(validator())
        .args(files)
        .output()
        .expect("the validator runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "openapi-spec-validator rejected a spec:\n{report}"
    );
    assert_eq!(report.matches(": OK").count(), files.len(), "{report}");
}
