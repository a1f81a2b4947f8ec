//! `ar diff OLD NEW`: what changed between two versions of an API, and what breaks a client.
//!
//! Each side is an OpenAPI document, an `ar` output directory, or traffic (a HAR, a
//! `flows.jsonl` archive) documented on the fly by `ar import`'s own [`import::document`].
//! The comparison and its three renderings are `ar_diff`'s; this module reads the two sides,
//! picks the format and turns the verdict into an exit status.

use std::io::{ErrorKind, Read as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use ar_diff::{Document, Report};
use serde_json::Value;

use crate::cli::Failure;
use crate::cmd::import;

const EXIT_STATUS: &str = "\
Breaking: a change that can break a client written against OLD. An operation or parameter
removed without deprecation; requests narrowed (a new required parameter or field, one made
required, a type narrowed, a value or media type refused); responses widened (a field removed,
made optional or nullable, a type widened, an enum value added, a success status or media
type removed); authentication required where it was not. Each change names the rule that
decided, by oasdiff's id where oasdiff has the check.

Exit status: 0 when the comparison ran, whatever it found; 1 with --fail-on breaking when
a change breaks a client; 2 when a side cannot be read or is not an API description.";

/// Compare two versions of an API: each change per operation, breaking for a client or not.
#[derive(Debug, clap::Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct Args {
    /// The old version: an OpenAPI 3.0/3.1 document (.yaml, .yml, .json, from any tool), an
    /// `ar` output directory (its openapi.yaml), or traffic documented as `ar import` would (a
    /// HAR file, a flows.jsonl archive, a directory with a flows.jsonl but no spec).
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The new version, in any form OLD takes.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// text for a terminal, md for a pull request, json (stable keys) for tools.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
    /// Exit with status 1 when the report holds a change of this kind (for CI).
    #[arg(long, value_enum, value_name = "KIND")]
    fail_on: Option<FailOn>,
    /// Write the report to FILE (its counts go to standard output).
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OutputFormat {
    /// A headline, then each operation's changes, one a line.
    Text,
    /// A breaking-changes table and the other changes folded.
    #[value(alias = "markdown")]
    Md,
    /// Pretty-printed, stable snake_case keys (`report_version` 1).
    Json,
}

impl From<OutputFormat> for ar_diff::Format {
    fn from(format: OutputFormat) -> Self {
        match format {
            OutputFormat::Text => ar_diff::Format::Text,
            OutputFormat::Md => ar_diff::Format::Markdown,
            OutputFormat::Json => ar_diff::Format::Json,
        }
    }
}

/// `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOn {
    /// A change that breaks a client of OLD.
    Breaking,
}

/// Compares the two sides and prints the report to `out` (or writes it to `--out`). Any
/// error exits 2: status 1 means breaking changes were found.
pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    compare(&args, out).map_err(|error| Failure { status: 2, error }.into())
}

fn compare(args: &Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let old = read_side(&args.old)?;
    let new = read_side(&args.new)?;
    let report = ar_diff::diff(&old, &new);
    let text = report.render(args.format.into());
    let written = match &args.out {
        Some(file) => {
            ar_session::files::write_atomic(file, text.as_bytes())?;
            writeln!(out, "{} → {}", headline(&report), file.display())
        }
        None => out.write_all(text.as_bytes()),
    };
    match written.and_then(|()| out.flush()) {
        // `ar diff ... | head`: the reader has what it wanted; the verdict still stands.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
        other => other.context("writing the report")?,
    }
    let failed = args.fail_on == Some(FailOn::Breaking) && report.has_breaking();
    Ok(ExitCode::from(u8::from(failed)))
}

/// The text report's first line: its counts, or "No changes.".
fn headline(report: &Report) -> String {
    let text = report.render(ar_diff::Format::Text);
    text.lines().next().unwrap_or_default().to_owned()
}

/// A published spec to hold traffic against (`--against`): an OpenAPI document, or an `ar`
/// output directory's `openapi.yaml`; traffic is refused, with what to do instead.
pub(crate) fn read_published(path: &Path) -> anyhow::Result<Document> {
    match classify(path)? {
        Side::Spec(file) => read_spec(&file),
        Side::Traffic(traffic) => bail!(
            "{} is traffic, not a spec: give the published OpenAPI document (YAML or JSON), \
             or document the traffic first with `ar import`",
            traffic.display()
        ),
    }
}

/// What a side is, from its path (and, for files named neither way, its first bytes).
#[derive(Debug, PartialEq, Eq)]
enum Side {
    /// An OpenAPI document.
    Spec(PathBuf),
    /// A HAR, a `flows.jsonl` archive, or a directory holding one: documented on the fly.
    Traffic(PathBuf),
}

/// One side of the comparison, read into a document.
fn read_side(path: &Path) -> anyhow::Result<Document> {
    match classify(path)? {
        Side::Spec(file) => read_spec(&file),
        Side::Traffic(path) => document_traffic(&path),
    }
}

