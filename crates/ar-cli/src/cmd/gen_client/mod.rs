//! `ar gen-client DIR --lang python|typescript|rust`: a typed client for the
//! API a session mapped, made by the generator each ecosystem already trusts
//! (openapi-python-client; openapi-typescript with openapi-fetch; progenitor),
//! plus what those leave to their user: the default base URL (the spec's
//! server), the credentials the session saw as parameters of `connect`, and a
//! README whose first calls are the API's own.
//!
//! `ar <url> --gen-client LANG` and `ar demo --gen-client LANG` run it on the
//! session's directory when the session ends.

mod api;
mod dialect;
mod python;
mod readme;
#[cfg(feature = "rust-client")]
mod rust;
mod tool;
mod typescript;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};

/// The languages a client can be generated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Lang {
    /// openapi-python-client: an httpx client with attrs models.
    Python,
    /// openapi-typescript types with an openapi-fetch client.
    Typescript,
    /// progenitor: a crate with a reqwest client and serde types.
    Rust,
}

impl Lang {
    /// `python`, `typescript`, `rust`: the suffix of the default directory.
    fn name(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::Typescript => "typescript",
            Self::Rust => "rust",
        }
    }
}

/// Generate a typed client (Python, TypeScript, Rust) from a session's openapi.yaml.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A session's output directory, or any directory holding an openapi.yaml (or the file itself).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The client's language.
    #[arg(long, value_enum)]
    lang: Lang,
    /// Where to write the client [default: DIR/client-<lang>, or DIR/client-<lang>-<host> for
    /// each server of a spec that has several].
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Only the operations of this server (its URL or host, e.g. api.shop.test).
    #[arg(long, value_name = "URL|HOST")]
    server: Option<String>,
}

/// A client written to disk.
#[derive(Debug)]
pub(crate) struct Made {
    /// Its directory.
    pub(crate) dir: PathBuf,
    /// The server it calls by default.
    pub(crate) base_url: String,
    /// The generator, its version and how it ran.
    pub(crate) tool: String,
    /// What the generator said about the spec (each one a bug to fix in ar-openapi).
    pub(crate) warnings: Vec<String>,
    /// Other things worth knowing (a generator of an untested version).
    pub(crate) notes: Vec<String>,
}

impl Made {
    /// A client an external generator (`tool`) wrote into `dir`.
    fn by(tool: tool::Tool, dir: &Path, api: &api::Api, warnings: Vec<String>) -> Self {
        Self {
            dir: dir.to_path_buf(),
            base_url: api.base_url.clone(),
            tool: tool.how,
            warnings,
            notes: tool.note.into_iter().collect(),
        }
    }
}

/// Runs `ar gen-client`.
pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let made = generate(
        &args.dir,
        args.lang,
        args.server.as_deref(),
        args.out.as_deref(),
    )?;
    report(&made, out)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes what was made, and every warning, to `out`.
pub(crate) fn report(made: &[Made], out: &mut dyn Write) -> anyhow::Result<()> {
    for client in made {
        writeln!(
            out,
            "client for {} written to {} ({}); README.md shows the first calls",
            client.base_url,
            client.dir.display(),
            client.tool
        )?;
        for note in &client.notes {
            writeln!(out, "  note: {note}")?;
        }
        for warning in &client.warnings {
            writeln!(out, "  warning: {warning}")?;
        }
    }
    Ok(())
}

/// Generates the `lang` client of the spec in `dir` (a directory with an
/// `openapi.yaml`, or the spec file), one per server unless `server` picks one.
pub(crate) fn generate(
    dir: &Path,
    lang: Lang,
    server: Option<&str>,
    out: Option<&Path>,
) -> anyhow::Result<Vec<Made>> {
    let (spec_file, dir) = if dir.is_file() {
        (dir.to_path_buf(), dir.parent().unwrap_or(Path::new(".")))
    } else {
        (dir.join("openapi.yaml"), dir)
    };
    let text = std::fs::read_to_string(&spec_file).with_context(|| {
        format!(
            "cannot read {}: pass a session's output directory (or any directory holding an openapi.yaml)",
            spec_file.display()
        )
    })?;
    let spec: openapiv3::OpenAPI = serde_norway::from_str(&text)
        .with_context(|| format!("{} is not an OpenAPI 3.0 document", spec_file.display()))?;
    let apis = api::per_server(&spec, server)?;
    if out.is_some() && apis.len() > 1 {
        bail!(
            "the spec has {} servers ({}): pick one with --server to write its client to --out",
            apis.len(),
            (apis.iter().map(|a| a.host.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut made = Vec::new();
    for api in &apis {
        let target = match out {
            Some(out) => out.to_path_buf(),
            None if apis.len() == 1 => dir.join(format!("client-{}", lang.name())),
            None => dir.join(format!("client-{}-{}", lang.name(), api.host)),
        };
        let client = match lang {
            Lang::Python => python::generate(api, &target),
            Lang::Typescript => typescript::generate(api, &target),
            #[cfg(feature = "rust-client")]
            Lang::Rust => rust::generate(api, &target),
            #[cfg(not(feature = "rust-client"))]
            Lang::Rust => bail!(
                "this ar was built without the Rust client generator: build it with `--features rust-client`"
            ),
        }
        .with_context(|| format!("the {} client of {}", lang.name(), api.base_url))?;
        made.push(client);
    }
    Ok(made)
}

/// Writes `text` to `dir/name`, creating `dir`.
fn write(dir: &Path, name: &str, text: &str) -> anyhow::Result<()> {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    ar_session::files::write_atomic(&path, text.as_bytes())
}

/// The spec a client was made from, saved beside it as `openapi.yaml`.
fn spec_yaml(api: &api::Api) -> anyhow::Result<String> {
    yaml(&api.spec)
}

/// A spec as YAML, through ar-openapi's writer: it quotes strings that YAML
/// 1.1 or 1.2 readers would take for numbers (`01e462`), which generic
/// serialisers leave bare and generators then read as floats.
fn yaml(spec: &openapiv3::OpenAPI) -> anyhow::Result<String> {
    ar_openapi::to_yaml(spec).context("cannot write the client's spec as YAML")
}
