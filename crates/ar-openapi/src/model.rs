//! The documentation model: one list of operations with resolved names,
//! servers, parameters, bodies and security, from which both the OpenAPI
//! document and the markdown are rendered (so they never disagree).

use std::collections::{BTreeMap, BTreeSet};

use ar_flow::graphql::OperationKind;
use ar_schema::RenderOptions;
use ar_store::store::EndpointStore;
use serde_json::{Value, json};

use crate::body::{BodyKind, BodyStats};
use crate::documenter::Documenter;
use crate::echo::drop_echoed_enums;
use crate::endpoint::{EndpointDoc, Exchange};
use crate::identity::EndpointInfo;
use crate::naming;
use crate::options::{Enrichment, Options};
use crate::params::ParamStats;
use crate::security::{KeyLocation, SecurityKind};

/// One documented parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    pub(crate) location: &'static str,
    pub(crate) name: String,
    pub(crate) required: bool,
    pub(crate) schema: Value,
    pub(crate) example: Option<Value>,
    pub(crate) seen: u64,
    /// What the schema cannot say (a value spanning several path segments).
    pub(crate) description: Option<String>,
}

/// One body (request or response) for one media type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Content {
    pub(crate) media: String,
    pub(crate) schema: Value,
    pub(crate) example: Option<Value>,
}

/// One response status.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResponseModel {
    pub(crate) status: u16,
    pub(crate) description: String,
    pub(crate) count: u64,
    pub(crate) content: Vec<Content>,
    /// Headers the server sent with this status (location `header`).
    pub(crate) headers: Vec<Param>,
    /// `(link name, target operationId, parameter name, runtime expression, json path)`.
    pub(crate) links: Vec<LinkModel>,
}

/// A link from this response to another operation's parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkModel {
    pub(crate) name: String,
    pub(crate) target_operation: String,
    pub(crate) param: String,
    pub(crate) expression: String,
    pub(crate) json_path: String,
}

/// One GraphQL operation carried by an endpoint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GraphqlModel {
    pub(crate) name: String,
    pub(crate) kind: OperationKind,
    pub(crate) count: u64,
    pub(crate) variables: Option<Value>,
    pub(crate) response: Option<Value>,
    pub(crate) query: Option<String>,
}

/// One operation (method + path) of the spec.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OperationModel {
    pub(crate) key: String,
    pub(crate) method: String,
    pub(crate) host: String,
    /// The server URL this operation is relative to.
    pub(crate) server: String,
    /// The path relative to `server` (`/users/{userId}`).
    pub(crate) path: String,
    pub(crate) operation_id: String,
    pub(crate) tag: String,
    pub(crate) summary: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) flows: u64,
    pub(crate) params: Vec<Param>,
    pub(crate) request: Vec<Content>,
    pub(crate) request_required: bool,
    pub(crate) responses: Vec<ResponseModel>,
    /// Alternatives (OR) of scheme-name sets (AND); an empty set means "no auth also worked".
    pub(crate) security: Vec<Vec<String>>,
    pub(crate) graphql: Vec<GraphqlModel>,
    pub(crate) example: Option<Exchange>,
    /// `(param, source operationId, json path)` for "where this value comes from".
    pub(crate) sources: Vec<(String, String, String)>,
}

/// A security scheme used somewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemeModel {
    pub(crate) name: String,
    pub(crate) kind: SecurityKind,
    pub(crate) jwt: bool,
    pub(crate) operations: usize,
}

/// The whole documentation model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Model {
    pub(crate) servers: Vec<String>,
    pub(crate) operations: Vec<OperationModel>,
    pub(crate) schemes: Vec<SchemeModel>,
    /// Component schemas by name (filled by `components::extract`).
    pub(crate) components: BTreeMap<String, Value>,
}

/// Endpoints grouped by `(method, host, template)`: the first one's identity,
/// the merged evidence, and the ids of every member.
type Groups = BTreeMap<(String, String, String), (EndpointInfo, EndpointDoc, Vec<u64>)>;
/// Per host: origins with counts, templates, endpoint count.
type Hosts<'a> = BTreeMap<&'a str, (BTreeMap<&'a str, u64>, Vec<&'a str>, usize)>;

