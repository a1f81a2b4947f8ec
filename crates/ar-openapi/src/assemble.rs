//! The public entry points: documenter (+ enrichment + options) → OpenAPI
//! and markdown, and the serialisers.

use crate::documenter::Documenter;
use crate::error::Error;
use crate::options::{Enrichment, Options};
use crate::{components, markdown, model, spec, yaml};

/// The generated documentation: the OpenAPI document and `API.md`.
#[derive(Debug, Clone)]
pub struct Documentation {
    /// The OpenAPI 3.0 document.
    pub openapi: openapiv3::OpenAPI,
    /// The markdown guide (`API.md`).
    pub markdown: String,
}

impl Documentation {
    /// The spec as YAML (`openapi.yaml`).
    pub fn yaml(&self) -> Result<String, Error> {
        to_yaml(&self.openapi)
    }

    /// The spec as pretty JSON (`openapi.json`), with a trailing newline.
    pub fn json(&self) -> Result<String, Error> {
        to_json(&self.openapi)
    }
}

/// Builds the OpenAPI document and the markdown from what `documenter` saw.
///
/// Deterministic: the same observations give byte-identical output.
///
/// ```
/// use ar_openapi::{document, Documenter, EndpointInfo, Enrichment, Options, Redactor};
/// use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
///
/// let mut request = Request::new("GET", "https://api.shop.test/users/42?expand=orders", HttpVersion::Http11);
/// request.headers.push("Authorization", "Bearer secret-token-value");
/// let mut response = Response::new(200, HttpVersion::Http11);
/// response.body = Body::from_decoded(Some("application/json".into()), br#"{"id":42,"name":"Ada"}"#.to_vec());
/// let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(0), Client::Human, request).with_response(response);
///
/// let mut documenter = Documenter::new(Redactor::new());
/// let info = EndpointInfo {
///     id: 1, key: "GET api.shop.test/users/{userId}".into(), method: "GET".into(),
///     host: "api.shop.test".into(), template: "/users/{userId}".into(), sources: vec![],
///     rest_param: None,
/// };
/// documenter.observe(&flow, &info);
/// let docs = document(&documenter, &Enrichment::new(), &Options::default()).unwrap();
/// let yaml = docs.yaml().unwrap();
/// assert!(yaml.contains("/users/{userId}:"));
/// assert!(yaml.contains("operationId: getUser"));
/// assert!(yaml.contains("bearerAuth"));
/// assert!(!yaml.contains("secret-token-value"));
/// assert!(docs.markdown.contains("#### `GET /users/{userId}`"));
/// ```
pub fn document(
    documenter: &Documenter,
    enrichment: &Enrichment,
    options: &Options,
) -> Result<Documentation, Error> {
    let mut model = model::build(documenter, enrichment, options);
    components::extract(&mut model, options.component_min_uses);
    let doc = spec::document(
        &model,
        &options.title,
        &options.version,
        documenter.redactor(),
    );
    let openapi = spec::typed(doc)?;
    let markdown = markdown::render(
        &model,
        documenter.ledger(),
        &documenter.body_limits(),
        &options.title,
    );
    let markdown = documenter.redactor().text(&markdown).into_owned();
    Ok(Documentation { openapi, markdown })
}

/// Only the OpenAPI document (see [`document`]).
pub fn assemble(
    documenter: &Documenter,
    enrichment: &Enrichment,
    options: &Options,
) -> Result<openapiv3::OpenAPI, Error> {
    document(documenter, enrichment, options).map(|docs| docs.openapi)
}

/// Serialises a spec as YAML.
///
/// Strings are quoted wherever a YAML 1.1 reader (PyYAML, and so
/// openapi-spec-validator) or a YAML 1.2 reader would not read them back
/// unchanged: a property named `on` must stay `on`, not become `True`.
pub fn to_yaml(openapi: &openapiv3::OpenAPI) -> Result<String, Error> {
    let tree = serde_norway::to_value(openapi).map_err(|e| Error::Serialise {
        format: "YAML",
        reason: e.to_string(),
    })?;
    yaml::to_string(&tree)
}

/// Serialises a spec as pretty JSON with a trailing newline.
pub fn to_json(openapi: &openapiv3::OpenAPI) -> Result<String, Error> {
    let mut text = serde_json::to_string_pretty(openapi).map_err(|e| Error::Serialise {
        format: "JSON",
        reason: e.to_string(),
    })?;
    text.push('\n');
    Ok(text)
}
