//! What a generated client needs from a spec, read once: which server it
//! talks to, the credentials it takes, and three calls to show first.
//!
//! The generators ar drives (openapi-python-client, openapi-typescript with
//! openapi-fetch, progenitor) give a client one base URL and ignore
//! operation-level `servers`, which is where ar puts the operations of every
//! host but the main one. A spec of several hosts is therefore split into one
//! spec per server ([`per_server`]), so no call goes to the wrong host.

use std::collections::BTreeSet;

use anyhow::bail;
use openapiv3::{
    APIKeyLocation, OpenAPI, Operation, Parameter, ParameterSchemaOrContent, ReferenceOr,
    SecurityScheme, Server,
};
use serde_json::Value;

/// One server's part of a spec, and what the client and its README say about it.
#[derive(Debug, Clone)]
pub(crate) struct Api {
    /// The spec with only this server's operations and security schemes.
    pub(crate) spec: OpenAPI,
    /// The server URL (with its base path): the client's default base URL.
    pub(crate) base_url: String,
    /// The host the server is on, e.g. `api.shop.test`.
    pub(crate) host: String,
    /// The credentials the operations take, one parameter of the client each.
    pub(crate) auth: Vec<Auth>,
    /// Up to three operations to show first in the README.
    pub(crate) examples: Vec<Example>,
}

/// Where a credential goes on each request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AuthPlace {
    /// A header of this name (`X-Api-Key`).
    Header(String),
    /// A query parameter of this name (`api_key`).
    Query(String),
    /// A cookie of this name (`sessionid`).
    Cookie(String),
    /// `Authorization: Bearer <token>`.
    Bearer,
    /// `Authorization: Basic <base64 of user:password>`, given already encoded.
    Basic,
}

/// A security scheme the session saw, as a parameter of the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Auth {
    /// Where the value goes.
    pub(crate) place: AuthPlace,
    /// The parameter's name in snake case (`x_api_key`, `bearer_token`); each
    /// language derives its own spelling from it.
    pub(crate) param: String,
    /// The environment variable the README reads the secret from
    /// (`SHOP_TEST_X_API_KEY`): the secret itself is never written.
    pub(crate) env: String,
}

/// An operation to call in the README.
#[derive(Debug, Clone)]
pub(crate) struct Example {
    /// `GET`, `POST`, ...
    pub(crate) method: String,
    /// The path template, e.g. `/v1/products/{productId}/reviews`.
    pub(crate) path: String,
    /// The operation's id, as the spec spells it.
    pub(crate) operation_id: String,
    /// Path parameters with a value seen in traffic (or a placeholder).
    pub(crate) path_params: Vec<(String, Value)>,
    /// Query parameters with a value, required ones and at most two others.
    pub(crate) query: Vec<(String, Value)>,
    /// A JSON request body (the example captured, secrets already redacted).
    pub(crate) body: Option<Value>,
}

/// Splits `spec` into one [`Api`] per server, optionally only the server
/// whose URL or host is `only`.
pub(crate) fn per_server(spec: &OpenAPI, only: Option<&str>) -> anyhow::Result<Vec<Api>> {
    let servers: Vec<&str> = spec.servers.iter().map(|s| s.url.as_str()).collect();
    if servers.is_empty() {
        bail!(
            "the spec names no server: a client needs a base URL (add `servers: [{{url: https://...}}]`)"
        );
    }
    let chosen: Vec<&str> = match only {
        None => servers.clone(),
        Some(wanted) => {
            let found: Vec<&str> = (servers.iter().copied())
                .filter(|url| *url == wanted || host_of(url) == wanted)
                .collect();
            if found.is_empty() {
                bail!(
                    "--server {wanted}: the spec's servers are {}",
                    servers.join(", ")
                );
            }
            found
        }
    };
    let mut apis = Vec::new();
    for url in chosen {
        let part = part_for(spec, url, servers[0]);
        if part.paths.paths.is_empty() {
            continue;
        }
        apis.push(Api {
            auth: auth_of(&part),
            examples: examples_of(&part),
            base_url: url.to_owned(),
            host: host_of(url).to_owned(),
            spec: part,
        });
    }
    if apis.is_empty() {
        bail!("the spec has no operations: browse the API first, then generate its client");
    }
    Ok(apis)
}

