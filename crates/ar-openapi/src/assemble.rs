//! The public entry points: store and its documenter (+ enrichment +
//! options) → OpenAPI and markdown, and the serialisers.

use ar_store::store::EndpointStore;

use crate::documenter::Documenter;
use crate::error::Error;
use crate::options::{Enrichment, Options};
use crate::{api_wide, components, markdown, model, spec, yaml};

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

/// Builds the OpenAPI document and the markdown from the endpoints of
/// `store` and the [`Documenter`] it keeps as their evidence.
///
/// Deterministic: the same observations give byte-identical output.
///
/// ```
/// use ar_openapi::{document, Documenter, Enrichment, Options, Redactor};
/// use ar_store::scope::{Scope, ScopeConfig};
/// use ar_store::store::{EndpointStore, StoreConfig};
/// use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
///
/// let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
/// let mut store = EndpointStore::new(scope, StoreConfig::default())
///     .with_evidence(Documenter::new(Redactor::new()));
/// for user in [42, 43] {
///     let url = format!("https://api.shop.test/users/{user}?expand=orders");
///     let mut request = Request::new("GET", url, HttpVersion::Http11);
///     request.headers.push("Authorization", "Bearer secret-token-value");
///     let mut response = Response::new(200, HttpVersion::Http11);
///     let body = format!(r#"{{"id":{user},"name":"Ada"}}"#);
///     response.body = Body::from_decoded(Some("application/json".into()), body.into_bytes());
///     store.ingest(&Flow::new(FlowId(user), Timestamp::from_unix_micros(0), Client::Human, request).with_response(response));
/// }
/// let docs = document(&store, &Enrichment::new(), &Options::default()).unwrap();
/// let yaml = docs.yaml().unwrap();
/// assert!(yaml.contains("/users/{userId}:"));
/// assert!(yaml.contains("operationId: getUser"));
/// assert!(yaml.contains("bearerAuth"));
/// assert!(!yaml.contains("secret-token-value"));
/// assert!(docs.markdown.contains("#### `GET /users/{userId}`"));
/// ```
///
/// # Errors
///
/// [`Error::NoDocumenter`] when `store` keeps no [`Documenter`]; the others
/// when the document cannot be typed or serialised.
pub fn document(
    store: &EndpointStore,
    enrichment: &Enrichment,
    options: &Options,
) -> Result<Documentation, Error> {
    let documenter: &Documenter = store.evidence().ok_or(Error::NoDocumenter)?;
    let mut model = model::build(store, documenter, enrichment, options);
    api_wide::apply(&mut model);
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
        &options.overview,
    );
    let markdown = documenter.redactor().text(&markdown).into_owned();
    Ok(Documentation { openapi, markdown })
}

/// Only the OpenAPI document (see [`document`]).
pub fn assemble(
    store: &EndpointStore,
    enrichment: &Enrichment,
    options: &Options,
) -> Result<openapiv3::OpenAPI, Error> {
    document(store, enrichment, options).map(|docs| docs.openapi)
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

#[cfg(test)]
mod tests {
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::StoreConfig;

    use super::*;

    #[test]
    fn a_store_that_keeps_no_documenter_is_refused_with_what_to_do() {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        let store = EndpointStore::new(scope, StoreConfig::default());
        let error = document(&store, &Enrichment::new(), &Options::default()).unwrap_err();
        assert!(matches!(error, Error::NoDocumenter));
        assert!(error.to_string().contains("with_evidence(Documenter::new"));
    }
}
