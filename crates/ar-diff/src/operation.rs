//! The parts of one operation that a comparison reads, each under the key it is matched by:
//! parameters (the path item's and the operation's, the operation's winning), the request
//! body and the responses, with media types and references followed.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::change::ParameterLocation;
use crate::document::{Document, Operation};
use crate::template::PathTemplate;

/// Headers OpenAPI says a parameter list must not describe (they are ignored there).
const IGNORED_HEADERS: [&str; 3] = ["accept", "content-type", "authorization"];

/// One operation, read.
pub(crate) struct Parts<'a> {
    pub(crate) deprecated: bool,
    pub(crate) parameters: BTreeMap<ParamKey, Param<'a>>,
    pub(crate) request_body: Option<Body<'a>>,
    /// By status key, upper-cased (`200`, `4XX`, `DEFAULT` sorts last).
    pub(crate) responses: BTreeMap<StatusKey, Response<'a>>,
    /// The operation's own `security`; `None` when it uses the document's.
    pub(crate) security: Option<&'a Value>,
}

/// How parameters are matched: by location, and by name (case aside for headers) or, for
/// path parameters, by position in the template, since their names do not matter.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ParamKey {
    pub(crate) location: ParameterLocation,
    pub(crate) key: String,
}

pub(crate) struct Param<'a> {
    pub(crate) name: &'a str,
    pub(crate) required: bool,
    pub(crate) deprecated: bool,
    pub(crate) schema: Option<&'a Value>,
}

pub(crate) struct Body<'a> {
    pub(crate) required: bool,
    pub(crate) content: Content<'a>,
}

pub(crate) struct Response<'a> {
    pub(crate) status: &'a str,
    pub(crate) content: Content<'a>,
}

/// Media types by their essence (`application/json`, parameters and case aside): the type
/// as written and its schema.
pub(crate) type Content<'a> = BTreeMap<String, (&'a str, Option<&'a Value>)>;

/// A status key that sorts `1XX`…`5XX` and codes numerically-as-text, `default` last.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct StatusKey {
    is_default: bool,
    text: String,
}

impl<'a> Parts<'a> {
    pub(crate) fn of(document: &'a Document, operation: &Operation<'a>) -> Parts<'a> {
        let value = operation.value();
        let path_names = PathTemplate::parse(operation.template());
        let path_names = path_names.param_names();
        let mut parameters = BTreeMap::new();
        let lists = [
            operation.path_item().get("parameters"),
            value.get("parameters"),
        ];
        for list in lists.into_iter().flatten().filter_map(Value::as_array) {
            for raw in list {
                let parameter = document.resolve(raw);
                if let Some((key, param)) = read_parameter(document, parameter, &path_names) {
                    parameters.insert(key, param);
                }
            }
        }
        let request_body = value.get("requestBody").map(|body| {
            let body = document.resolve(body);
            Body {
                required: body.get("required").and_then(Value::as_bool) == Some(true),
                content: content(document, body.get("content")),
            }
        });
        let mut responses = BTreeMap::new();
        if let Some(map) = value.get("responses").and_then(Value::as_object) {
            for (status, response) in map {
                if status.starts_with("x-") {
                    continue;
                }
                let response = document.resolve(response);
                responses.insert(
                    StatusKey {
                        is_default: status.eq_ignore_ascii_case("default"),
                        text: status.to_ascii_uppercase(),
                    },
                    Response {
                        status,
                        content: content(document, response.get("content")),
                    },
                );
            }
        }
        Parts {
            deprecated: operation.deprecated(),
            parameters,
            request_body,
            responses,
            security: value.get("security"),
        }
    }
}

fn read_parameter<'a>(
    document: &'a Document,
    parameter: &'a Value,
    path_names: &[&str],
) -> Option<(ParamKey, Param<'a>)> {
    let name = parameter.get("name")?.as_str()?;
    let location = ParameterLocation::parse(parameter.get("in")?.as_str()?)?;
    let key = match location {
        ParameterLocation::Path => match path_names.iter().position(|&n| n == name) {
            Some(index) => format!("#{index}"),
            None => name.to_owned(),
        },
        ParameterLocation::Header => {
            let lower = name.to_ascii_lowercase();
            if IGNORED_HEADERS.contains(&lower.as_str()) {
                return None;
            }
            lower
        }
        ParameterLocation::Query | ParameterLocation::Cookie => name.to_owned(),
    };
    let flag = |field: &str| parameter.get(field).and_then(Value::as_bool) == Some(true);
    let schema = parameter.get("schema").or_else(|| {
        let media = parameter.get("content")?.as_object()?.values().next()?;
        document.resolve(media).get("schema")
    });
    Some((
        ParamKey { location, key },
        Param {
            name,
            required: location == ParameterLocation::Path || flag("required"),
            deprecated: flag("deprecated"),
            schema,
        },
    ))
}

fn content<'a>(document: &'a Document, content: Option<&'a Value>) -> Content<'a> {
    let mut media_types = BTreeMap::new();
    for (media_type, media) in content.and_then(Value::as_object).into_iter().flatten() {
        let schema = document.resolve(media).get("schema");
        media_types.insert(essence(media_type), (media_type.as_str(), schema));
    }
    media_types
}

/// `Application/JSON; charset=utf-8` → `application/json`.
pub(crate) fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_parameters_bodies_and_responses() {
        let doc = Document::from_value(json!({
            "openapi": "3.0.0",
            "paths": {"/users/{userId}": {
                "parameters": [
                    {"name": "userId", "in": "path", "schema": {"type": "integer"}},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}}
                ],
                "post": {
                    "parameters": [
                        {"$ref": "#/components/parameters/Limit"},
                        {"name": "x-trace", "in": "header", "required": true},
                        {"name": "Accept", "in": "header"}
                    ],
                    "requestBody": {"$ref": "#/components/requestBodies/User"},
                    "responses": {"default": {}, "200": {"content": {
                        "application/json; charset=utf-8": {"schema": {"type": "object"}}}}}
                }
            }},
            "components": {
                "parameters": {"Limit": {"name": "limit", "in": "query", "deprecated": true}},
                "requestBodies": {"User": {"required": true, "content": {"application/json": {}}}}
            }
        }))
        .unwrap();
        let ops = doc.operations();
        let parts = Parts::of(&doc, &ops[0]);
        let keys: Vec<String> = parts
            .parameters
            .iter()
            .map(|(k, p)| {
                format!(
                    "{}:{}:{}:{}:{}",
                    k.location.as_str(),
                    k.key,
                    p.name,
                    p.required,
                    p.deprecated
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                "path:#0:userId:true:false",
                "query:limit:limit:false:true",
                "header:x-trace:x-trace:true:false"
            ]
        );
        let body = parts.request_body.expect("a body");
        assert!(body.required);
        assert_eq!(
            body.content.keys().collect::<Vec<_>>(),
            ["application/json"]
        );
        let statuses: Vec<&str> = parts.responses.values().map(|r| r.status).collect();
        assert_eq!(statuses, ["200", "default"]);
        assert_eq!(
            parts.responses.values().next().unwrap().content["application/json"].0,
            "application/json; charset=utf-8"
        );
    }
}
