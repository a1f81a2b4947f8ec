//! An OpenAPI 3.0/3.1 document, checked just enough to be compared, and its operations with
//! their full paths (server base path included).

use std::borrow::Cow;

use serde_json::Value;

use crate::matcher::RouteMatch;
use crate::method::Method;
use crate::refs;
use crate::servers::base_paths;
use crate::template::join;

/// Why a value is not an OpenAPI document this crate can compare.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// The document is not a JSON object.
    #[error("an OpenAPI document is an object, this one is {found}")]
    NotAnObject {
        /// The JSON type found instead (`array`, `string`, ...).
        found: &'static str,
    },
    /// A Swagger 2.0 document.
    #[error(
        "`swagger: {version}` is Swagger 2, not OpenAPI 3: convert it first (swagger2openapi does)"
    )]
    Swagger {
        /// The `swagger` field as written.
        version: String,
    },
    /// No `openapi` field.
    #[error("no `openapi` version field: not an OpenAPI 3 document")]
    MissingVersion,
    /// An `openapi` field that is not a 3.x version.
    #[error("`openapi: {version}` is not an OpenAPI 3 version (3.0.x or 3.1.x)")]
    UnsupportedVersion {
        /// The `openapi` field as written.
        version: String,
    },
    /// A 3.0 document without `paths` (3.1 makes it optional).
    #[error("no `paths` object: an OpenAPI {version} document lists its paths")]
    MissingPaths {
        /// The `openapi` field.
        version: String,
    },
    /// A field that must be an object is something else.
    #[error("`{field}` is {found}, not an object")]
    FieldNotAnObject {
        /// The field (`paths`, `components`).
        field: &'static str,
        /// The JSON type found instead.
        found: &'static str,
    },
}

/// An OpenAPI 3.x document to compare or to match requests against.
///
/// It keeps the parsed value whole; [`Document::from_value`] checks only what the comparison
/// relies on (an `openapi: 3.x` field and a `paths` object), so documents from any tool are
/// read, and anything else malformed inside is compared as written or skipped.
#[derive(Clone, Debug)]
pub struct Document {
    root: Value,
    version: String,
}

/// One operation of a [`Document`]: a method on a path.
#[derive(Clone, Debug)]
pub struct Operation<'a> {
    method: Method,
    /// Worked out from the servers, or the matcher's when it found the operation.
    path: Cow<'a, str>,
    template: &'a str,
    value: &'a Value,
    path_item: &'a Value,
}

impl Document {
    /// Checks `root` and keeps it. YAML or JSON alike: the caller parses the text into a
    /// `serde_json::Value` first.
    pub fn from_value(root: Value) -> Result<Document, DocumentError> {
        let Value::Object(map) = &root else {
            return Err(DocumentError::NotAnObject {
                found: json_type(&root),
            });
        };
        let version = match map.get("openapi") {
            Some(Value::String(v)) => v.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(other) => {
                return Err(DocumentError::UnsupportedVersion {
                    version: other.to_string(),
                });
            }
            None => {
                return Err(match map.get("swagger") {
                    Some(v) => DocumentError::Swagger {
                        version: v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                    },
                    None => DocumentError::MissingVersion,
                });
            }
        };
        if !version.starts_with("3.") {
            return Err(DocumentError::UnsupportedVersion { version });
        }
        for field in ["paths", "components"] {
            if let Some(value) = map.get(field).filter(|v| !v.is_object()) {
                return Err(DocumentError::FieldNotAnObject {
                    field,
                    found: json_type(value),
                });
            }
        }
        if !map.contains_key("paths") && version.starts_with("3.0") {
            return Err(DocumentError::MissingPaths { version });
        }
        Ok(Document { root, version })
    }

    /// The `openapi` field: `3.0.3`, `3.1.0`, ...
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The whole document as parsed.
    pub fn as_value(&self) -> &Value {
        &self.root
    }

    /// The document back, as parsed.
    pub fn into_value(self) -> Value {
        self.root
    }

