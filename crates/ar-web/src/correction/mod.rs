//! Corrections of the endpoints from the page: one segment made a literal,
//! a parameter or a parameter for the rest of the path (`segment.rs`); two
//! endpoints made one (`merge.rs`); one value of a parameter made an
//! endpoint of its own (`split.rs`). Each becomes user templates
//! (`--template` patterns, ar-store's overrides), which beat every learnt
//! rule, the first matching one first; the owner of the store puts them
//! before the session's other templates, keeps them with the session, and
//! the spec is rewritten.

use ar_store::store::{Endpoint, EndpointStore};
use ar_store::template::{PathTemplate, Pattern, Segment};

mod merge;
mod segment;
mod split;

pub use segment::SegmentAs;

/// A correction the page asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// One segment of an endpoint's template made `make`.
    Segment {
        /// The endpoint's stable key.
        key: String,
        /// The segment, counted from 0 after the leading `/`.
        segment: usize,
        /// What it should be.
        make: SegmentAs,
    },
    /// Two endpoints made one: every path of both under one template.
    Merge {
        /// One endpoint's stable key.
        key: String,
        /// The other's.
        with: String,
        /// The template the user chose (a path, `/a/{x}`), or `None` for
        /// the narrowest one covering both.
        template: Option<String>,
    },
    /// One value of a parameter made a literal sibling: an endpoint of its
    /// own beside the parameter's.
    Split {
        /// The endpoint's stable key.
        key: String,
        /// The parameter's segment, counted from 0 after the leading `/`.
        segment: usize,
        /// The value that gets its own endpoint.
        value: String,
    },
}

impl Correction {
    /// The endpoint the correction starts from.
    pub fn key(&self) -> &str {
        match self {
            Self::Segment { key, .. } | Self::Merge { key, .. } | Self::Split { key, .. } => key,
        }
    }
}

/// The user templates that make `correction` true of `store`'s endpoints,
/// host included, in the order they are to be tried, each checked; an error
/// says why none can.
pub fn patterns(store: &EndpointStore, correction: &Correction) -> Result<Vec<String>, String> {
    let endpoint = resolve(store, correction.key())?;
    let texts = match correction {
        Correction::Segment { segment, make, .. } => segment::patterns(endpoint, *segment, *make)?,
        Correction::Merge { with, template, .. } => {
            merge::patterns(endpoint, resolve(store, with)?, template.as_deref())?
        }
        Correction::Split { segment, value, .. } => split::patterns(endpoint, *segment, value)?,
    };
    for text in &texts {
        Pattern::parse(text).map_err(|e| e.to_string())?;
    }
    Ok(texts)
}

/// The endpoint `key` names now (or named before the store widened it).
fn resolve<'s>(store: &'s EndpointStore, key: &str) -> Result<&'s Endpoint, String> {
    store
        .resolve_key(key)
        .ok_or_else(|| format!("no endpoint {key} (the spec changed: reload)"))
}

/// A template's segments as a pattern writes them: literals, `{name}`,
/// `{name*}` for the rest of the path.
fn parts(template: &PathTemplate) -> Vec<String> {
    template
        .segments
        .iter()
        .map(|segment| match segment {
            Segment::Literal(text) => text.clone(),
            Segment::Param(p) if p.rest => format!("{{{}*}}", p.name),
            Segment::Param(p) => p.to_string(),
        })
        .collect()
}

/// `host/a/b`.
fn join(host: &str, parts: &[String]) -> String {
    format!("{host}/{}", parts.join("/"))
}

/// Segment `at` of a concrete path (`/a/b` → `a`, `b`).
pub(crate) fn segment_of(path: &str, at: usize) -> Option<&str> {
    path.trim_start_matches('/').split('/').nth(at)
}

/// A parameter name from the literal before it: `products` → `productId`,
/// else `param`.
fn name_after(before: &[String]) -> String {
    match before.last() {
        Some(word) if !word.starts_with('{') && word.chars().all(|c| c.is_ascii_alphabetic()) => {
            format!("{}Id", word.strip_suffix('s').unwrap_or(word))
        }
        _ => "param".to_owned(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::{EndpointStore, StoreConfig};
    use ar_store::template::Overrides;
    use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    /// A store that saw a `GET` of each path on `api.shop.test`, each
    /// answered with a small JSON object.
    pub(crate) fn store(paths: &[&str]) -> EndpointStore {
        store_with(paths, &[])
    }

    /// [`store`] with user templates.
    pub(crate) fn store_with(paths: &[&str], templates: &[&str]) -> EndpointStore {
        let mut config = StoreConfig::default();
        config.template_overrides = Overrides::parse(templates.iter().copied()).unwrap();
        let mut store = EndpointStore::new(Scope::new(ScopeConfig::default()).unwrap(), config);
        for (id, path) in (1..).zip(paths) {
            store.ingest(&flow(id, path));
        }
        store
    }

    /// Flow `id`: a `GET` of `https://api.shop.test{path}` answered `{"id":1}`.
    pub(crate) fn flow(id: u64, path: &str) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body =
            Body::from_decoded(Some("application/json".into()), br#"{"id":1}"#.to_vec());
        let request = Request::new(
            "GET",
            format!("https://api.shop.test{path}"),
            HttpVersion::Http11,
        );
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        )
        .with_response(response)
    }

    /// The key of the endpoint whose template is `template`.
    pub(crate) fn key_of(store: &EndpointStore, template: &str) -> String {
        store
            .endpoints()
            .iter()
            .find(|e| e.template().to_string() == template)
            .unwrap_or_else(|| panic!("no {template} among {:?}", keys(store)))
            .key()
            .to_string()
    }

    /// Every endpoint's key.
    pub(crate) fn keys(store: &EndpointStore) -> Vec<String> {
        store
            .endpoints()
            .iter()
            .map(|e| e.key().to_string())
            .collect()
    }
}
