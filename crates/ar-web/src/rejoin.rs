//! The endpoint a flow belongs to now. A row keeps the endpoint its flow
//! joined when it was captured, but the store goes on learning: it widens
//! `/users/41` into `/users/{userId}`, splits an endpoint whose paths stop
//! sharing a template, and a correction documents the whole archive again
//! under new templates. The list and the detail ask the store at the
//! moment they show a flow ([`crate::Backend::endpoints_now`]).

use ar_store::store::{Endpoint, EndpointStore};

/// Where a flow went, as its row knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joined {
    /// The request method.
    pub method: String,
    /// The URL's path (no query).
    pub path: String,
    /// The stable key of the endpoint it joined when captured.
    pub endpoint: String,
}

/// The key of the endpoint each flow belongs to in `store` now: the one it
/// joined (or that endpoint's successor) when that still holds its path,
/// else the endpoint of its method and host that does, else the joined
/// one's successor; `None` when none is left.
pub fn endpoints_now(store: &EndpointStore, flows: &[Joined]) -> Vec<Option<String>> {
    let all = store.endpoints();
    flows
        .iter()
        .map(|flow| {
            let successor = store.resolve_key(&flow.endpoint);
            let holds = |e: &&Endpoint| {
                e.method() == flow.method && e.concrete_paths().contains_key(&flow.path)
            };
            let host = host_of(&flow.endpoint);
            successor
                .filter(holds)
                .or_else(|| {
                    all.iter()
                        .copied()
                        .filter(|e| e.graphql().is_none() && Some(e.host()) == host)
                        .find(|e| holds(e))
                })
                .or(successor)
                .map(|e| e.key().to_string())
        })
        .collect()
}

/// The host of a path endpoint's key (`GET shop.test:8443/api/x`).
fn host_of(key: &str) -> Option<&str> {
    let (_, rest) = key.split_once(' ')?;
    rest.split('/').next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correction::tests::{key_of, store, store_with};

    #[test]
    fn a_flow_is_shown_in_the_endpoint_the_store_holds_its_path_in_now() {
        let paths = ["/v1/users/41", "/v1/users/42", "/v1/users/43"];
        let learnt = store(&paths);
        // Documented again with `41` made a literal (a correction, a split).
        let corrected = store_with(&paths, &["api.shop.test/v1/users/41"]);
        let ask = |store: &EndpointStore, joined: &str, path: &str| {
            endpoints_now(
                store,
                &[Joined {
                    method: "GET".into(),
                    path: path.into(),
                    endpoint: joined.to_owned(),
                }],
            )
        };
        let (param, literal) = (
            key_of(&learnt, "/v1/users/{userId}"),
            key_of(&corrected, "/v1/users/41"),
        );
        assert_eq!(ask(&learnt, &param, "/v1/users/41"), [Some(param.clone())]);
        // The row joined `{userId}`; the corrected store holds 41 apart, 42 still in the parameter.
        assert_eq!(
            ask(&corrected, &param, "/v1/users/41"),
            [Some(literal.clone())]
        );
        assert_eq!(
            ask(&corrected, &param, "/v1/users/42"),
            [Some(key_of(&corrected, "/v1/users/{userId}"))]
        );
        // And back: a row that joined the literal is in the parameter again.
        assert_eq!(ask(&learnt, &literal, "/v1/users/41"), [Some(param)]);
        // A path no endpoint holds any more: nothing.
        assert_eq!(ask(&store(&["/other"]), &literal, "/v1/users/41"), [None]);
    }
}