    /// `value` with its local `$ref` chain followed (`#/components/...`); `value` itself when
    /// it is no reference or the reference cannot be followed (external, dangling, circular).
    pub fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        refs::resolve_or_self(&self.root, value)
    }

    /// The operation `method` on `template` as `paths` writes it (`/users/{id}`): what a
    /// [`RouteMatch`] names, to read its parameters, responses or deprecation.
    pub fn operation(&self, method: Method, template: &str) -> Option<Operation<'_>> {
        let (template, path_item) = self.path_item(template)?;
        let item_base = first_base(path_item.get("servers").or(self.root.get("servers")));
        self.operation_in(template, path_item, method, &item_base)
    }

    /// The operation `route` names, as [`Document::operation`] gives it, its full path the
    /// matcher's: a drift looks up each flow's operation, and the base path the matcher
    /// worked out once need not be worked out again.
    pub(crate) fn routed<'a>(&'a self, route: &RouteMatch<'a>) -> Option<Operation<'a>> {
        let (template, path_item) = self.path_item(route.template)?;
        Some(Operation {
            method: route.method,
            path: Cow::Borrowed(route.path),
            template,
            value: self.operation_value(path_item, route.method)?,
            path_item,
        })
    }

    /// The path item `paths` holds under `template` (its reference followed), and the key.
    fn path_item(&self, template: &str) -> Option<(&str, &Value)> {
        let paths = self.root.get("paths")?.as_object()?;
        let (template, item) = paths.get_key_value(template)?;
        Some((template, self.resolve(item)))
    }

    /// The operation object of `method` in `path_item`, when it is one.
    fn operation_value<'a>(&'a self, path_item: &'a Value, method: Method) -> Option<&'a Value> {
        let value = self.resolve(path_item.get(method.path_item_key())?);
        value.is_object().then_some(value)
    }

    /// Every operation, sorted by full path then method.
    pub fn operations(&self) -> Vec<Operation<'_>> {
        let mut operations = Vec::new();
        let Some(paths) = self.root.get("paths").and_then(Value::as_object) else {
            return operations;
        };
        let document_base = first_base(self.root.get("servers"));
        for (template, item) in paths {
            if template.starts_with("x-") {
                continue;
            }
            let path_item = self.resolve(item);
            let item_base = match path_item.get("servers") {
                Some(servers) => first_base(Some(servers)),
                None => document_base.clone(),
            };
            for method in Method::ALL {
                operations.extend(self.operation_in(template, path_item, method, &item_base));
            }
        }
        operations.sort_by(|a, b| (&a.path, a.method).cmp(&(&b.path, b.method)));
        operations
    }

    /// `method` in `path_item`, reached under `item_base` unless it names servers of its own.
    fn operation_in<'a>(
        &'a self,
        template: &'a str,
        path_item: &'a Value,
        method: Method,
        item_base: &str,
    ) -> Option<Operation<'a>> {
        let value = self.operation_value(path_item, method)?;
        let path = match value.get("servers") {
            Some(servers) => join(&first_base(Some(servers)), template),
            None => join(item_base, template),
        };
        Some(Operation {
            method,
            path: Cow::Owned(path),
            template,
            value,
            path_item,
        })
    }

    /// The base path of every server an operation may be reached at: the operation's own
    /// `servers`, else its path item's, else the document's.
    pub(crate) fn server_base_paths(&self, operation: &Operation<'_>) -> Vec<String> {
        let servers = operation
            .value
            .get("servers")
            .or_else(|| operation.path_item.get("servers"))
            .or_else(|| self.root.get("servers"));
        let mut bases = base_paths(servers);
        if bases.is_empty() {
            bases.push(String::new());
        }
        bases
    }
}

impl<'a> Operation<'a> {
    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The full path template: the first server's base path and the template
    /// (`/api/v2/users/{id}`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The template as the document's `paths` writes it (`/users/{id}`).
    pub fn template(&self) -> &'a str {
        self.template
    }

    /// The `operationId`, if any.
    pub fn operation_id(&self) -> Option<&'a str> {
        self.value.get("operationId").and_then(Value::as_str)
    }

    /// Whether the operation is marked `deprecated: true`.
    pub fn deprecated(&self) -> bool {
        self.value.get("deprecated").and_then(Value::as_bool) == Some(true)
    }

    /// The operation object.
    pub fn value(&self) -> &'a Value {
        self.value
    }

    /// The path item holding it (its shared `parameters` live there).
    pub fn path_item(&self) -> &'a Value {
        self.path_item
    }
}

/// The base path of the first server in `servers`; empty without one.
fn first_base(servers: Option<&Value>) -> String {
    base_paths(servers).into_iter().next().unwrap_or_default()
}

/// The JSON type of `value`, as a word for messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn refuses_what_is_not_openapi_3_and_says_why() {
        let err = |v: Value| Document::from_value(v).unwrap_err();
        assert_eq!(
            err(json!([])),
            DocumentError::NotAnObject { found: "an array" }
        );
        assert_eq!(err(json!({"paths": {}})), DocumentError::MissingVersion);
        assert!(
            err(json!({"swagger": "2.0", "paths": {}}))
                .to_string()
                .contains("Swagger 2")
        );
        assert_eq!(
            err(json!({"openapi": "2.0", "paths": {}})),
            DocumentError::UnsupportedVersion {
                version: "2.0".into()
            }
        );
        assert_eq!(
            err(json!({"openapi": "3.0.3"})).to_string(),
            "no `paths` object: an OpenAPI 3.0.3 document lists its paths"
        );
        assert_eq!(
            err(json!({"openapi": "3.0.3", "paths": []})).to_string(),
            "`paths` is an array, not an object"
        );
    }

    #[test]
    fn accepts_3_1_without_paths_and_yaml_numbers() {
        let doc = Document::from_value(json!({"openapi": "3.1.0", "webhooks": {}})).unwrap();
        assert!(doc.operations().is_empty());
        let doc = Document::from_value(json!({"openapi": 3.0, "paths": {}})).unwrap();
        assert_eq!(doc.version(), "3.0");
    }

    #[test]
    fn operations_carry_the_server_base_path_sorted() {
        let doc = Document::from_value(json!({
            "openapi": "3.0.0",
            "servers": [{"url": "https://x.test/api"}],
            "paths": {
                "/b": {"get": {}, "post": {"deprecated": true, "operationId": "makeB"}},
                "/a": {"delete": {}, "servers": [{"url": "/other"}]},
                "x-ext": {"get": {}},
                "/c": {"$ref": "#/components/pathItems/C"}
            },
            "components": {"pathItems": {"C": {"put": {}}}}
        }))
        .unwrap();
        let ops: Vec<_> = doc
            .operations()
            .iter()
            .map(|o| {
                format!(
                    "{} {} {:?} {}",
                    o.method(),
                    o.path(),
                    o.operation_id(),
                    o.deprecated()
                )
            })
            .collect();
        assert_eq!(
            ops,
            [
                "GET /api/b None false",
                "POST /api/b Some(\"makeB\") true",
                "PUT /api/c None false",
                "DELETE /other/a None false",
            ]
        );
    }
}
