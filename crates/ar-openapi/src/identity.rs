//! An endpoint's identity as the documents name it (method, host, template,
//! key, where its parameters' values came from), read from the store's
//! endpoint when the documents are rendered: the store owns it, nothing
//! here keeps a copy between renderings.

use ar_store::store::{BodySide, Endpoint, EndpointId};

/// What the model needs of a store endpoint, read once per rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EndpointInfo {
    /// The store's endpoint id.
    pub(crate) id: u64,
    /// The stable key agents and annotations use
    /// (`GET api.shop.test/users/{userId}`, or a GraphQL operation name).
    pub(crate) key: String,
    /// Uppercase method.
    pub(crate) method: String,
    /// Host (with `:port` when not the default).
    pub(crate) host: String,
    /// Path template, e.g. `/users/{userId}/orders`.
    pub(crate) template: String,
    /// Where path parameter values were seen before (for OpenAPI links).
    pub(crate) sources: Vec<ValueSource>,
    /// The last path parameter when it takes the rest of the path, slashes
    /// included (a user template's `{path*}`): its values span several
    /// segments (`a/b/c.txt`), which the template text cannot say.
    pub(crate) rest_param: Option<String>,
}

/// A path parameter whose value was first seen in another endpoint's body.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ValueSource {
    /// The path parameter name (`orderId`).
    pub(crate) param: String,
    /// The endpoint id the value came from.
    pub(crate) from_endpoint: u64,
    /// Where in that endpoint's body, as a JSON path (`$.orders[].id`).
    pub(crate) json_path: String,
    /// Whether the value was in the response body (else the request body).
    pub(crate) from_response: bool,
}

impl EndpointInfo {
    /// `endpoint` as the documents name it.
    pub(crate) fn of(endpoint: &Endpoint) -> Self {
        Self {
            id: id(endpoint.id()),
            key: endpoint.key().as_str().to_string(),
            method: endpoint.method().to_ascii_uppercase(),
            host: endpoint.host().to_string(),
            template: endpoint.template().to_string(),
            sources: (endpoint.links().iter())
                .map(|link| ValueSource {
                    param: link.param.clone(),
                    from_endpoint: id(link.source),
                    json_path: link.field_path.clone(),
                    from_response: link.side == BodySide::Response,
                })
                .collect(),
            rest_param: (endpoint.template().params())
                .find(|p| p.rest)
                .map(|p| p.name.clone()),
        }
    }
}

fn id(endpoint: EndpointId) -> u64 {
    u64::from(endpoint.0)
}
