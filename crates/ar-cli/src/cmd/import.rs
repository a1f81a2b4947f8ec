//! `ar import FILE... --out DIR`: traffic captured by any tool (a HAR from
//! Chrome/Firefox DevTools, mitmproxy, Charles, Proxyman, or `ar`'s own
//! `flows.jsonl` archive) becomes `openapi.yaml`, `openapi.json` and `API.md`.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{IsTerminal as _, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use anyhow::{Context as _, bail};
use ar_flow::har::{EntryIssue, ImportOptions, stream_har};
use ar_store::Flow;

use ar_session::archive_dir::stream_archive;
use ar_session::pipeline::{Pipeline, PipelineConfig, read_dir_templates};
use ar_session::session::{MANIFEST_FILE, Manifest};

use crate::args::{AgainstArgs, TemplateArgs};

/// Turn captured traffic (HAR files, `flows.jsonl` archives) into an OpenAPI spec and API.md.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// HAR files, `flows.jsonl` archives, or directories holding a `flows.jsonl`.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Directory for openapi.yaml, openapi.json and API.md (created if missing).
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    settings: Settings,
}

/// How traffic is documented: every flag of `ar import` but the inputs and `--out`. `ar diff`
/// documents a HAR side with the defaults, as `ar import FILE` does.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct Settings {
    /// Hosts to document (comma-separated; `*.shop.test` for a domain and its subdomains).
    /// The first host's whole site is in scope too. Default: every host except known trackers.
    #[arg(long, value_delimiter = ',', value_name = "HOST,...")]
    scope: Vec<String>,
    /// The API's base URL (`https://api.shop.test/v2`): the main server in the spec; paths are
    /// written relative to it.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The spec's title (default: "<main host> API").
    #[arg(long)]
    title: Option<String>,
    /// Write secrets (Authorization, cookies, API keys, tokens) into examples as captured.
    /// Off by default; never use it for a spec you share.
    #[arg(long)]
    no_redact: bool,
    /// Fail on the first malformed entry instead of skipping it.
    #[arg(long)]
    strict: bool,
    /// Path templates (a session directory's own, in session.json, apply too).
    #[command(flatten)]
    templates: TemplateArgs,
    /// A published spec to hold the traffic against.
    #[command(flatten)]
    against: AgainstArgs,
}

/// The kinds of input `ar import` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputKind {
    /// A HAR 1.2 document (`{"log": {"entries": [...]}}`).
    Har,
    /// An `ar` archive: one HAR entry per line.
    Jsonl,
}

/// Decides what a file is from its first bytes, without reading it all.
pub(crate) fn sniff(head: &[u8]) -> Option<InputKind> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = &head[start..];
    if head.first() != Some(&b'{') {
        return None;
    }
    // A JSON Lines archive: the first line is a whole JSON object with a `request`.
    let first_line = head.split(|b| *b == b'\n').next().unwrap_or(head);
    if let Ok(serde_json::Value::Object(object)) =
        serde_json::from_slice::<serde_json::Value>(first_line)
    {
        if object.contains_key("request") && !object.contains_key("log") {
            return Some(InputKind::Jsonl);
        }
        if object.contains_key("log") {
            return Some(InputKind::Har);
        }
        return None;
    }
    // A pretty-printed or huge single-line document: look for the `log` key near the start.
    let window = &head[..head.len().min(4096)];
    let text = String::from_utf8_lossy(window);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.starts_with("{\"log\"") || compact.contains("\"log\":{") {
        return Some(InputKind::Har);
    }
    if compact.starts_with("{\"startedDateTime\"") || compact.contains("\"request\":{") {
        return Some(InputKind::Jsonl);
    }
    None
}

/// Per-run counts for the summary line.
#[derive(Debug, Default)]
struct Counts {
    files: usize,
    /// HAR entries repaired or skipped, by why.
    entry_issues: BTreeMap<EntryIssue, usize>,
    /// Damaged archive lines skipped.
    archive_lines_skipped: usize,
    first_errors: Vec<String>,
}

impl Counts {
    /// What was not read as written, as summary-line parts: "3 entries
    /// without a response: request side documented".
    fn not_as_written(&self) -> Vec<String> {
        let entries = |n: usize| if n == 1 { "entry" } else { "entries" };
        let mut parts: Vec<String> = self
            .entry_issues
            .iter()
            .map(|(issue, n)| format!("{n} {} {issue}", entries(*n)))
            .collect();
        if self.archive_lines_skipped > 0 {
            parts.push(format!(
                "{} malformed entries skipped",
                self.archive_lines_skipped
            ));
        }
        parts
    }
}