/// Builds the model from the store's endpoints and what the documenter saw of them.
pub(crate) fn build(
    store: &EndpointStore,
    documenter: &Documenter,
    enrichment: &Enrichment,
    options: &Options,
) -> Model {
    let render = RenderOptions::default().sample_counts(options.sample_counts);
    // Endpoints sharing method, host and template are one operation: the store keys
    // GraphQL traffic by operation name, but OpenAPI has one `POST /graphql`.
    let mut grouped: Groups = BTreeMap::new();
    let documented = (documenter.endpoints.iter())
        .filter_map(|(id, doc)| Some((EndpointInfo::of(store.endpoint(*id)?), doc)));
    for (info, doc) in documented {
        let group = (
            info.method.to_ascii_uppercase(),
            info.host.clone(),
            info.template.clone(),
        );
        match grouped.get_mut(&group) {
            Some((first, merged, members)) => {
                merged.merge(doc);
                members.push(info.id);
                if !doc.graphql.is_empty() {
                    first.key = format!("{} {}{}", group.0, group.1, group.2);
                }
                first.sources.extend(info.sources);
            }
            None => {
                let members = vec![info.id];
                grouped.insert(group, (info, doc.clone(), members));
            }
        }
    }
    let members_of: BTreeMap<u64, Vec<u64>> = grouped
        .values()
        .map(|(info, _, members)| (info.id, members.clone()))
        .collect();
    let owned: Vec<(EndpointInfo, EndpointDoc)> = grouped
        .into_values()
        .map(|(info, doc, _)| (info, doc))
        .collect();
    let endpoints: Vec<&(EndpointInfo, EndpointDoc)> = owned.iter().collect();

    // Servers: one origin per host (the most used scheme), plus a base path shared by all its paths.
    let mut hosts: Hosts<'_> = BTreeMap::new();
    for (info, doc) in &endpoints {
        let entry = hosts.entry(info.host.as_str()).or_default();
        for (origin, count) in &doc.origins {
            *entry.0.entry(origin.as_str()).or_default() += count;
        }
        entry.1.push(info.template.as_str());
        entry.2 += 1;
    }
    let mut server_of: BTreeMap<&str, (String, String)> = BTreeMap::new(); // host → (server url, base path)
    for (host, (origins, templates, _)) in &hosts {
        let origin = origins
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map_or_else(
                || format!("https://{host}"),
                |(origin, _)| (*origin).to_string(),
            );
        let base = common_base(templates);
        server_of.insert(host, (format!("{origin}{base}"), base));
    }
    let primary = hosts
        .iter()
        .max_by(|a, b| a.1.2.cmp(&b.1.2).then(b.0.cmp(a.0)))
        .map(|(host, _)| *host);
    if let (Some(base_url), Some(primary)) = (&options.base_url, primary) {
        let base_url = base_url.trim_end_matches('/');
        let base_path = ar_flow::url::split_url(base_url).1.to_string();
        server_of.insert(primary, (base_url.to_string(), base_path));
    }
    let mut servers: Vec<String> = Vec::new();
    if let Some(primary) = primary {
        servers.push(server_of[primary].0.clone());
    }
    for (host, (url, _)) in &server_of {
        if Some(*host) != primary && !servers.contains(url) {
            servers.push(url.clone());
        }
    }

    // Operation ids: enrichment first, then derived, made unique in a stable order.
    let mut order: Vec<&(EndpointInfo, EndpointDoc)> = endpoints.clone();
    order.sort_by(|a, b| {
        (&a.0.template, &a.0.method, &a.0.host).cmp(&(&b.0.template, &b.0.method, &b.0.host))
    });
    let mut used_ids: BTreeSet<String> = BTreeSet::new();
    let mut id_of: BTreeMap<u64, String> = BTreeMap::new();
    for (info, doc) in &order {
        let annotation = enrichment.get(&info.key);
        let base = annotation
            .and_then(|a| a.operation_id.clone())
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| {
                if doc.graphql.is_empty() {
                    naming::operation_id(&info.method, &info.template)
                } else {
                    format!("graphql{}", if info.method == "GET" { "Get" } else { "" })
                }
            });
        let mut id = base.clone();
        let mut n = 2;
        while used_ids.contains(&id) {
            id = format!("{base}{n}");
            n += 1;
        }
        used_ids.insert(id.clone());
        for member in members_of.get(&info.id).into_iter().flatten() {
            id_of.insert(*member, id.clone());
        }
        id_of.insert(info.id, id);
    }

    let mut scheme_usage: BTreeMap<SecurityKind, (usize, bool)> = BTreeMap::new();
    let mut operations = Vec::new();
    for (info, doc) in &order {
        let annotation = enrichment.get(&info.key);
        let (server, base) = server_of
            .get(info.host.as_str())
            .cloned()
            .unwrap_or_default();
        let path = info
            .template
            .strip_prefix(base.as_str())
            .filter(|p| p.is_empty() || p.starts_with('/'))
            .unwrap_or(&info.template);
        let path = if path.is_empty() {
            "/".to_string()
        } else {
            path.to_string()
        };
        let tag = annotation.and_then(|a| a.tag.clone()).unwrap_or_else(|| {
            if doc.graphql.is_empty() {
                naming::tag(&path)
            } else {
                "graphql".into()
            }
        });

        let query_keys: BTreeSet<String> = doc
            .security
            .keys()
            .flatten()
            .filter_map(|kind| match kind {
                SecurityKind::ApiKey {
                    location: KeyLocation::Query,
                    name,
                } => Some(name.clone()),
                _ => None,
            })
            .collect();
        let mut params = Vec::new();
        for name in naming::path_params(&path) {
            let stats = doc.path.get(name);
            let example = stats.and_then(ParamStats::example_value);
            if info.rest_param.as_deref() == Some(name) {
                params.push(rest_param(name, example, stats.map_or(0, |s| s.present)));
                continue;
            }
            params.push(Param {
                location: "path",
                name: name.to_string(),
                required: true,
                schema: stats.map_or_else(|| json!({"type": "string"}), ParamStats::schema),
                example,
                seen: stats.map_or(0, |s| s.present),
                description: None,
            });
        }
        for (location, set) in [("query", &doc.query), ("header", &doc.headers)] {
            for stats in set.params.values() {
                if location == "query" && query_keys.contains(&stats.name) {
                    continue;
                }
                params.push(Param {
                    location,
                    name: stats.name.clone(),
                    required: stats.present >= doc.flows,
                    schema: if location == "header" {
                        stats.header_schema()
                    } else {
                        stats.schema()
                    },
                    example: stats.example_value(),
                    seen: stats.present,
                    description: None,
                });
            }
        }

        let request = doc
            .request
            .iter()
            .map(|(media, stats)| content(media, stats, &render))
            .collect();
        let sent: Vec<&[Box<str>]> = doc
            .path
            .values()
            .chain(doc.query.params.values())
            .filter_map(ParamStats::sent)
            .collect();
        let mut responses: Vec<ResponseModel> = doc
            .responses
            .iter()
            .map(|(status, response)| ResponseModel {
                status: *status,
                description: if response.reason.trim().is_empty() {
                    reason_phrase(*status).to_string()
                } else {
                    response.reason.trim().to_string()
                },
                count: response.count,
                content: response
                    .content
                    .iter()
                    .map(|(media, stats)| {
                        let mut content = content(media, stats, &render);
                        drop_echoed_enums(&mut content.schema, &sent);
                        content
                    })
                    .collect(),
                headers: response
                    .headers
                    .params
                    .values()
                    .map(|stats| Param {
                        location: "header",
                        name: stats.name.clone(),
                        required: stats.present >= response.count,
                        schema: stats.schema(),
                        example: stats.example_value(),
                        seen: stats.present,
                        description: None,
                    })
                    .collect(),
                links: Vec::new(),
            })
            .collect();

        // Security requirements, and usage counts for the scheme list.
        let mut security: Vec<Vec<String>> = Vec::new();
        let any_auth = doc.security.keys().any(|set| !set.is_empty());
        if any_auth {
            for set in doc.security.keys() {
                let names: Vec<String> = set.iter().map(SecurityKind::scheme_name).collect();
                if !security.contains(&names) {
                    security.push(names);
                }
                for kind in set {
                    let usage = scheme_usage.entry(kind.clone()).or_default();
                    usage.1 |= *kind == SecurityKind::Bearer && doc.bearer_jwt;
                }
            }
            for kind in doc.security.keys().flatten().collect::<BTreeSet<_>>() {
                scheme_usage.entry(kind.clone()).or_default().0 += 1;
            }
            security.sort();
        }

        let graphql = doc
            .graphql
            .iter()
            .map(|(name, op)| GraphqlModel {
                name: name.clone(),
                kind: op.kind,
                count: op.count,
                variables: (op.variables.samples() > 0)
                    .then(|| op.variables.schema().to_openapi_with(&render)),
                response: (op.response.samples() > 0)
                    .then(|| op.response.schema().to_openapi_with(&render)),
                query: op.query.clone(),
            })
            .collect();

        let sources = info
            .sources
            .iter()
            .filter_map(|source| {
                id_of
                    .get(&source.from_endpoint)
                    .map(|id| (source.param.clone(), id.clone(), source.json_path.clone()))
            })
            .collect();
        operations.push(OperationModel {
            key: info.key.clone(),
            method: info.method.to_ascii_uppercase(),
            host: info.host.clone(),
            server,
            path,
            operation_id: id_of[&info.id].clone(),
            tag,
            summary: annotation.and_then(|a| a.summary.clone()),
            description: annotation.and_then(|a| a.description.clone()),
            flows: doc.flows + doc.unsampled,
            params,
            request,
            request_required: doc.with_body > 0 && doc.with_body >= doc.flows,
            responses: std::mem::take(&mut responses),
            security,
            graphql,
            example: doc.example.clone(),
            sources,
        });
    }

    // Links: a response whose body provided a later operation's path parameter.
    let targets: Vec<(u64, String, Vec<crate::identity::ValueSource>)> = order
        .iter()
        .map(|(info, _)| (info.id, id_of[&info.id].clone(), info.sources.clone()))
        .collect();
    for (target_id, target_op, sources) in &targets {
        for source in sources {
            let Some(source_op) = id_of.get(&source.from_endpoint) else {
                continue;
            };
            if !source.from_response || source_op == target_op || source.from_endpoint == *target_id
            {
                continue;
            }
            let Some(operation) = operations
                .iter_mut()
                .find(|op| &op.operation_id == source_op)
            else {
                continue;
            };
            let Some(response) = operation
                .responses
                .iter_mut()
                .find(|r| (200..300).contains(&r.status))
            else {
                continue;
            };
            let Some(expression) = runtime_expression(&source.json_path) else {
                continue;
            };
            let name = format!("{}{}", target_op, capitalise(&source.param));
            if response.links.iter().all(|l| l.name != name) {
                response.links.push(LinkModel {
                    name,
                    target_operation: target_op.clone(),
                    param: source.param.clone(),
                    expression,
                    json_path: source.json_path.clone(),
                });
            }
        }
    }
    for operation in &mut operations {
        for response in &mut operation.responses {
            response.links.sort_by(|a, b| a.name.cmp(&b.name));
        }
    }

    let schemes = scheme_usage
        .into_iter()
        .map(|(kind, (operations, jwt))| SchemeModel {
            name: kind.scheme_name(),
            kind,
            jwt,
            operations,
        })
        .collect();
    operations.sort_by(|a, b| {
        (&a.path, method_rank(&a.method), &a.host).cmp(&(&b.path, method_rank(&b.method), &b.host))
    });
    Model {
        servers,
        operations,
        schemes,
        components: BTreeMap::new(),
    }
}

