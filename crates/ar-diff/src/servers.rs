//! Server URLs read for their base path: `https://{region}.x.test/api/v2/` is `/api/v2`.

use std::collections::BTreeSet;

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

/// The host names (lowercase, no port) of every server the document names, at its root, in
/// its path items and in its operations, variables replaced by their defaults; `None` when
/// one of them is relative (it is served from wherever the document is) or there is none.
pub(crate) fn hosts(document: &Value) -> Option<BTreeSet<String>> {
    let mut lists = vec![document.get("servers")];
    for item in document.get("paths").and_then(Value::as_object)?.values() {
        let item = crate::refs::resolve_or_self(document, item);
        lists.push(item.get("servers"));
        if let Some(item) = item.as_object() {
            lists.extend(item.values().map(|op| op.get("servers")));
        }
    }
    let mut hosts = BTreeSet::new();
    for server in lists
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
    {
        let url = server.get("url").and_then(Value::as_str)?;
        let url = substitute_variables(url, server.get("variables"));
        let rest = match url.split_once("://") {
            Some((_, rest)) => rest,
            None => url.strip_prefix("//")?,
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = host_name(authority);
        if host.is_empty() {
            return None;
        }
        hosts.insert(host);
    }
    (!hosts.is_empty()).then_some(hosts)
}

/// The host name of an authority (`user@Host:8443` → `host`), lowercase.
pub(crate) fn host_name(authority: &str) -> String {
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    host.to_ascii_lowercase()
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

    #[test]
    fn hosts_of_every_server_unless_one_is_relative() {
        let doc = json!({
            "servers": [{"url": "https://{region}.x.test:8443/v1", "variables": {
                "region": {"default": "eu"}}}],
            "paths": {"/a": {"servers": [{"url": "//files.x.test"}],
                             "get": {"servers": [{"url": "http://[::1]:8080"}]}}}
        });
        let named: Vec<String> = hosts(&doc).unwrap().into_iter().collect();
        assert_eq!(named, ["::1", "eu.x.test", "files.x.test"]);
        assert_eq!(
            hosts(&json!({"servers": [{"url": "/api"}], "paths": {}})),
            None
        );
        assert_eq!(hosts(&json!({"paths": {}})), None);
        assert_eq!(host_name("me@API.x.test:443"), "api.x.test");
    }
}
