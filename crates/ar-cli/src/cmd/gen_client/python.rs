//! The Python client: openapi-python-client (an httpx client with attrs
//! models, a module per operation), and `connect.py` beside it with the
//! server and the credentials.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::Value;

use super::api::{Api, Auth, AuthPlace, snake};
use super::dialect;
use super::readme::{self, Parts};
use super::tool::{self, OPENAPI_PYTHON_CLIENT};
use super::{Made, spec_yaml, write, yaml};

/// Generates the client of `api` into `target` (replacing what is there).
pub(crate) fn generate(api: &Api, target: &Path) -> anyhow::Result<Made> {
    let tool = tool::python_generator()?;
    let package = format!("{}_client", snake(&api.host));
    let project = package.replace('_', "-");
    let adapted = dialect::for_python(&api.spec);
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    let spec_file = work.path().join("openapi.yaml");
    std::fs::write(&spec_file, yaml(&adapted.spec)?)?;
    let config = work.path().join("config.yaml");
    std::fs::write(&config, config_yaml(&project, &package, &adapted.overrides))?;
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let args: Vec<OsString> = vec![
        "generate".into(),
        "--path".into(),
        spec_file.into(),
        "--output-path".into(),
        std::path::absolute(target)?.into(),
        "--overwrite".into(),
        "--meta".into(),
        "poetry".into(),
        "--config".into(),
        config.into(),
    ];
    let printed = tool.run(&args, work.path())?;
    let mut warnings = adapted.left_out;
    warnings.extend(
        warnings_in(&printed)
            .into_iter()
            .map(|w| format!("{}: {w}", OPENAPI_PYTHON_CLIENT.name)),
    );
    write(target, &format!("{package}/connect.py"), &connect_py(api))?;
    write(target, "openapi.yaml", &spec_yaml(api)?)?;
    let calls = calls(api, target, &package);
    let readme = readme::render(
        api,
        &Parts {
            language: "Python",
            tool: &tool.how,
            install: ("sh", format!("pip install {}", target.display())),
            param: &|auth: &Auth| auth.param.clone(),
            calls: ("python", calls),
        },
    );
    write(target, "README.md", &readme)?;
    Ok(Made::by(tool, target, api, warnings))
}

/// The generator's settings: the package's names (from the host, not the
/// spec's title) and the media types it reads as bytes; its other defaults
/// (ruff formatting) hold.
fn config_yaml(project: &str, package: &str, overrides: &BTreeMap<String, String>) -> String {
    let mut config =
        format!("project_name_override: {project}\npackage_name_override: {package}\n");
    if !overrides.is_empty() {
        config.push_str("content_type_overrides:\n");
        for (from, to) in overrides {
            // JSON strings are YAML strings.
            let _ = writeln!(
                config,
                "  {}: {}",
                Value::from(from.as_str()),
                Value::from(to.as_str())
            );
        }
    }
    config
}

/// The generator's warnings: each paragraph between its "Warning(s)
/// encountered" line and its closing advice, a JSON excerpt joined to the
/// paragraph it illustrates; its progress lines are not warnings.
fn warnings_in(printed: &str) -> Vec<String> {
    let mut warnings: Vec<String> = Vec::new();
    for paragraph in printed.split("\n\n") {
        let text = paragraph.trim();
        if text.is_empty()
            || text.starts_with("Generating ")
            || text.starts_with("If you believe this was a mistake")
        {
            continue;
        }
        let text = text
            .strip_prefix(
                "Warning(s) encountered while generating. Client was generated, but some pieces may be missing",
            )
            .unwrap_or(text)
            .trim();
        if text.is_empty() {
            continue;
        }
        let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match warnings.last_mut() {
            Some(last) if text.starts_with('{') || text.starts_with('[') => {
                last.push(' ');
                last.push_str(&joined);
            }
            Some(last) if last.starts_with("WARNING parsing") && !last.contains(" | ") => {
                last.push_str(" | ");
                last.push_str(&joined);
            }
            _ => warnings.push(joined),
        }
    }
    warnings
}

