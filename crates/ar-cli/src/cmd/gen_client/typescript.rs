//! The TypeScript client: openapi-typescript turns the spec into types
//! (`schema.d.ts`), openapi-fetch is the client over them, and `client.ts`
//! connects it to the server with the credentials.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;

use super::api::{Api, Auth, AuthPlace, snake};
use super::readme::{self, Parts};
use super::tool::{self, OPENAPI_FETCH, OPENAPI_TYPESCRIPT};
use super::{Made, spec_yaml, write};

/// The TypeScript compiler the package's `check` script was tested with.
const TYPESCRIPT: &str = "5.9.3";

/// Node's types, for `process.env` in the README's calls.
const TYPES_NODE: &str = "20.19.43";

/// Generates the client of `api` into `target`.
pub(crate) fn generate(api: &Api, target: &Path) -> anyhow::Result<Made> {
    let tool = tool::typescript_generator()?;
    std::fs::create_dir_all(target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    let spec_file = work.path().join("openapi.yaml");
    std::fs::write(&spec_file, spec_yaml(api)?)?;
    let args: Vec<OsString> = vec![
        spec_file.into(),
        "--output".into(),
        std::path::absolute(target.join("schema.d.ts"))?.into(),
    ];
    let printed = tool.run(&args, work.path())?;
    let warnings = warnings_in(&printed)
        .into_iter()
        .map(|w| format!("{}: {w}", OPENAPI_TYPESCRIPT.name))
        .collect();
    let package = format!("{}-client", snake(&api.host).replace('_', "-"));
    write(target, "client.ts", &client_ts(api))?;
    write(target, "package.json", &package_json(&package))?;
    write(target, "openapi.yaml", &spec_yaml(api)?)?;
    let readme = readme::render(
        api,
        &Parts {
            language: "TypeScript",
            tool: &format!(
                "{} with {} {}",
                tool.how, OPENAPI_FETCH.name, OPENAPI_FETCH.version
            ),
            install: (
                "sh",
                format!(
                    "npm install --prefix {dir}   # openapi-fetch {version}\n\
                     # then import {{ connect }} from \"./{dir}/client.js\"",
                    dir = target.display(),
                    version = OPENAPI_FETCH.version
                ),
            ),
            param: &|auth: &Auth| camel(&auth.param),
            calls: ("ts", calls(api)),
        },
    );
    write(target, "README.md", &readme)?;
    Ok(Made::by(tool, target, api, warnings))
}

/// Every line openapi-typescript printed but its banner and its "wrote"
/// line, and npm's own chatter when npx runs it.
fn warnings_in(printed: &str) -> Vec<String> {
    printed
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .filter(|line| !line.starts_with('✨') && !line.starts_with('🚀'))
        .filter(|line| !line.to_ascii_lowercase().starts_with("npm warn"))
        .map(str::to_owned)
        .collect()
}

/// `x_api_key` → `xApiKey`.
fn camel(snake: &str) -> String {
    let mut out = String::new();
    for (i, word) in snake.split('_').enumerate() {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            if i == 0 {
                out.push(first);
            } else {
                out.push(first.to_ascii_uppercase());
            }
            out.extend(chars);
        }
    }
    out
}

fn package_json(name: &str) -> String {
    let package = serde_json::json!({
        "name": name,
        "version": "0.1.0",
        "private": true,
        "type": "module",
        "description": "A typed client written by `ar gen-client` (openapi-typescript types, openapi-fetch client).",
        "scripts": { "check": "tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 client.ts" },
        "dependencies": { OPENAPI_FETCH.name: OPENAPI_FETCH.version },
        "devDependencies": { "@types/node": TYPES_NODE, "typescript": TYPESCRIPT },
    });
    let mut text = serde_json::to_string_pretty(&package).expect("a JSON value serialises");
    text.push('\n');
    text
}

