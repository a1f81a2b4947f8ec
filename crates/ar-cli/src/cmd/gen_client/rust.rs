//! The Rust client: progenitor, as a library, on the same `openapiv3` model
//! ar-openapi builds, writing a crate that builds on its own (reqwest,
//! serde). Credentials are progenitor's inner value, applied by its pre-hook
//! on every request, so `Client::connect` needs no wrapper type.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use progenitor_impl::{GenerationSettings, Generator, InterfaceStyle};
use quote::quote;

use anyhow::bail;

use super::api::{Api, AuthPlace, snake};
use super::dialect;
use super::readme::{self, Parts};
use super::tool::on_path;
use super::{Made, spec_yaml, write};

/// The progenitor release linked into ar; the crate depends on its client
/// half at the same version.
const PROGENITOR: &str = "0.15.1";

/// Generates the crate of `api` into `target`.
pub(crate) fn generate(api: &Api, target: &Path) -> anyhow::Result<Made> {
    let mut settings = GenerationSettings::new();
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_inner_type(quote!(crate::connect::Credentials))
        .with_pre_hook(quote!(crate::connect::apply));
    let adapted = dialect::for_progenitor(&api.spec);
    let mut generator = Generator::new(&settings);
    // progenitor stops on some constructs with `todo!()`; that must end this
    // client, not ar.
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        generator.generate_tokens(&adapted.spec)
    }));
    let tokens = match generated {
        Ok(Ok(tokens)) => tokens,
        Ok(Err(e)) => bail!("progenitor {PROGENITOR} cannot generate it: {e}"),
        Err(_) => bail!(
            "progenitor {PROGENITOR} stopped on a construct it does not support (its message is above)"
        ),
    };
    let mut notes = Vec::new();
    let code =
        format!("mod connect;\npub use connect::{{Credentials, DEFAULT_BASE_URL}};\n\n{tokens}");
    let crate_name = format!("{}-client", snake(&api.host).replace('_', "-"));
    write(target, "Cargo.toml", &cargo_toml(&crate_name, &generator))?;
    write(target, "src/lib.rs", &code)?;
    write(target, "src/connect.rs", &connect_rs(api))?;
    write(target, "openapi.yaml", &spec_yaml(api)?)?;
    if let Some(note) = rustfmt(&target.join("src/lib.rs")) {
        notes.push(note);
    }
    let tool = format!("progenitor {PROGENITOR} (built into ar)");
    let readme = readme::render(
        api,
        &Parts {
            language: "Rust",
            tool: &tool,
            install: (
                "toml",
                format!(
                    "[dependencies]\n{} = {{ path = \"{}\" }}\ntokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}",
                    crate_name,
                    target.display()
                ),
            ),
            param: &|auth| auth.param.clone(),
            calls: ("rust", calls(api, &adapted.spec, &crate_name)),
        },
    );
    write(target, "README.md", &readme)?;
    Ok(Made {
        dir: target.to_path_buf(),
        base_url: api.base_url.clone(),
        tool,
        warnings: adapted.left_out,
        notes,
    })
}

/// Formats the generated code with rustfmt when there is one (the code is
/// valid either way); a note otherwise.
fn rustfmt(file: &Path) -> Option<String> {
    let Some(rustfmt) = on_path("rustfmt") else {
        return Some("rustfmt is not on PATH: src/lib.rs is left on long lines".to_owned());
    };
    let status = Command::new(rustfmt)
        .args(["--edition", "2021"])
        .arg(file)
        .status();
    match status {
        Ok(status) if status.success() => None,
        _ => Some(format!("rustfmt could not format {}", file.display())),
    }
}