/// The credential `AuthenticatedClient` carries as its token: the first one
/// sent in a header. The generator types the `client` of every secured
/// operation as `AuthenticatedClient`, so `connect` returns one when it can.
fn token_of(api: &Api) -> Option<&Auth> {
    (api.auth.iter()).find(|a| {
        matches!(
            a.place,
            AuthPlace::Header(_) | AuthPlace::Bearer | AuthPlace::Basic
        )
    })
}

/// `connect.py`: the server as the default base URL and each credential as a
/// keyword argument: the token of an `AuthenticatedClient` (required), the
/// others optional.
fn connect_py(api: &Api) -> String {
    let token = token_of(api);
    let mut params = String::new();
    let mut docs = String::new();
    let mut apply = String::new();
    for auth in &api.auth {
        let name = &auth.param;
        let is_token = token.is_some_and(|t| t.param == *name);
        let (doc, line) = match &auth.place {
            AuthPlace::Header(header) => (
                format!("the `{header}` header"),
                format!("headers[{header:?}] = {name}"),
            ),
            AuthPlace::Query(query) => (
                format!("the `{query}` query parameter"),
                format!("params[{query:?}] = {name}"),
            ),
            AuthPlace::Cookie(cookie) => (
                format!("the `{cookie}` cookie"),
                format!("cookies[{cookie:?}] = {name}"),
            ),
            AuthPlace::Bearer => (
                "a bearer token (`Authorization: Bearer ...`)".to_owned(),
                format!("headers[\"Authorization\"] = f\"Bearer {{{name}}}\""),
            ),
            AuthPlace::Basic => (
                "base64 of `user:password` (`Authorization: Basic ...`)".to_owned(),
                format!("headers[\"Authorization\"] = f\"Basic {{{name}}}\""),
            ),
        };
        let _ = writeln!(docs, "        {name}: {doc}.");
        if is_token {
            let _ = writeln!(params, "    {name}: str,");
        } else {
            let _ = writeln!(params, "    {name}: str | None = None,");
            let _ = writeln!(apply, "    if {name} is not None:\n        {line}");
        }
    }
    let (import, returns, construct) = match token {
        Some(auth) => {
            let (header, prefix) = match &auth.place {
                AuthPlace::Header(header) => (header.as_str(), ""),
                AuthPlace::Basic => ("Authorization", "Basic"),
                _ => ("Authorization", "Bearer"),
            };
            (
                "AuthenticatedClient",
                "AuthenticatedClient",
                format!(
                    "AuthenticatedClient(\n        base_url=base_url,\n        token={name},\n        prefix={prefix:?},\n        auth_header_name={header:?},\n",
                    name = auth.param
                ),
            )
        }
        None => (
            "Client",
            "Client",
            "Client(\n        base_url=base_url,\n".to_owned(),
        ),
    };
    format!(
        r#""""The server and credentials an ar session saw (written by `ar gen-client`)."""

from __future__ import annotations

from typing import Any

from .client import {import}

DEFAULT_BASE_URL = {base_url:?}
"""The server the session mapped: the client's default base URL."""


def connect(
    *,
{params}    base_url: str = DEFAULT_BASE_URL,
    **kwargs: Any,
) -> {returns}:
    """A client of `base_url` that sends the credentials given on every request.

    Args:
{docs}        base_url: the server to call.
        **kwargs: passed to the client (`timeout`, `verify_ssl`, `headers`, ...).
    """
    headers: dict[str, str] = dict(kwargs.pop("headers", {{}}))
    cookies: dict[str, str] = dict(kwargs.pop("cookies", {{}}))
    httpx_args: dict[str, Any] = dict(kwargs.pop("httpx_args", {{}}))
    params: dict[str, str] = dict(httpx_args.pop("params", {{}}))
{apply}    if params:
        httpx_args["params"] = params
    return {construct}        headers=headers,
        cookies=cookies,
        httpx_args=httpx_args,
        **kwargs,
    )
"#,
        base_url = api.base_url,
    )
}

