//! Documenting the archive again when the rules change while capture goes
//! on: the store cannot change its scope or its user templates in place, so
//! a fresh one reads the whole archive (as `--resume` does) and takes over.
//! The session (scope changes, corrections) and `ar proxy` (corrections)
//! both come here.

use std::collections::HashMap;
use std::path::Path;

use ar_store::scope::ScopeConfig;
use ar_store::template::Overrides;
use ar_web::Live;

use super::Pipeline;
use crate::archive_dir;

/// Documents the archive in `dir` again under `scope` and, when the user
/// templates change, `overrides`; the web view's rows (`live`) are placed
/// again. Returns a warning per damaged archive line. On error the pipeline
/// is left as it was. The caller writes the documents.
pub fn from_archive(
    pipeline: &mut Pipeline,
    dir: &Path,
    scope: ScopeConfig,
    overrides: Option<Overrides>,
    live: Option<&Live>,
) -> anyhow::Result<Vec<String>> {
    let mut warnings = Vec::new();
    // Where each flow is now, for the web view's rows (none without one).
    let mut placed = HashMap::new();
    let replay = |fresh: &mut Pipeline| {
        warnings = archive_dir::read_flows(dir, |flow| {
            let ingest = fresh.ingest(&flow)?;
            if live.is_some() {
                placed.insert(flow.id.0, crate::web::placement(ingest));
            }
            Ok(())
        })?;
        Ok(())
    };
    match overrides {
        Some(overrides) => pipeline.retemplate(scope, overrides, replay)?,
        None => pipeline.rescope(scope, replay)?,
    }
    if let Some(live) = live {
        live.replace_placements(|id| placed.remove(&id));
    }
    Ok(warnings)
}

/// What a correction did, in a line for the user.
pub fn correction_line(
    patterns: &[String],
    flows: u64,
    endpoints: u64,
    endpoints_before: u64,
) -> String {
    format!(
        "templated with {}: re-documented {flows} flows, {endpoints} endpoints (was {endpoints_before})",
        patterns.join(", "),
    )
}

/// The user templates after a correction: `patterns` first (the latest
/// correction wins where two match a path), then the `old` ones not among them.
pub fn corrections_first(patterns: &[String], old: &[String]) -> Vec<String> {
    let mut templates = patterns.to_vec();
    for pattern in old {
        if !templates.contains(pattern) {
            templates.push(pattern.clone());
        }
    }
    templates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_correction_comes_first_and_none_twice() {
        let old = ["/a/{x}".to_owned(), "/b/{y}".to_owned()];
        let new = ["/b/{y}".to_owned(), "/c/{z}".to_owned()];
        assert_eq!(
            corrections_first(&new, &old),
            ["/b/{y}", "/c/{z}", "/a/{x}"]
        );
    }
}
