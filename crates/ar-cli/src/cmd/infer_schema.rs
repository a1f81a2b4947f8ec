//! `ar infer-schema [FILE...]`: JSON documents or JSON Lines in, one merged schema out.

use std::io::{ErrorKind, Read as _, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use ar_schema::{RenderOptions, SchemaBuilder, ShapeOptions};

/// Infer one JSON Schema from JSON samples (documents, JSON Lines, or concatenated values).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Files to read; every JSON value in them is one sample. None, or `-`, reads stdin.
    files: Vec<PathBuf>,
    /// Print an OpenAPI 3.0 schema object (`nullable`, no type arrays) instead of JSON Schema
    /// 2020-12.
    #[arg(long, conflicts_with = "shape")]
    openapi: bool,
    /// Print a compact `path → type` outline instead of a schema.
    #[arg(long)]
    shape: bool,
    /// Leave out the `x-ar-samples` counts.
    #[arg(long)]
    no_counts: bool,
}

/// Reads every input, merges the samples, prints the schema to `out`.
pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let mut builder = SchemaBuilder::new();
    let stdin_only = [PathBuf::from("-")];
    let files = if args.files.is_empty() {
        &stdin_only[..]
    } else {
        &args.files[..]
    };
    for file in files {
        let (name, bytes) = read_input(file)?;
        let added = builder
            .add_json_stream(&bytes)
            .with_context(|| name.clone())?;
        if added == 0 {
            eprintln!("ar: note: {name}: no JSON values");
        }
    }
    let schema = builder.finish();
    if schema.is_empty() {
        bail!("no JSON samples were read");
    }
    let limits = schema.limits();
    if !limits.is_clean() {
        eprintln!(
            "ar: note: safety limits applied: {} values deeper than {} levels not inspected, {} keys longer than {} bytes, {} objects with more than {} keys turned into maps",
            limits.depth_truncated,
            ar_schema::limits::MAX_DEPTH,
            limits.long_keys,
            ar_schema::limits::MAX_KEY_BYTES,
            limits.collapsed_objects,
            ar_schema::limits::MAX_PROPERTIES,
        );
    }
    let opts = RenderOptions::default().sample_counts(!args.no_counts);
    let text = if args.shape {
        schema.shape(&ShapeOptions::default().max_bytes(usize::MAX))
    } else {
        let value = if args.openapi {
            schema.to_openapi_with(&opts)
        } else {
            schema.to_json_schema_with(&opts)
        };
        let mut text = serde_json::to_string_pretty(&value)?;
        text.push('\n');
        text
    };
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        other => other
            .map(|()| ExitCode::SUCCESS)
            .context("writing the schema"),
    }
}

/// The display name and bytes of one input (`-` is stdin).
fn read_input(file: &PathBuf) -> anyhow::Result<(String, Vec<u8>)> {
    let mut bytes = Vec::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("reading stdin")?;
        return Ok(("<stdin>".into(), bytes));
    }
    let name = file.display().to_string();
    bytes = std::fs::read(file).with_context(|| format!("reading {name}"))?;
    Ok((name, bytes))
}