/// Reads every input through the pipeline and writes the three documents.
pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let Documented {
        mut pipeline,
        not_as_written,
    } = document(&args.files, &args.settings)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let documents = pipeline.documents()?;
    documents.write_to(&args.out)?;

    let summary = pipeline.summary();
    let ledger = pipeline.ledger();
    let mut line = format!(
        "{} flows read, {} in scope, {} endpoints",
        summary.flows, summary.in_scope, summary.endpoints
    );
    let skipped: Vec<String> = ledger
        .skipped
        .iter()
        .map(|(reason, count)| format!("{count} {}", reason.label()))
        .collect();
    if !skipped.is_empty() {
        let _ = write!(line, "; skipped {}", skipped.join(", "));
    }
    for part in not_as_written {
        let _ = write!(line, "; {part}");
    }
    if ledger.undecodable_bodies > 0 {
        let _ = write!(line, "; {} undecodable bodies", ledger.undecodable_bodies);
    }
    if ledger.truncated_bodies > 0 {
        let _ = write!(
            line,
            "; {} bodies cut short at capture",
            ledger.truncated_bodies
        );
    }
    writeln!(out, "{line} → {}", args.out.join("openapi.yaml").display())?;
    if let (Some(drift), Some(against)) = (&documents.drift, pipeline.against()) {
        writeln!(
            out,
            "drift from {}: {} → {}",
            against.name(),
            drift.headline,
            args.out
                .join(ar_session::pipeline::drift::DRIFT_MD)
                .display()
        )?;
    }
    if summary.endpoints == 0 {
        eprintln!("ar: note: no endpoints were documented; API.md lists what was left out and why");
    }
    Ok(ExitCode::SUCCESS)
}

/// Traffic read through a pipeline, titled and ready for [`Pipeline::documents`].
pub(crate) struct Documented {
    /// The pipeline, every flow ingested.
    pub(crate) pipeline: Pipeline,
    /// What was not read as written, as summary-line parts (also noted for API.md).
    pub(crate) not_as_written: Vec<String>,
}

/// Reads `files` (HAR files, `flows.jsonl` archives, directories holding one) through a
/// pipeline configured by `settings`: what `ar import` documents, and `ar diff` of a HAR side.
/// Skipped entries are warned about on stderr; no flow at all is an error.
pub(crate) fn document(files: &[PathBuf], settings: &Settings) -> anyhow::Result<Documented> {
    let against = settings.against.read()?;
    let mut patterns = settings.templates.read()?;
    // A session directory keeps the templates its runs used; `ar proxy`'s, its corrections.
    for file in files.iter().filter(|file| file.is_dir()) {
        if file.join(MANIFEST_FILE).is_file()
            && let Ok(manifest) = Manifest::load(file)
        {
            patterns.extend(manifest.settings.templates);
        }
        patterns.extend(read_dir_templates(file)?);
    }
    let mut config = PipelineConfig::default()
        .with_scope_hosts(&settings.scope)
        .with_templates(&patterns)?;
    config.redact = !settings.no_redact;
    config.against = against;
    config.options.base_url = settings.base_url.clone();
    if let Some(base) = &settings.base_url
        && !(base.starts_with("http://") || base.starts_with("https://"))
    {
        bail!("--base-url must be an absolute http(s) URL, got `{base}`");
    }
    let mut pipeline = Pipeline::new(config)?;
    let mut counts = Counts::default();
    let mut next_id = 1u64;
    for file in files {
        let (path, kind) = resolve(file)?;
        counts.files += 1;
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let progress = Progress::new(size, &path);
        let reader = CountingReader {
            inner: open(&path)?,
            read: Rc::clone(&progress.read),
        };
        let mut failure: Option<anyhow::Error> = None;
        let mut ingest = |flow: Flow, pipeline: &mut Pipeline| {
            if failure.is_none()
                && let Err(error) = pipeline.ingest(&flow)
            {
                failure = Some(error);
            }
            progress.tick();
        };
        match kind {
            InputKind::Har => {
                let options = if settings.strict {
                    ImportOptions::strict()
                } else {
                    ImportOptions::lenient()
                };
                let options = options.with_first_id(next_id);
                let summary = stream_har(reader, &options, |flow| {
                    next_id = next_id.max(flow.id.0 + 1);
                    ingest(flow, &mut pipeline);
                })
                .with_context(|| format!("{} is not a usable HAR file", path.display()))?;
                if summary.entries == 0 {
                    eprintln!("ar: note: {}: the HAR has no entries", path.display());
                }
                for (issue, n) in summary.issues {
                    *counts.entry_issues.entry(issue).or_default() += n;
                }
                counts.first_errors.extend(
                    summary
                        .skipped
                        .iter()
                        .take(3)
                        .map(|e| format!("{}: {e}", path.display())),
                );
            }
            InputKind::Jsonl => {
                let skipped = read_jsonl(reader, &path, settings.strict, &mut |flow| {
                    next_id = next_id.max(flow.id.0 + 1);
                    ingest(flow, &mut pipeline);
                })?;
                counts.archive_lines_skipped += skipped.0;
                counts.first_errors.extend(skipped.1);
            }
        }
        progress.finish();
        if let Some(error) = failure {
            return Err(error);
        }
    }

    for error in &counts.first_errors {
        eprintln!("ar: warning: skipped {error}");
    }
    let not_as_written = counts.not_as_written();
    if pipeline.summary().flows == 0 {
        let why = if not_as_written.is_empty() {
            String::new()
        } else {
            format!(" ({})", not_as_written.join("; "))
        };
        bail!("no flows in {}: nothing to document{why}", list(files));
    }
    let title = settings
        .title
        .clone()
        .unwrap_or_else(|| pipeline.default_title());
    pipeline.set_title(title);
    for note in &not_as_written {
        pipeline.note_input(note.clone());
    }
    Ok(Documented {
        pipeline,
        not_as_written,
    })
}