fn classify(path: &Path) -> anyhow::Result<Side> {
    if path.is_dir() {
        if let Some(spec) = ["openapi.yaml", "openapi.json"]
            .iter()
            .map(|name| path.join(name))
            .find(|file| file.is_file())
        {
            return Ok(Side::Spec(spec));
        }
        if path.join("flows.jsonl").is_file() {
            return Ok(Side::Traffic(path.to_path_buf()));
        }
        bail!(
            "{} is a directory without an openapi.yaml, openapi.json or flows.jsonl",
            path.display()
        );
    }
    match extension(path).as_deref() {
        Some("yaml" | "yml") => return Ok(Side::Spec(path.to_path_buf())),
        Some("har" | "jsonl") => return Ok(Side::Traffic(path.to_path_buf())),
        _ => {}
    }
    // `.json` or anything else: a HAR saved as `.json` is traffic.
    let mut head = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path)
        .and_then(|file| file.take(64 * 1024).read_to_end(&mut head))
        .with_context(|| format!("cannot read {}", path.display()))?;
    let spec = matches!(first_key(&head), Some("openapi" | "swagger"));
    Ok(match import::sniff(&head) {
        Some(_) if !spec => Side::Traffic(path.to_path_buf()),
        _ => Side::Spec(path.to_path_buf()),
    })
}

/// `path`'s extension in lowercase: `yaml`, `har`, ...
fn extension(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// The first key of the JSON object `head` opens, when it has no escapes: `openapi` in most
/// specs, `log` in a HAR. It settles what the looser sniffing of traffic could take either way.
fn first_key(head: &[u8]) -> Option<&str> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        // The head may end inside a character.
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let rest = text.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let key = &rest[..rest.find('"')?];
    (!key.contains('\\')).then_some(key)
}

/// An OpenAPI document from YAML or JSON (by its extension, else by its first character).
fn read_spec(file: &Path) -> anyhow::Result<Document> {
    let name = file.display();
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {name}"))?;
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        bail!("{name} is empty");
    }
    let json = match extension(file).as_deref() {
        Some("json") => true,
        Some("yaml" | "yml") => false,
        _ => text.trim_start().starts_with('{'),
    };
    let value: Value = if json {
        serde_json::from_str(text).with_context(|| format!("{name} is not valid JSON"))?
    } else {
        serde_norway::from_str(text).with_context(|| format!("{name} is not valid YAML"))?
    };
    Document::from_value(value).with_context(|| name.to_string())
}

/// Traffic documented exactly as `ar import` documents it (its defaults: every host but
/// known trackers, secrets redacted, damaged entries skipped with a warning).
fn document_traffic(path: &Path) -> anyhow::Result<Document> {
    let settings = import::Settings::default();
    let mut documented = import::document(&[path.to_path_buf()], &settings)?;
    let pipeline = &mut documented.pipeline;
    let summary = pipeline.summary();
    eprintln!(
        "ar: note: {} documented as `ar import` does: {} flows read, {} in scope, {} endpoints",
        path.display(),
        summary.flows,
        summary.in_scope,
        summary.endpoints
    );
    let json = pipeline.documents()?.json;
    let value = serde_json::from_str(&json).context("ar's own openapi.json does not parse")?;
    Document::from_value(value)
        .with_context(|| format!("the spec documented from {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_key_tells_a_spec_from_a_har() {
        assert_eq!(
            first_key(b"\xEF\xBB\xBF {\n  \"openapi\": \"3.1.0\""),
            Some("openapi")
        );
        assert_eq!(first_key(b"{\"log\":{\"entries\":[]}}"), Some("log"));
        assert_eq!(first_key(b"{\"a\\\"b\": 1}"), None);
        assert_eq!(first_key(b"openapi: 3.0.0\n"), None);
        assert_eq!(first_key(b"{\"info"), None);
        // A head cut inside a character still reads up to the cut.
        assert_eq!(
            first_key(b"{\"swagger\": \"2.0\", \"x\": \"\xC3"),
            Some("swagger")
        );
    }

    #[test]
    fn a_json_spec_whose_first_properties_read_as_traffic_is_still_a_spec() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("spec.json");
        // `"request": {` near the start is what sniffing takes for an archive.
        std::fs::write(
            &spec,
            "{\n  \"openapi\": \"3.0.3\",\n  \"x\": {\"request\": {}}\n}\n",
        )
        .unwrap();
        assert_eq!(classify(&spec).unwrap(), Side::Spec(spec.clone()));
        let har = dir.path().join("traffic.json");
        std::fs::write(&har, "{\n  \"log\": {\n    \"entries\": []\n  }\n}\n").unwrap();
        assert_eq!(classify(&har).unwrap(), Side::Traffic(har.clone()));
    }

    #[test]
    fn a_directory_is_its_spec_else_its_archive() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("flows.jsonl"), "").unwrap();
        assert_eq!(
            classify(dir.path()).unwrap(),
            Side::Traffic(dir.path().to_path_buf())
        );
        std::fs::write(dir.path().join("openapi.json"), "{}").unwrap();
        let yaml = dir.path().join("openapi.yaml");
        std::fs::write(&yaml, "").unwrap();
        assert_eq!(classify(dir.path()).unwrap(), Side::Spec(yaml));
    }
}
