//! Flag groups more than one command takes: `--template`/`--templates` and `--against`
//! (`ar import`, `ar proxy`, sessions), `--ui-port`/`--no-ui` and
//! `--upstream-proxy`/`--no-upstream-proxy` (`ar proxy`, sessions).

use std::path::PathBuf;

use anyhow::Context as _;
use ar_capture::UpstreamProxy;

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

/// `--upstream-proxy` and `--no-upstream-proxy`, as `ar proxy` and sessions
/// take them. Both commands have an `--offline` it conflicts with.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct UpstreamProxyArgs {
    /// Reach origins through this HTTP proxy (CONNECT for HTTPS, absolute-form
    /// requests for HTTP); its credentials are never archived or printed, nor
    /// kept for --resume (a resumed session needs the flag again).
    /// Loopback and --resolve'd hosts are reached directly.
    #[arg(
        long,
        value_name = "http://[USER:PASSWORD@]HOST:PORT",
        conflicts_with = "offline",
        value_parser = Masked::<UpstreamProxy>::new()
    )]
    pub(crate) upstream_proxy: Option<UpstreamProxy>,
    /// Hosts reached directly, not through --upstream-proxy (comma-separated;
    /// `example.com` covers its subdomains, `*` every host).
    #[arg(
        long,
        value_name = "HOST,...",
        value_delimiter = ',',
        requires = "upstream_proxy"
    )]
    pub(crate) no_upstream_proxy: Vec<String>,
}

impl UpstreamProxyArgs {
    /// The upstream proxy, with the `--no-upstream-proxy` hosts reached directly.
    pub(crate) fn proxy(&self) -> Option<UpstreamProxy> {
        let direct = self.no_upstream_proxy.iter().map(String::as_str);
        (self.upstream_proxy.clone()).map(|proxy| proxy.direct_to(direct))
    }
}

/// Reads a value that may hold a password (`--upstream-proxy`,
/// `--socks5-auth`). clap's own message for a bad value repeats the value,
/// password and all; this one names the flag and the value's error, which
/// masks it.
#[derive(Debug)]
pub(crate) struct Masked<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Masked<T> {
    pub(crate) fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<T> Clone for Masked<T> {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl<T> clap::builder::TypedValueParser for Masked<T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let arg = arg.map(ToString::to_string).unwrap_or_default();
        let parsed = match value.to_str() {
            Some(text) => text.parse().map_err(|error| format!("{error}")),
            None => Err("the value is not UTF-8".to_owned()),
        };
        parsed.map_err(|error| {
            let message = format!("invalid value for '{arg}': {error}\n");
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, message).with_cmd(cmd)
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use crate::cli::Cli;

    /// The error `ar ARGS...` stops with (usage errors exit 2), as printed.
    fn refused(args: &[&str]) -> String {
        let error = Cli::try_parse_from(std::iter::once("ar").chain(args.iter().copied()))
            .expect_err("the flags are refused");
        assert_eq!(error.exit_code(), 2, "{error}");
        error.render().to_string()
    }

    #[test]
    fn offline_and_an_upstream_proxy_are_refused_together_in_a_session_and_in_ar_proxy() {
        let upstream = "http://me:hunter2@proxy.corp:3128";
        for args in [
            &[
                "https://shop.test",
                "--offline",
                "--upstream-proxy",
                upstream,
            ][..],
            &[
                "proxy",
                "--out",
                "o",
                "--offline",
                "--upstream-proxy",
                upstream,
            ],
        ] {
            let error = refused(args);
            assert!(error.contains("--offline"), "{error}");
            assert!(error.contains("--upstream-proxy"), "{error}");
        }
        let error = refused(&["https://shop.test", "--no-upstream-proxy", "intranet.test"]);
        assert!(error.contains("--upstream-proxy"), "{error}");
    }

    #[test]
    fn a_bad_upstream_proxy_is_refused_naming_the_flag_without_its_password() {
        for args in [
            &[
                "https://shop.test",
                "--upstream-proxy",
                "https://me:hunter2@proxy.corp",
            ][..],
            &[
                "proxy",
                "--out",
                "o",
                "--upstream-proxy",
                "https://me:hunter2@proxy.corp",
            ],
        ] {
            let error = refused(args);
            assert!(error.contains("--upstream-proxy"), "{error}");
            assert!(
                error.contains("http://[USER:PASSWORD@]HOST:PORT"),
                "{error}"
            );
            assert!(!error.contains("hunter2"), "{error}");
        }
    }
}
