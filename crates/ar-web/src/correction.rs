//! Corrections of an endpoint's template from the page: one segment made a
//! literal, a parameter, or a parameter for the rest of the path. Each
//! becomes user templates (`--template` patterns, ar-store's overrides),
//! which beat every learnt rule; the owner of the store applies them, keeps
//! them with the session, and the spec is rewritten.

use ar_store::store::Endpoint;
use ar_store::template::Pattern;

/// Concrete values turned into literals at most, per correction.
const MAX_LITERALS: usize = 50;

/// What one segment should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentAs {
    /// Its own value in each path: one endpoint per value.
    Literal,
    /// One parameter for whatever value it has.
    Parameter,
    /// One parameter for it and everything after it.
    Rest,
}

impl SegmentAs {
    /// `literal`, `parameter`, `rest`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "literal" => Some(Self::Literal),
            "parameter" | "param" => Some(Self::Parameter),
            "rest" => Some(Self::Rest),
            _ => None,
        }
    }
}

/// A correction the page asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    /// The endpoint's stable key.
    pub key: String,
    /// The segment, counted from 0 after the leading `/`.
    pub segment: usize,
    /// What it should be.
    pub make: SegmentAs,
}

/// The user templates that make `correction` true of `endpoint`, host
/// included, checked; an error says why none can.
pub fn patterns(endpoint: &Endpoint, correction: &Correction) -> Result<Vec<String>, String> {
    let template = endpoint.template().to_string();
    let segments: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    let at = correction.segment;
    let Some(current) = segments.get(at) else {
        return Err(format!("{template} has no segment {at}"));
    };
    let is_param = current.starts_with('{');
    let texts: Vec<String> = match correction.make {
        SegmentAs::Parameter if is_param => {
            return Err(format!("`{current}` is a parameter already"));
        }
        SegmentAs::Literal if !is_param => {
            return Err(format!("`{current}` is a literal already"));
        }
        SegmentAs::Parameter => {
            let mut parts: Vec<String> = segments.iter().map(|s| (*s).to_owned()).collect();
            parts[at] = format!("{{{}}}", name_after(&segments[..at]));
            vec![join(endpoint.host(), &parts)]
        }
        SegmentAs::Rest => {
            let mut parts: Vec<String> = segments[..at].iter().map(|s| (*s).to_owned()).collect();
            parts.push("{path*}".to_owned());
            vec![join(endpoint.host(), &parts)]
        }
        SegmentAs::Literal => {
            let mut values: Vec<&str> = endpoint
                .concrete_paths()
                .keys()
                .filter_map(|path| path.trim_start_matches('/').split('/').nth(at))
                .collect();
            values.sort_unstable();
            values.dedup();
            values.truncate(MAX_LITERALS);
            values
                .into_iter()
                .map(|value| {
                    let mut parts: Vec<String> = segments.iter().map(|s| (*s).to_owned()).collect();
                    parts[at] = value.to_owned();
                    join(endpoint.host(), &parts)
                })
                .collect()
        }
    };
    if texts.is_empty() {
        return Err(format!("no path of {template} has a segment {at}"));
    }
    for text in &texts {
        Pattern::parse(text).map_err(|e| e.to_string())?;
    }
    Ok(texts)
}

/// `host/a/b`.
fn join(host: &str, parts: &[String]) -> String {
    format!("{host}/{}", parts.join("/"))
}

/// A parameter name from the literal before it: `products` → `productId`,
/// else `param`.
fn name_after(before: &[&str]) -> String {
    match before.last() {
        Some(word) if !word.starts_with('{') && word.chars().all(|c| c.is_ascii_alphabetic()) => {
            format!("{}Id", word.strip_suffix('s').unwrap_or(word))
        }
        _ => "param".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::{EndpointStore, StoreConfig};
    use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    fn store(paths: &[&str]) -> EndpointStore {
        let mut store = EndpointStore::new(
            Scope::new(ScopeConfig::default()).unwrap(),
            StoreConfig::default(),
        );
        for (id, path) in (1..).zip(paths) {
            let mut response = Response::new(200, HttpVersion::Http11);
            response.body =
                Body::from_decoded(Some("application/json".into()), br#"{"id":1}"#.to_vec());
            let request = Request::new(
                "GET",
                format!("https://api.shop.test{path}"),
                HttpVersion::Http11,
            );
            let flow = Flow::new(
                FlowId(id),
                Timestamp::from_unix_micros(0),
                Client::Human,
                request,
            )
            .with_response(response);
            store.ingest(&flow);
        }
        store
    }

    #[test]
    fn each_kind_of_correction_becomes_checked_host_patterns() {
        let store = store(&["/v1/users/41", "/v1/users/42", "/v1/users/43"]);
        let endpoint = &store.endpoints()[0];
        assert_eq!(endpoint.template().to_string(), "/v1/users/{userId}");
        let fix = |segment, make| {
            patterns(
                endpoint,
                &Correction {
                    key: endpoint.key().to_string(),
                    segment,
                    make,
                },
            )
        };
        assert_eq!(
            fix(2, SegmentAs::Literal).unwrap(),
            [
                "api.shop.test/v1/users/41",
                "api.shop.test/v1/users/42",
                "api.shop.test/v1/users/43"
            ]
        );
        assert_eq!(
            fix(1, SegmentAs::Parameter).unwrap(),
            ["api.shop.test/v1/{param}/{userId}"]
        );
        assert_eq!(
            fix(1, SegmentAs::Rest).unwrap(),
            ["api.shop.test/v1/{path*}"]
        );
        assert!(
            fix(2, SegmentAs::Parameter)
                .unwrap_err()
                .contains("already")
        );
        assert!(fix(0, SegmentAs::Literal).unwrap_err().contains("already"));
        assert!(
            fix(7, SegmentAs::Rest)
                .unwrap_err()
                .contains("no segment 7")
        );
    }
}