/// The host of a server URL (`https://api.shop.test:8443/v1` → `api.shop.test`).
pub(crate) fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or(rest);
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// The operations of `spec` that go to `url` (their own `servers`, else the
/// main one, `primary`), with the schemes they use.
fn part_for(spec: &OpenAPI, url: &str, primary: &str) -> OpenAPI {
    let mut part = spec.clone();
    part.servers = vec![Server {
        url: url.to_owned(),
        ..Server::default()
    }];
    part.paths.paths.retain(|_, item| {
        let ReferenceOr::Item(item) = item else {
            return false;
        };
        for (_, operation) in method_slots(item) {
            let keep = operation
                .as_ref()
                .is_some_and(|op| op.servers.first().map_or(primary, |s| s.url.as_str()) == url);
            if keep {
                if let Some(op) = operation.as_mut() {
                    op.servers.clear();
                }
            } else {
                *operation = None;
            }
        }
        item.iter().next().is_some()
    });
    let used: BTreeSet<String> = (part.operations())
        .flat_map(|(_, _, op)| op.security.iter().flatten().flat_map(|r| r.keys().cloned()))
        .collect();
    if let Some(components) = part.components.as_mut() {
        components
            .security_schemes
            .retain(|name, _| used.contains(name));
    }
    let tags: BTreeSet<String> = (part.operations())
        .flat_map(|(_, _, op)| op.tags.iter().cloned())
        .collect();
    part.tags.retain(|tag| tags.contains(&tag.name));
    part
}

/// A path item's eight method slots, by method name (the one owner of that list).
pub(super) fn method_slots(
    item: &mut openapiv3::PathItem,
) -> [(&'static str, &mut Option<Operation>); 8] {
    [
        ("get", &mut item.get),
        ("put", &mut item.put),
        ("post", &mut item.post),
        ("delete", &mut item.delete),
        ("options", &mut item.options),
        ("head", &mut item.head),
        ("patch", &mut item.patch),
        ("trace", &mut item.trace),
    ]
}

/// The client's credentials: every security scheme the operations use.
fn auth_of(spec: &OpenAPI) -> Vec<Auth> {
    let Some(components) = &spec.components else {
        return Vec::new();
    };
    let prefix = env_prefix(spec);
    let mut auth = Vec::new();
    for scheme in components.security_schemes.values() {
        let ReferenceOr::Item(scheme) = scheme else {
            continue;
        };
        let place = match scheme {
            SecurityScheme::APIKey { location, name, .. } => match location {
                APIKeyLocation::Header => AuthPlace::Header(name.clone()),
                APIKeyLocation::Query => AuthPlace::Query(name.clone()),
                APIKeyLocation::Cookie => AuthPlace::Cookie(name.clone()),
            },
            SecurityScheme::HTTP { scheme, .. } if scheme.eq_ignore_ascii_case("bearer") => {
                AuthPlace::Bearer
            }
            SecurityScheme::HTTP { scheme, .. } if scheme.eq_ignore_ascii_case("basic") => {
                AuthPlace::Basic
            }
            // Digest needs a challenge round trip no generated client does;
            // OAuth2 and OpenID flows are never detected from traffic.
            _ => continue,
        };
        let param = match &place {
            AuthPlace::Header(name) | AuthPlace::Query(name) | AuthPlace::Cookie(name) => {
                snake(name)
            }
            AuthPlace::Bearer => "bearer_token".to_owned(),
            AuthPlace::Basic => "basic_credentials".to_owned(),
        };
        if auth.iter().any(|a: &Auth| a.param == param) {
            continue;
        }
        let env = format!("{prefix}_{}", param.to_ascii_uppercase());
        auth.push(Auth { place, param, env });
    }
    auth
}

/// `SHOP_TEST` for `https://shop.test:443`: environment variables name the API.
fn env_prefix(spec: &OpenAPI) -> String {
    let host = spec.servers.first().map_or("api", |s| host_of(&s.url));
    snake(host.trim_start_matches("www.")).to_ascii_uppercase()
}

/// `X-Api-Key` → `x_api_key`, `productId` → `product_id`, `api.shop.test` →
/// `api_shop_test`: lowercase words joined by `_`, never starting with a digit.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower && !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_lowercase());
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    match out.chars().next() {
        Some(c) if c.is_ascii_digit() => format!("n{out}"),
        None => "api".to_owned(),
        _ => out,
    }
}

/// Up to three operations: one with a path parameter, one with a query, one
/// sending a JSON body; the rest in path order when one of those is missing.
fn examples_of(spec: &OpenAPI) -> Vec<Example> {
    let all: Vec<Example> = (spec.operations())
        .filter_map(|(path, method, op)| example_of(path, method, op))
        .collect();
    let picks: [&dyn Fn(&Example) -> bool; 3] = [
        &|e| e.method == "GET" && !e.path_params.is_empty(),
        &|e| e.method == "GET" && !e.query.is_empty(),
        &|e| e.body.is_some() && e.method != "DELETE",
    ];
    let mut chosen: Vec<usize> = Vec::new();
    for pick in picks {
        if let Some(i) = (0..all.len()).find(|i| !chosen.contains(i) && pick(&all[*i])) {
            chosen.push(i);
        }
    }
    for (i, example) in all.iter().enumerate() {
        if chosen.len() >= 3 {
            break;
        }
        if !chosen.contains(&i) && example.method == "GET" {
            chosen.push(i);
        }
    }
    chosen.into_iter().map(|i| all[i].clone()).collect()
}

