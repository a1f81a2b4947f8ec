//! Flag groups more than one command takes: `--template`/`--templates` and `--against`
//! (`ar import`, `ar proxy`, sessions) and `--ui-port`/`--no-ui` (`ar proxy`,
//! sessions).

use std::path::PathBuf;

use anyhow::Context as _;

/// `--template` and `--templates`, as `ar import`, `ar proxy` and sessions
/// take them.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct TemplateArgs {
    /// A path template that beats the learnt ones (repeatable): `/api/files/{path*}`;
    /// `{name}` is one segment, `{name*}` (last) the rest of the path; `HOST/path` for one host.
    #[arg(long, value_name = "PATTERN")]
    pub(crate) template: Vec<String>,
    /// A file of path templates, one a line (`#` comments and blank lines are skipped).
    #[arg(long, value_name = "FILE")]
    pub(crate) templates: Vec<PathBuf>,
}

impl TemplateArgs {
    /// The patterns given, checked, files read, duplicates dropped
    /// ([`ar_session::pipeline::read_templates`]).
    pub(crate) fn read(&self) -> anyhow::Result<Vec<String>> {
        ar_session::pipeline::read_templates(&self.template, &self.templates)
    }
}

/// `--against SPEC`, as `ar import`, `ar proxy` and sessions take it.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct AgainstArgs {
    /// Hold the traffic against a published OpenAPI 3.0/3.1 spec (YAML or JSON, or an `ar`
    /// output directory): DRIFT.md and drift.json beside the spec list shadow and zombie
    /// endpoints, undocumented parameters and fields, and answers that break the documented
    /// status or schema, with the flows that show each.
    #[arg(long, value_name = "SPEC")]
    pub(crate) against: Option<PathBuf>,
}

impl AgainstArgs {
    /// The spec, read and checked, named after its file; an error names the file and what is
    /// wrong with it.
    pub(crate) fn read(&self) -> anyhow::Result<Option<ar_diff::Baseline>> {
        let Some(path) = &self.against else {
            return Ok(None);
        };
        let document = crate::cmd::diff::read_published(path).context("--against")?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Some(ar_diff::Baseline::new(document, name)))
    }
}

/// `--ui-port` and `--no-ui`.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub(crate) struct UiArgs {
    /// The live web view's port on 127.0.0.1 [default: any free port].
    #[arg(long, value_name = "N", conflicts_with = "no_ui")]
    pub(crate) ui_port: Option<u16>,
    /// Do not serve the live web view.
    #[arg(long)]
    pub(crate) no_ui: bool,
}

impl UiArgs {
    /// The port to serve on, or `None` for no web view.
    pub(crate) fn port(self) -> Option<u16> {
        (!self.no_ui).then_some(self.ui_port.unwrap_or(0))
    }
}
