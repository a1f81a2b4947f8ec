//! The README ar writes next to a generated client: what it calls, the
//! credentials it takes (where each goes, never its value), and a first call
//! of three of the API's operations in the client's language.

use std::fmt::Write as _;

use super::api::{Api, Auth, AuthPlace};

/// What a language contributes to its README.
pub(crate) struct Parts<'a> {
    /// `Python`, `TypeScript`, `Rust`.
    pub(crate) language: &'a str,
    /// The generator and its version.
    pub(crate) tool: &'a str,
    /// How to install or build the client (a fenced block's language and text).
    pub(crate) install: (&'a str, String),
    /// The credential's parameter in this language (`x_api_key`, `xApiKey`).
    pub(crate) param: &'a dyn Fn(&Auth) -> String,
    /// The first calls (a fenced block's language and text).
    pub(crate) calls: (&'a str, String),
}

/// The README of `api`'s client.
pub(crate) fn render(api: &Api, parts: &Parts<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} client ({})\n", api.host, parts.language);
    let _ = writeln!(
        out,
        "A typed client for `{}`, made by {} from the API an ar session mapped \
         (`openapi.yaml` here is the spec it was made from). `ar gen-client` wrote this \
         README and `connect`, which calls that server by default and sends the credentials \
         the session saw; regenerating overwrites this directory.\n",
        api.base_url, parts.tool
    );
    let _ = writeln!(
        out,
        "## Install\n\n```{}\n{}\n```\n",
        parts.install.0,
        parts.install.1.trim_end()
    );
    if api.auth.is_empty() {
        out.push_str("## Credentials\n\nThe session saw no credentials on these operations.\n\n");
    } else {
        out.push_str(
            "## Credentials\n\nThe session saw these credentials; `connect` takes each as a \
             parameter. Their values are not written anywhere here: the example reads them \
             from the environment.\n\n| parameter | sent as | environment variable in the example |\n|---|---|---|\n",
        );
        for auth in &api.auth {
            let _ = writeln!(
                out,
                "| `{}` | {} | `{}` |",
                (parts.param)(auth),
                sent_as(&auth.place),
                auth.env
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## First calls\n");
    for example in &api.examples {
        let _ = writeln!(
            out,
            "- `{} {}` ({})",
            example.method, example.path, example.operation_id
        );
    }
    let _ = writeln!(
        out,
        "\n```{}\n{}\n```",
        parts.calls.0,
        parts.calls.1.trim_end()
    );
    out
}

/// Where a credential goes, in words.
fn sent_as(place: &AuthPlace) -> String {
    match place {
        AuthPlace::Header(name) => format!("header `{name}`"),
        AuthPlace::Query(name) => format!("query parameter `{name}`"),
        AuthPlace::Cookie(name) => format!("cookie `{name}`"),
        AuthPlace::Bearer => "`Authorization: Bearer <token>`".to_owned(),
        AuthPlace::Basic => "`Authorization: Basic <credentials>`".to_owned(),
    }
}