fn content(media: &str, stats: &BodyStats, render: &RenderOptions) -> Content {
    let schema = match stats.kind {
        BodyKind::Json | BodyKind::Form if stats.schema.samples() > 0 => {
            stats.schema.schema().to_openapi_with(render)
        }
        BodyKind::Json | BodyKind::Form => json!({}),
        BodyKind::Multipart => {
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            for (name, part) in &stats.parts {
                let schema = if part.file {
                    json!({"type": "string", "format": "binary"})
                } else {
                    json!({"type": "string"})
                };
                properties.insert(name.clone(), schema);
                if part.count >= stats.count {
                    required.push(Value::from(name.clone()));
                }
            }
            let mut schema = json!({"type": "object", "properties": properties});
            if !required.is_empty() {
                schema["required"] = Value::Array(required);
            }
            schema
        }
        BodyKind::Text => json!({"type": "string"}),
        BodyKind::Binary => json!({"type": "string", "format": "binary"}),
    };
    let example = match stats.kind {
        BodyKind::Binary => None,
        _ => stats.example.clone(),
    };
    Content {
        media: media.to_string(),
        schema,
        example,
    }
}

/// `$.orders[].id` → `$response.body#/orders/0/id` (the first element stands for "any").
fn runtime_expression(json_path: &str) -> Option<String> {
    let rest = json_path.strip_prefix('$')?;
    let mut pointer = String::new();
    for part in rest.split('.').filter(|p| !p.is_empty()) {
        let (name, arrays) = match part.find("[]") {
            Some(i) => (&part[..i], part[i..].matches("[]").count()),
            None => (part, 0),
        };
        if !name.is_empty() {
            pointer.push('/');
            pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
        }
        for _ in 0..arrays {
            pointer.push_str("/0");
        }
    }
    Some(format!("$response.body#{pointer}"))
}