/// The crate's manifest: progenitor's client half and what the generated
/// code uses (the same choices as `cargo progenitor`).
fn cargo_toml(name: &str, generator: &Generator) -> String {
    let types = generator.get_type_space();
    let mut deps = vec![
        "bytes = \"1.9\"".to_owned(),
        "futures-core = \"0.3\"".to_owned(),
        format!("progenitor-client = \"{PROGENITOR}\""),
        "reqwest = { version = \"0.13\", default-features = false, features = [\"json\", \"query\", \"stream\", \"rustls\"] }".to_owned(),
        "serde = { version = \"1.0\", features = [\"derive\"] }".to_owned(),
        "serde_json = \"1.0\"".to_owned(),
        "serde_urlencoded = \"0.7\"".to_owned(),
    ];
    if types.uses_regress() {
        deps.push("regress = \"0.10\"".to_owned());
    }
    if types.uses_uuid() {
        deps.push("uuid = { version = \"1.0\", features = [\"serde\", \"v4\"] }".to_owned());
    }
    if types.uses_chrono() {
        deps.push(
            "chrono = { version = \"0.4\", default-features = false, features = [\"serde\"] }"
                .to_owned(),
        );
    }
    if generator.uses_futures() {
        deps.push("futures = \"0.3\"".to_owned());
    }
    if generator.uses_websockets() {
        deps.push("base64 = \"0.22\"".to_owned());
        deps.push("rand = \"0.8\"".to_owned());
    }
    deps.sort_unstable();
    format!(
        "# Written by `ar gen-client --lang rust` (progenitor {PROGENITOR}).\n[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{}\n\n# A crate of its own, even when generated inside another workspace.\n[workspace]\n",
        deps.join("\n")
    )
}

/// `src/connect.rs`: the credentials (masked in `Debug`), the pre-hook that
/// puts them on each request, and `Client::connect` to the session's server.
fn connect_rs(api: &Api) -> String {
    let mut fields = String::new();
    let mut debug = String::new();
    let mut apply = String::new();
    let mut cookies = String::new();
    for auth in &api.auth {
        let name = &auth.param;
        let (doc, line) = match &auth.place {
            AuthPlace::Header(header) => (
                format!("the `{header}` header"),
                // `&'static str` header names must be lowercase (http panics otherwise).
                format!(
                    "header(request, {:?}, value.clone());",
                    header.to_ascii_lowercase()
                ),
            ),
            AuthPlace::Query(param) => (
                format!("the `{param}` query parameter"),
                format!("request.url_mut().query_pairs_mut().append_pair({param:?}, value);"),
            ),
            AuthPlace::Cookie(cookie) => (
                format!("the `{cookie}` cookie"),
                format!("cookies.push(format!(\"{cookie}={{value}}\"));"),
            ),
            AuthPlace::Bearer => (
                "a bearer token (`Authorization: Bearer ...`)".to_owned(),
                "header(request, \"authorization\", format!(\"Bearer {value}\"));".to_owned(),
            ),
            AuthPlace::Basic => (
                "base64 of `user:password` (`Authorization: Basic ...`)".to_owned(),
                "header(request, \"authorization\", format!(\"Basic {value}\"));".to_owned(),
            ),
        };
        let _ = writeln!(fields, "    /// {doc}.\n    pub {name}: Option<String>,");
        let _ = writeln!(
            debug,
            "            .field({name:?}, &self.{name}.as_ref().map(|_| \"***\"))"
        );
        let target = if matches!(auth.place, AuthPlace::Cookie(_)) {
            &mut cookies
        } else {
            &mut apply
        };
        let _ = writeln!(
            target,
            "    if let Some(value) = &credentials.{name} {{\n        {line}\n    }}"
        );
    }
    if !cookies.is_empty() {
        apply.push_str("    let mut cookies: Vec<String> = Vec::new();\n");
        apply.push_str(&cookies);
        apply.push_str(
            "    if !cookies.is_empty() {\n        header(request, \"cookie\", cookies.join(\"; \"));\n    }\n",
        );
    }
    let unused = if api.auth.is_empty() { "_" } else { "" };
    format!(
        r#"//! The server and credentials an ar session saw (written by `ar gen-client`).

use crate::Client;

/// The server the session mapped: the client's default base URL.
pub const DEFAULT_BASE_URL: &str = {base_url:?};

/// The credentials the session saw; each one set is sent on every request.
/// `Debug` shows which are set, never their values.
#[derive(Clone, Default)]
pub struct Credentials {{
{fields}}}

impl std::fmt::Debug for Credentials {{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{
        f.debug_struct("Credentials")
{debug}            .finish()
    }}
}}

impl Client {{
    /// A client of [`DEFAULT_BASE_URL`] that sends `credentials`.
    pub fn connect(credentials: Credentials) -> Self {{
        Self::new(DEFAULT_BASE_URL, credentials)
    }}
}}

/// progenitor's pre-hook: puts the credentials on each request.
pub(crate) fn apply({unused}credentials: &Credentials, {unused}request: &mut reqwest::Request) {{
{apply}}}

#[allow(dead_code)]
fn header(request: &mut reqwest::Request, name: &'static str, value: String) {{
    if let Ok(value) = reqwest::header::HeaderValue::from_str(&value) {{
        request.headers_mut().insert(name, value);
    }}
}}
"#,
        base_url = api.base_url,
    )
}

