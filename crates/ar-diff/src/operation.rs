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

/// Media types by their normalized spelling (case and spaces aside): the type as written and
/// its schema.
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
        media_types.insert(normalize(media_type), (media_type.as_str(), schema));
    }
    media_types
}

/// Which media type of the old content is which of the new: the same spelling (case and
/// spaces aside), else the same essence when each side has one type of that essence left
/// (`application/json` and `application/json; charset=utf-8`). Old keys first, in order; a
/// side is `None` for a type only the other has.
pub(crate) fn pair_content<'c>(
    old: &'c Content<'_>,
    new: &'c Content<'_>,
) -> Vec<(Option<&'c String>, Option<&'c String>)> {
    let mut old_left: Vec<&String> = old.keys().filter(|k| !new.contains_key(*k)).collect();
    let mut new_left: Vec<&String> = new.keys().filter(|k| !old.contains_key(*k)).collect();
    let mut pairs: Vec<(Option<&String>, Option<&String>)> = old
        .keys()
        .filter(|k| new.contains_key(*k))
        .map(|k| (Some(k), Some(k)))
        .collect();
    let alone = |keys: &[&String], e: &str| keys.iter().filter(|k| essence(k) == e).count() == 1;
    for old_key in old_left.clone() {
        let e = essence(old_key);
        if !alone(&old_left, e) || !alone(&new_left, e) {
            continue;
        }
        if let Some(at) = new_left.iter().position(|k| essence(k) == e) {
            let new_key = new_left.remove(at);
            old_left.retain(|k| *k != old_key);
            pairs.push((Some(old_key), Some(new_key)));
        }
    }
    pairs.extend(old_left.into_iter().map(|k| (Some(k), None)));
    pairs.extend(new_left.into_iter().map(|k| (None, Some(k))));
    pairs.sort_by(|a, b| a.0.or(a.1).cmp(&b.0.or(b.1)));
    pairs
}

/// `Application/JSON ; charset=UTF-8` → `application/json;charset=utf-8`.
fn normalize(media_type: &str) -> String {
    media_type
        .split(';')
        .map(|part| part.trim().replace(' ', ""))
        .collect::<Vec<_>>()
        .join(";")
        .to_ascii_lowercase()
}

/// `application/json; charset=utf-8` → `application/json`.
fn essence(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or_default().trim()
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
        let response = &parts.responses.values().next().unwrap().content;
        assert_eq!(
            response["application/json;charset=utf-8"].0,
            "application/json; charset=utf-8"
        );
        let json = "application/json".to_owned();
        let json_utf8 = "application/json;charset=utf-8".to_owned();
        assert_eq!(
            pair_content(&body.content, response),
            [(Some(&json), Some(&json_utf8))]
        );
    }
}