/// The longest run of leading routing prefixes (`/api/v1`) shared by every
/// template, but never the whole of any template. Resource words (`/users`)
/// stay in the paths, where they name operations and tags.
fn common_base(templates: &[&str]) -> String {
    let split: Vec<Vec<&str>> = templates
        .iter()
        // Every segment as sent, empty ones too (`//api/x`): the base is a
        // prefix of each path as written, or the paths lose it.
        .map(|t| t.strip_prefix('/').unwrap_or(t).split('/').collect())
        .collect();
    let Some(first) = split.first() else {
        return String::new();
    };
    let mut base = Vec::new();
    for (index, segment) in first.iter().enumerate() {
        if segment.is_empty()
            || !naming::is_prefix(segment)
            || !split
                .iter()
                .all(|s| s.len() > index + 1 && s[index] == *segment)
        {
            break;
        }
        base.push(*segment);
    }
    base.iter().map(|s| format!("/{s}")).collect()
}

fn method_rank(method: &str) -> u8 {
    match method {
        "GET" => 0,
        "PUT" => 1,
        "POST" => 2,
        "DELETE" => 3,
        "OPTIONS" => 4,
        "HEAD" => 5,
        "PATCH" => 6,
        "TRACE" => 7,
        _ => 8,
    }
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

/// The standard reason phrase of a status code.
pub(crate) fn reason_phrase(status: u16) -> &'static str {
    const KNOWN: &[(u16, &str)] = &[
        (200, "OK"),
        (201, "Created"),
        (202, "Accepted"),
        (204, "No Content"),
        (206, "Partial Content"),
        (301, "Moved Permanently"),
        (302, "Found"),
        (303, "See Other"),
        (304, "Not Modified"),
        (307, "Temporary Redirect"),
        (308, "Permanent Redirect"),
        (400, "Bad Request"),
        (401, "Unauthorized"),
        (403, "Forbidden"),
        (404, "Not Found"),
        (405, "Method Not Allowed"),
        (409, "Conflict"),
        (410, "Gone"),
        (413, "Payload Too Large"),
        (415, "Unsupported Media Type"),
        (422, "Unprocessable Entity"),
        (429, "Too Many Requests"),
        (500, "Internal Server Error"),
        (502, "Bad Gateway"),
        (503, "Service Unavailable"),
        (504, "Gateway Timeout"),
    ];
    if let Some((_, phrase)) = KNOWN.iter().find(|(code, _)| *code == status) {
        return phrase;
    }
    match status / 100 {
        1 => "Informational",
        2 => "Success",
        3 => "Redirect",
        4 => "Client error",
        _ => "Server error",
    }
}

