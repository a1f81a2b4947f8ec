//! Server URLs read for their base path: `https://{region}.x.test/api/v2/` is `/api/v2`.

use serde_json::Value;

/// The base path of each server in `servers` (`https://x/api/v2/` → `/api/v2`), variables
/// replaced by their defaults. Empty when there is no server list.
pub(crate) fn base_paths(servers: Option<&Value>) -> Vec<String> {
    let mut bases: Vec<String> = Vec::new();
    for server in servers.and_then(Value::as_array).into_iter().flatten() {
        let Some(url) = server.get("url").and_then(Value::as_str) else {
            continue;
        };
        let url = substitute_variables(url, server.get("variables"));
        let base = base_path(&url);
        if !bases.contains(&base) {
            bases.push(base);
        }
    }
    bases
}

/// The path of a server URL, without a trailing `/`: empty for the root.
fn base_path(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let path = if let Some(after_scheme) = url.split_once("://").map(|(_, rest)| rest) {
        after_scheme.find('/').map_or("", |i| &after_scheme[i..])
    } else if let Some(after) = url.strip_prefix("//") {
        after.find('/').map_or("", |i| &after[i..])
    } else {
        url.trim_start_matches('.')
    };
    let path = path.trim_end_matches('/');
    if path.is_empty() || path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}

fn substitute_variables(url: &str, variables: Option<&Value>) -> String {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..close];
        let default = variables
            .and_then(|v| v.get(name))
            .and_then(|v| v.get("default"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        out.push_str(default);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn base_paths_from_servers() {
        assert_eq!(base_path("https://x.test/api/v2/"), "/api/v2");
        assert_eq!(base_path("https://x.test"), "");
        assert_eq!(base_path("//x.test/a?b=1"), "/a");
        assert_eq!(base_path("/api"), "/api");
        assert_eq!(base_path("api"), "/api");
        assert_eq!(base_path("./"), "");
        let servers = json!([
            {"url": "https://{region}.x.test/{base}", "variables": {
                "region": {"default": "eu"}, "base": {"default": "v1"}}},
            {"url": "https://sandbox.x.test/v1"},
            {"url": "https://other.test/"}
        ]);
        assert_eq!(base_paths(Some(&servers)), ["/v1", ""]);
    }
}