fn example_of(path: &str, method: &str, op: &Operation) -> Option<Example> {
    let operation_id = op.operation_id.clone()?;
    let mut path_params = Vec::new();
    let mut query = Vec::new();
    for parameter in &op.parameters {
        let ReferenceOr::Item(parameter) = parameter else {
            continue;
        };
        match parameter {
            Parameter::Path { parameter_data, .. } => {
                path_params.push((parameter_data.name.clone(), value_of(parameter_data)));
            }
            Parameter::Query { parameter_data, .. }
                if parameter_data.required || query.len() < 2 =>
            {
                query.push((parameter_data.name.clone(), value_of(parameter_data)));
            }
            _ => {}
        }
    }
    let body = op.request_body.as_ref().and_then(|body| match body {
        ReferenceOr::Item(body) => body.content.iter().find_map(|(kind, media)| {
            let json = kind.starts_with("application/json") || kind.ends_with("+json");
            json.then(|| {
                media
                    .example
                    .clone()
                    .unwrap_or(Value::Object(Default::default()))
            })
        }),
        ReferenceOr::Reference { .. } => None,
    });
    Some(Example {
        method: method.to_ascii_uppercase(),
        path: path.to_owned(),
        operation_id,
        path_params,
        query,
        body,
    })
}

/// The value seen for a parameter, else one of its type.
fn value_of(data: &openapiv3::ParameterData) -> Value {
    if let Some(example) = &data.example {
        return example.clone();
    }
    let kind = match &data.format {
        ParameterSchemaOrContent::Schema(ReferenceOr::Item(schema)) => &schema.schema_kind,
        _ => return Value::String("value".into()),
    };
    match kind {
        openapiv3::SchemaKind::Type(openapiv3::Type::Integer(_)) => Value::from(1),
        openapiv3::SchemaKind::Type(openapiv3::Type::Number(_)) => Value::from(1.0),
        openapiv3::SchemaKind::Type(openapiv3::Type::Boolean(_)) => Value::Bool(true),
        _ => Value::String("value".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> OpenAPI {
        serde_norway::from_str(yaml).unwrap()
    }

    const TWO_HOSTS: &str = r"
openapi: 3.0.3
info: {title: shop.test API, version: 0.1.0}
servers: [{url: 'https://shop.test:8443'}, {url: 'https://api.shop.test:8443'}]
paths:
  /api/products/{id}:
    get:
      operationId: getProduct
      parameters: [{in: path, name: id, required: true, schema: {type: integer}, example: 101}]
      responses: {'200': {description: OK}}
  /v1/reviews:
    post:
      operationId: createReview
      servers: [{url: 'https://api.shop.test:8443'}]
      requestBody:
        content: {application/json: {schema: {type: object}, example: {rating: 5}}}
      responses: {'201': {description: Created}}
      security: [{xApiKeyHeader: []}]
components:
  securitySchemes:
    xApiKeyHeader: {type: apiKey, in: header, name: X-Api-Key}
";

    #[test]
    fn each_server_gets_its_own_operations_and_schemes() {
        let apis = per_server(&spec(TWO_HOSTS), None).unwrap();
        assert_eq!(apis.len(), 2);
        assert_eq!(apis[0].base_url, "https://shop.test:8443");
        assert!(apis[0].spec.paths.paths.contains_key("/api/products/{id}"));
        assert!(apis[0].auth.is_empty());
        assert_eq!(apis[1].host, "api.shop.test");
        assert_eq!(apis[1].spec.paths.paths.len(), 1);
        let op = apis[1].spec.operations().next().unwrap().2;
        assert!(op.servers.is_empty(), "the server is the client's base URL");
        assert_eq!(
            apis[1].auth,
            [Auth {
                place: AuthPlace::Header("X-Api-Key".into()),
                param: "x_api_key".into(),
                env: "API_SHOP_TEST_X_API_KEY".into(),
            }]
        );
        assert_eq!(
            apis[1].examples[0].body,
            Some(serde_json::json!({"rating": 5}))
        );
    }

    #[test]
    fn a_server_is_chosen_by_host_or_url_and_a_wrong_one_is_named() {
        let by_host = per_server(&spec(TWO_HOSTS), Some("api.shop.test")).unwrap();
        assert_eq!(by_host.len(), 1);
        assert_eq!(by_host[0].base_url, "https://api.shop.test:8443");
        let error = per_server(&spec(TWO_HOSTS), Some("nope.test")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--server nope.test: the spec's servers are https://shop.test:8443, https://api.shop.test:8443"
        );
    }

    #[test]
    fn names_become_snake_case() {
        assert_eq!(snake("X-Api-Key"), "x_api_key");
        assert_eq!(snake("productId"), "product_id");
        assert_eq!(snake("api.shop.test"), "api_shop_test");
        assert_eq!(snake("2fa"), "n2fa");
    }
}