/// A path parameter that takes the rest of the path (a user template's
/// `{path*}`): OpenAPI has no multi-segment syntax, so the description says
/// that its values span several segments, slashes included, and its schema
/// is a plain string.
fn rest_param(name: &str, example: Option<Value>, seen: u64) -> Param {
    let example = example.map(|e| match e {
        Value::String(_) => e,
        other => Value::String(other.to_string()),
    });
    let spanning = example
        .as_ref()
        .and_then(Value::as_str)
        .filter(|e| e.contains('/'))
        .unwrap_or("a/b/c.txt");
    Param {
        location: "path",
        name: name.to_string(),
        required: true,
        schema: json!({"type": "string"}),
        description: Some(format!(
            "The rest of the path: spans one or more segments, slashes included (e.g. `{spanning}`)."
        )),
        example,
        seen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_paths_are_shared_literal_prefixes_only() {
        assert_eq!(
            common_base(&["/api/v1/users", "/api/v1/orders/{id}"]),
            "/api/v1"
        );
        assert_eq!(common_base(&["/api/v1/users", "/api/v2/users"]), "/api");
        assert_eq!(common_base(&["/users", "/users/{id}"]), "");
        assert_eq!(common_base(&["/users/{id}"]), "");
        assert_eq!(common_base(&["/{tenant}/x", "/{tenant}/y"]), "");
        // A path sent with an empty segment keeps it: the base must be a
        // prefix of each path as written.
        assert_eq!(common_base(&["//api/v1/users", "//api/v1/orders"]), "");
        assert_eq!(common_base(&["/api//v1/users", "/api//v1/orders"]), "/api");
    }

    #[test]
    fn json_paths_become_runtime_expressions() {
        assert_eq!(
            runtime_expression("$.orders[].id").as_deref(),
            Some("$response.body#/orders/0/id")
        );
        assert_eq!(
            runtime_expression("$.id").as_deref(),
            Some("$response.body#/id")
        );
        assert_eq!(
            runtime_expression("$[].a/b").as_deref(),
            Some("$response.body#/0/a~1b")
        );
        assert_eq!(runtime_expression("orders"), None);
    }
}