/// The README's calls, using the modules and body models the generator
/// wrote (found on disk, so the names are its own).
fn calls(api: &Api, target: &Path, package: &str) -> String {
    let mut imports = vec!["import os".to_owned(), String::new()];
    imports.push(format!("from {package}.connect import connect"));
    let mut body = String::new();
    let token = token_of(api).map(|a| a.param.as_str());
    let credentials: Vec<String> = (api.auth.iter())
        .map(|a| match Some(a.param.as_str()) == token {
            true => format!("{}=os.environ[{:?}]", a.param, a.env),
            false => format!("{}=os.environ.get({:?})", a.param, a.env),
        })
        .collect();
    let _ = writeln!(body, "client = connect({})", credentials.join(", "));
    for example in &api.examples {
        let function = snake(&example.operation_id);
        let Some((tag, module)) = module_of(target, package, &function) else {
            continue;
        };
        imports.push(format!("from {package}.api.{tag} import {function}"));
        let mut args = vec!["client=client".to_owned()];
        for (name, value) in example.path_params.iter().chain(&example.query) {
            args.push(format!("{}={}", snake(name), py_literal(value)));
        }
        if let Some(json) = &example.body {
            args.push(format!(
                "body={}",
                body_arg(&module, json, package, &mut imports)
            ));
        }
        let _ = writeln!(
            body,
            "\n# {} {}\nanswer = {function}.sync({})\nprint(answer)",
            example.method,
            example.path,
            args.join(", ")
        );
    }
    format!("{}\n\n{body}", imports.join("\n"))
}

/// `(tag, module source)` of the generated function `function`.
fn module_of(target: &Path, package: &str, function: &str) -> Option<(String, String)> {
    let api_dir: PathBuf = target.join(package).join("api");
    for entry in std::fs::read_dir(&api_dir).ok()?.flatten() {
        let file = entry.path().join(format!("{function}.py"));
        if let Ok(source) = std::fs::read_to_string(&file) {
            return Some((entry.file_name().to_string_lossy().into_owned(), source));
        }
    }
    None
}

/// The body argument: the model's `from_dict` when the function takes a
/// model, the literal otherwise.
fn body_arg(module: &str, json: &Value, package: &str, imports: &mut Vec<String>) -> String {
    let model = module
        .lines()
        .find_map(|line| line.trim().strip_prefix("body: "))
        .map(|kind| kind.trim_end_matches(',').trim())
        .filter(|kind| kind.chars().next().is_some_and(char::is_uppercase))
        .filter(|kind| kind.chars().all(|c| c.is_ascii_alphanumeric()));
    match model {
        Some(model) => {
            let import = format!("from {package}.models import {model}");
            if !imports.contains(&import) {
                imports.push(import);
            }
            format!("{model}.from_dict({})", py_literal(json))
        }
        None => py_literal(json),
    }
}

/// A JSON value as a Python literal.
fn py_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(py_literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!(
                    "{}: {}",
                    serde_json::to_string(k).unwrap_or_default(),
                    py_literal(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_the_generators_paragraphs_without_its_progress() {
        let printed = "Generating /tmp/x\nWarning(s) encountered while generating. Client was generated, but some pieces may be missing\n\nWARNING parsing POST /notes within notes. Endpoint will not be generated.\n\nUnsupported content type text/plain\n\n{\n  \"a\": 1\n}\n\nIf you believe this was a mistake or this tool is missing a feature you need, please open an issue\n";
        assert_eq!(
            warnings_in(printed),
            [
                "WARNING parsing POST /notes within notes. Endpoint will not be generated. | Unsupported content type text/plain { \"a\": 1 }"
            ]
        );
        assert!(warnings_in("Generating /tmp/x\n").is_empty());
    }

    #[test]
    fn json_becomes_python() {
        let value = serde_json::json!({"a": [true, null, 1.5, "x\"y"]});
        assert_eq!(py_literal(&value), r#"{"a": [True, None, 1.5, "x\"y"]}"#);
    }
}