/// The README's calls with progenitor's builders.
fn calls(api: &Api, spec: &openapiv3::OpenAPI, crate_name: &str) -> String {
    let krate = crate_name.replace('-', "_");
    let credentials: Vec<String> = (api.auth.iter())
        .map(|a| format!("        {}: std::env::var({:?}).ok(),\n", a.param, a.env))
        .collect();
    let mut out = format!(
        "use {krate}::{{Client, Credentials}};\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {{\n    let client = Client::connect(Credentials {{\n{}    }});\n",
        credentials.concat()
    );
    let generated =
        |id: &str| (spec.operations()).any(|(_, _, op)| op.operation_id.as_deref() == Some(id));
    for example in api.examples.iter().filter(|e| generated(&e.operation_id)) {
        let mut chain = format!("client.{}()", snake(&example.operation_id));
        for (name, value) in example.path_params.iter().chain(&example.query) {
            let value = match value {
                serde_json::Value::String(s) => format!("{s:?}"),
                other => other.to_string(),
            };
            let _ = write!(chain, ".{}({value})", snake(name));
        }
        if let Some(body) = &example.body {
            let _ = write!(
                chain,
                ".body(serde_json::from_value(serde_json::json!({body}))?)"
            );
        }
        let _ = write!(
            out,
            "\n    // {} {}\n    let answer = {chain}.send().await?;\n    println!(\"{{:?}}\", answer.into_inner());\n",
            example.method, example.path
        );
    }
    out.push_str("    Ok(())\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::gen_client::api::per_server;

    #[test]
    fn credentials_go_on_each_request_under_lowercase_names() {
        let spec: openapiv3::OpenAPI = serde_norway::from_str(
            r"
openapi: 3.0.3
info: {title: t, version: '1'}
servers: [{url: 'https://auth.test'}]
paths:
  /me:
    get:
      operationId: getMe
      responses: {'200': {description: OK}}
      security: [{xApiKeyHeader: []}, {sessionidCookie: []}]
components:
  securitySchemes:
    xApiKeyHeader: {type: apiKey, in: header, name: X-API-Key}
    sessionidCookie: {type: apiKey, in: cookie, name: sessionid}
",
        )
        .unwrap();
        let api = &per_server(&spec, None).unwrap()[0];
        let code = connect_rs(api);
        // http's `&'static str` header names panic unless lowercase.
        assert!(
            code.contains(r#"header(request, "x-api-key", value.clone());"#),
            "{code}"
        );
        assert!(
            code.contains(r#"header(request, "cookie", cookies.join("; "));"#),
            "{code}"
        );
        assert!(
            code.contains(r#".field("x_api_key", &self.x_api_key.as_ref().map(|_| "***"))"#),
            "{code}"
        );
    }
}