/// A file, or the `flows.jsonl` inside a directory, with its kind.
fn resolve(file: &Path) -> anyhow::Result<(PathBuf, InputKind)> {
    let path = if file.is_dir() {
        let inner = file.join("flows.jsonl");
        if !inner.is_file() {
            bail!(
                "{} is a directory without a flows.jsonl archive",
                file.display()
            );
        }
        inner
    } else {
        file.to_path_buf()
    };
    let mut head = vec![0u8; 64 * 1024];
    let mut reader = open(&path)?;
    let mut filled = 0;
    while filled < head.len() {
        match reader.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }
    head.truncate(filled);
    if head.iter().all(u8::is_ascii_whitespace) {
        bail!("{} is empty", path.display());
    }
    match sniff(&head) {
        Some(kind) => Ok((path, kind)),
        None => bail!(
            "{} is neither a HAR file nor an ar flows.jsonl archive (expected JSON starting with {{\"log\": ...}} or one HAR entry per line)",
            path.display()
        ),
    }
}

fn open(path: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))
}

/// Reads an `ar` archive line by line (spilled bodies from `bodies/` beside
/// it); damaged lines and a torn last line are skipped with a warning, unless strict.
fn read_jsonl(
    reader: impl Read,
    path: &Path,
    strict: bool,
    on_flow: &mut dyn FnMut(Flow),
) -> anyhow::Result<(usize, Vec<String>)> {
    let mut skipped = 0;
    let mut errors = Vec::new();
    stream_archive(
        reader,
        path,
        |flow| {
            on_flow(flow);
            Ok(())
        },
        |warning| {
            if strict {
                bail!("{warning}");
            }
            skipped += 1;
            if errors.len() < 3 {
                errors.push(warning);
            }
            Ok(())
        },
    )?;
    Ok((skipped, errors))
}

fn list(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Counts bytes read, for the progress bar.
struct CountingReader<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// A progress bar on stderr for inputs over 16 MB, only when stderr is a terminal.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    read: Rc<Cell<u64>>,
    flows: Cell<u64>,
}

impl Progress {
    fn new(size: u64, path: &Path) -> Self {
        let bar = (size > 16 * 1024 * 1024 && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(size);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_message(
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
            bar
        });
        Self {
            bar,
            read: Rc::new(Cell::new(0)),
            flows: Cell::new(0),
        }
    }

    fn tick(&self) {
        self.flows.set(self.flows.get() + 1);
        if let Some(bar) = &self.bar
            && self.flows.get().is_multiple_of(256)
        {
            bar.set_position(self.read.get());
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_tells_har_from_jsonl_from_garbage() {
        assert_eq!(
            sniff(b"{\n  \"log\": {\n    \"version\": \"1.2\""),
            Some(InputKind::Har)
        );
        assert_eq!(
            sniff(b"\xEF\xBB\xBF{\"log\":{\"entries\":[]}}"),
            Some(InputKind::Har)
        );
        assert_eq!(
            sniff(
                b"{\"startedDateTime\":\"x\",\"request\":{\"method\":\"GET\"}}\n{\"request\":{}}\n"
            ),
            Some(InputKind::Jsonl)
        );
        assert_eq!(sniff(b"<html>"), None);
        assert_eq!(sniff(b"{\"name\": \"package.json\"}\n"), None);
        assert_eq!(sniff(b"   "), None);
    }
}