/// `client.ts`: `connect`, the server as the default base URL and the
/// credentials as a middleware that adds them to every request.
fn client_ts(api: &Api) -> String {
    let mut fields = String::new();
    let mut headers = String::new();
    let mut query = String::new();
    let mut cookies = String::new();
    for auth in &api.auth {
        let name = camel(&auth.param);
        let value = format!("credentials.{name}");
        let (doc, line, into) = match &auth.place {
            AuthPlace::Header(header) => (
                format!("the `{header}` header"),
                format!("request.headers.set({header:?}, {value});"),
                &mut headers,
            ),
            AuthPlace::Query(param) => (
                format!("the `{param}` query parameter"),
                format!("url.searchParams.set({param:?}, {value});"),
                &mut query,
            ),
            AuthPlace::Cookie(cookie) => (
                format!("the `{cookie}` cookie"),
                format!("cookies.push(`{cookie}=${{{value}}}`);"),
                &mut cookies,
            ),
            AuthPlace::Bearer => (
                "a bearer token (`Authorization: Bearer ...`)".to_owned(),
                format!("request.headers.set(\"Authorization\", `Bearer ${{{value}}}`);"),
                &mut headers,
            ),
            AuthPlace::Basic => (
                "base64 of `user:password` (`Authorization: Basic ...`)".to_owned(),
                format!("request.headers.set(\"Authorization\", `Basic ${{{value}}}`);"),
                &mut headers,
            ),
        };
        let _ = writeln!(fields, "  /** {doc}. */\n  {name}?: string;");
        let _ = writeln!(into, "      if ({value} !== undefined) {line}");
    }
    let mut middleware = String::new();
    if !api.auth.is_empty() {
        middleware.push_str("  client.use({\n    async onRequest({ request }) {\n");
        middleware.push_str(&headers);
        if !cookies.is_empty() {
            middleware.push_str("      const cookies: string[] = [];\n");
            middleware.push_str(&cookies);
            middleware.push_str(
                "      if (cookies.length > 0) request.headers.set(\"Cookie\", cookies.join(\"; \"));\n",
            );
        }
        if query.is_empty() {
            middleware.push_str("      return request;\n");
        } else {
            middleware.push_str("      const url = new URL(request.url);\n");
            middleware.push_str(&query);
            // A Request cannot be copied with a streamed body (Node asks for
            // `duplex`): the body is read once and sent as bytes.
            middleware.push_str(
                "      const body = request.body === null ? null : await request.arrayBuffer();\n      \
                 return new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal });\n",
            );
        }
        middleware.push_str("    },\n  });\n");
    }
    let uses_credentials = if api.auth.is_empty() {
        "_credentials"
    } else {
        "credentials"
    };
    format!(
        r#"// The server and credentials an ar session saw (written by `ar gen-client`).
import createClient, {{ type Client, type ClientOptions }} from "openapi-fetch";
import type {{ paths }} from "./schema.js";

export type {{ paths, components, operations }} from "./schema.js";

/** The server the session mapped: the client's default base URL. */
export const DEFAULT_BASE_URL = {base_url:?};

/** The credentials the session saw; each one given is sent on every request. */
export interface Credentials {{
{fields}}}

/** A client of `options.baseUrl` (the session's server by default) that sends `credentials`. */
export function connect({uses_credentials}: Credentials = {{}}, options: ClientOptions = {{}}): Client<paths> {{
  const client = createClient<paths>({{ baseUrl: DEFAULT_BASE_URL, ...options }});
{middleware}  return client;
}}
"#,
        base_url = api.base_url,
    )
}

/// The README's calls: openapi-fetch takes the path template itself.
fn calls(api: &Api) -> String {
    let credentials: Vec<String> = (api.auth.iter())
        .map(|a| format!("{}: process.env.{}", camel(&a.param), a.env))
        .collect();
    let mut out = format!(
        "import {{ connect }} from \"./client.js\";\n\nconst client = connect({{ {} }});\n",
        credentials.join(", ")
    );
    for example in &api.examples {
        let mut init = Vec::new();
        let mut params = Vec::new();
        if !example.path_params.is_empty() {
            params.push(format!("path: {}", object(&example.path_params)));
        }
        if !example.query.is_empty() {
            params.push(format!("query: {}", object(&example.query)));
        }
        if !params.is_empty() {
            init.push(format!("params: {{ {} }}", params.join(", ")));
        }
        if let Some(body) = &example.body {
            init.push(format!("body: {body}"));
        }
        let init = if init.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", init.join(", "))
        };
        let _ = write!(
            out,
            "\n// {method} {path}\n{{\n  const {{ data, error }} = await client.{method}({path:?}{init});\n  console.log(data ?? error);\n}}\n",
            method = example.method,
            path = example.path,
        );
    }
    out
}

fn object(pairs: &[(String, serde_json::Value)]) -> String {
    let fields: Vec<String> = pairs
        .iter()
        .map(|(name, value)| format!("{}: {value}", serde_json::Value::String(name.clone())))
        .collect();
    format!("{{ {} }}", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_is_no_warning() {
        let printed = "✨ openapi-typescript 7.13.0\n🚀 a.yaml → b.d.ts [86.3ms]\nnpm warn exec The following package was not found\n";
        assert!(warnings_in(printed).is_empty());
        assert_eq!(warnings_in("⚠ bad thing\n"), ["⚠ bad thing"]);
    }

    #[test]
    fn parameters_are_camel_case() {
        assert_eq!(camel("x_api_key"), "xApiKey");
        assert_eq!(camel("bearer_token"), "bearerToken");
    }
}
