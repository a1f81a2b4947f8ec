//! What the `flows_*` and `doc_status` tools answer, computed from the
//! endpoint store. Everything here is redacted text: bodies are replaced by
//! their shape (`$.items[] object`) in searches, and samples carry redacted
//! headers, URLs and bodies under a byte budget.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use ar_openapi::Redactor;
use ar_schema::ShapeOptions;
use ar_store::store::{Endpoint, EndpointStore, Query};
use ar_store::template::classify_segment;
use ar_store::{Body, Headers};

/// Most endpoints one `flows_search` lists.
const SEARCH_LIMIT: usize = 40;
/// Bytes of shape preview per endpoint in a search.
const SEARCH_SHAPE_BYTES: usize = 300;

/// `flows_search`: matching endpoints with counts and a response shape preview.
pub(crate) fn search(store: &EndpointStore, text: Option<&str>) -> String {
    let query = text.map_or_else(Query::all, Query::text);
    let found = store.search(&query);
    if found.is_empty() {
        let total = store.stats().endpoints;
        return match text {
            Some(q) => format!(
                "no endpoint matches {q:?} ({total} endpoints in all; flows_search with no query lists them)"
            ),
            None => "no endpoints captured yet: act in the browser to make the site call its API"
                .to_owned(),
        };
    }
    let mut out = format!("{} endpoints\n", found.len());
    for endpoint in found.iter().take(SEARCH_LIMIT) {
        let _ = writeln!(out, "{}", headline(endpoint));
        if let Some(shape) = response_shape(endpoint, SEARCH_SHAPE_BYTES) {
            for line in shape.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    if found.len() > SEARCH_LIMIT {
        let _ = writeln!(
            out,
            "... {} more: narrow the query",
            found.len() - SEARCH_LIMIT
        );
    }
    out
}

fn headline(endpoint: &Endpoint) -> String {
    let statuses: Vec<String> = endpoint
        .statuses()
        .iter()
        .map(|(s, n)| format!("{s}x{n}"))
        .collect();
    format!(
        "{}  [{} flows; {}]",
        endpoint.key(),
        endpoint.flow_count(),
        if statuses.is_empty() {
            "no response".to_owned()
        } else {
            statuses.join(" ")
        }
    )
}

/// The shape of the first JSON response body among the samples.
fn response_shape(endpoint: &Endpoint, max_bytes: usize) -> Option<String> {
    endpoint.samples().find_map(|sample| {
        let body = &sample.flow.response.as_ref()?.body;
        let value: serde_json::Value = serde_json::from_slice(&body.bytes).ok()?;
        Some(ar_schema::shape(
            &value,
            &ShapeOptions::default().max_depth(4).max_bytes(max_bytes),
        ))
    })
}

/// Why `flows_get` found nothing: the key and the keys there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyNotFound {
    pub(crate) key: String,
    pub(crate) available: Vec<String>,
}

/// `flows_get`: one endpoint's samples, redacted, within `budget` bytes.
pub(crate) fn get(
    store: &EndpointStore,
    key: &str,
    budget: usize,
    redactor: &Redactor,
) -> Result<String, KeyNotFound> {
    let Some(endpoint) = store.resolve_key(key) else {
        let mut available: Vec<String> = store
            .endpoints()
            .iter()
            .map(|e| e.key().to_string())
            .collect();
        available.sort();
        return Err(KeyNotFound {
            key: key.to_owned(),
            available,
        });
    };
    let mut out = format!("{}\n", headline(endpoint));
    let params: Vec<&str> = endpoint
        .query_params()
        .params
        .keys()
        .map(String::as_str)
        .collect();
    if !params.is_empty() {
        let _ = writeln!(out, "query params seen: {}", params.join(", "));
    }
    let samples: Vec<_> = endpoint.samples().collect();
    let per_body = budget.saturating_sub(out.len()) / (samples.len().max(1) * 2);
    for (shown, sample) in samples.iter().enumerate() {
        let flow = &sample.flow;
        let mut block = format!(
            "\n--- sample (flow {}, {:?})\n{} {}\n",
            flow.id.0,
            flow.client,
            flow.request.method,
            redactor.url(&flow.request.url)
        );
        headers(&mut block, &flow.request.headers, redactor);
        body(
            &mut block,
            "request body",
            &flow.request.body,
            per_body,
            redactor,
        );
        match &flow.response {
            Some(response) => {
                let _ = writeln!(block, "-> {} {}", response.status, response.reason);
                headers(&mut block, &response.headers, redactor);
                body(
                    &mut block,
                    "response body",
                    &response.body,
                    per_body,
                    redactor,
                );
            }
            None => {
                let why = flow.error.as_ref().map_or("", |e| e.message.as_str());
                let _ = writeln!(block, "-> no response {why}");
            }
        }
        if out.len() + block.len() > budget && shown > 0 {
            let _ = writeln!(
                out,
                "\n... {} more samples left out (byte budget {budget})",
                samples.len() - shown
            );
            break;
        }
        out.push_str(&block);
    }
    Ok(out)
}

/// Headers worth a model's attention, values redacted.
pub(crate) fn headers(out: &mut String, headers: &Headers, redactor: &Redactor) {
    for header in headers.iter() {
        let name = header.name.to_ascii_lowercase();
        let interesting = redactor.is_secret_header(&name)
            || name == "content-type"
            || name == "location"
            || name.starts_with("x-")
            || name == "set-cookie";
        if interesting {
            let _ = writeln!(
                out,
                "  {}: {}",
                header.name,
                redactor.header_value(&header.name, &header.value)
            );
        }
    }
}

pub(crate) fn body(out: &mut String, label: &str, body: &Body, budget: usize, redactor: &Redactor) {
    if body.bytes.is_empty() {
        return;
    }
    let text = match serde_json::from_slice::<serde_json::Value>(&body.bytes) {
        Ok(mut value) => {
            redactor.json(&mut value);
            value.to_string()
        }
        Err(_) => match body.text() {
            Some(text) => redactor.text(text).into_owned(),
            None => format!("({} bytes of binary)", body.size),
        },
    };
    let _ = writeln!(
        out,
        "  {label} ({}): {}",
        body.content_type.as_deref().unwrap_or("no type"),
        clip(&text, budget.max(80))
    );
}

/// `text` cut at a char boundary to at most `max` bytes, with a marker.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// `flows_stats`: totals, per host, out of scope.
pub(crate) fn stats(store: &EndpointStore) -> String {
    let stats = store.stats();
    let mut out = format!(
        "{} flows captured, {} in scope, {} out of scope; {} endpoints\n",
        stats.flows, stats.in_scope, stats.out_of_scope, stats.endpoints
    );
    let mut per_host: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    for endpoint in store.endpoints() {
        let entry = per_host.entry(endpoint.host()).or_default();
        entry.0 += 1;
        entry.1 += endpoint.flow_count();
    }
    for (host, (endpoints, flows)) in per_host {
        let _ = writeln!(out, "  {host}: {endpoints} endpoints, {flows} flows");
    }
    let out_of_scope = store.out_of_scope();
    if !out_of_scope.is_empty() {
        let _ = writeln!(out, "left out of the spec (scope_add brings a host in):");
        for entry in out_of_scope.iter().take(20) {
            let _ = writeln!(
                out,
                "  {} ({}): {} flows",
                entry.host,
                entry.reason.as_str(),
                entry.count
            );
        }
    }
    out
}

/// `doc_status`: what the spec holds, what is new since `seen`, open questions.
/// Returns the text and the keys now known (the next call's `seen`).
pub(crate) fn doc_status(
    store: &EndpointStore,
    seen: &BTreeSet<String>,
    annotated: &BTreeSet<String>,
) -> (String, BTreeSet<String>) {
    let endpoints = store.endpoints();
    let keys: BTreeSet<String> = endpoints.iter().map(|e| e.key().to_string()).collect();
    let hosts: BTreeSet<&str> = endpoints.iter().map(|e| e.host()).collect();
    let mut out = format!(
        "the spec holds {} endpoints on {} hosts ({} annotated by you)\n",
        keys.len(),
        hosts.len(),
        annotated.intersection(&keys).count()
    );
    let new: Vec<&String> = keys.difference(seen).collect();
    if new.is_empty() {
        out.push_str("nothing new since you last looked\n");
    } else {
        let _ = writeln!(out, "new since you last looked ({}):", new.len());
        for key in new {
            let _ = writeln!(out, "  + {key}");
        }
    }
    let questions = open_questions(&endpoints);
    if !questions.is_empty() {
        out.push_str("open questions (a second sample would answer them):\n");
        for question in questions.iter().take(15) {
            let _ = writeln!(out, "  ? {question}");
        }
    }
    (out, keys)
}

fn open_questions(endpoints: &[&Endpoint]) -> Vec<String> {
    let mut questions = Vec::new();
    let mut methods: BTreeMap<(&str, String), BTreeSet<&str>> = BTreeMap::new();
    for endpoint in endpoints {
        if endpoint.graphql().is_none() {
            methods
                .entry((endpoint.host(), endpoint.template().to_string()))
                .or_default()
                .insert(endpoint.method());
        }
        if endpoint.concrete_paths().len() == 1
            && let Some(path) = endpoint.concrete_paths().keys().next()
        {
            let template = endpoint.template().to_string();
            let literal: Vec<&str> = template.split('/').collect();
            for (position, segment) in path.split('/').enumerate().filter(|(_, s)| !s.is_empty()) {
                if literal.get(position) != Some(&segment) {
                    continue;
                }
                let looks_like_value = classify_segment(segment).is_some()
                    || (segment.contains('-') && segment.len() > 8);
                if looks_like_value {
                    questions.push(format!(
                        "{}: is \"{segment}\" a parameter? only one value seen; open a sibling (another item) to tell",
                        endpoint.key()
                    ));
                }
            }
        }
        // A GraphQL operation's status says little (errors come back as 200).
        if endpoint.statuses().len() == 1
            && let Some(status) = endpoint.statuses().keys().next()
            && endpoint.method() != "GET"
            && endpoint.graphql().is_none()
        {
            questions.push(format!(
                "{}: only status {status} seen; an invalid input would show the error shape",
                endpoint.key()
            ));
        }
    }
    for ((host, template), seen) in methods {
        if seen.len() == 1 && seen.contains("GET") && template.contains('{') {
            questions.push(format!(
                "{host}{template}: only GET seen; is there an edit or delete action in the UI?"
            ));
        }
    }
    questions
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::scope::Scope;
    use ar_store::store::StoreConfig;
    use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    fn store(urls: &[(&str, &str, u16)]) -> EndpointStore {
        let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
        for (i, (method, url, status)) in urls.iter().enumerate() {
            let mut response = Response::new(*status, HttpVersion::Http11);
            response.body =
                Body::from_decoded(Some("application/json".into()), br#"{"id":1}"#.to_vec());
            let flow = Flow::new(
                FlowId(i as u64),
                Timestamp::from_unix_micros(0),
                Client::Agent,
                Request::new(*method, *url, HttpVersion::Http11),
            )
            .with_response(response);
            store.ingest(&flow);
        }
        store
    }

    #[test]
    fn doc_status_reports_news_once_and_asks_for_second_samples() {
        let store = store(&[
            ("GET", "https://shop.test/api/orders/ord_8f3kQ2", 200),
            ("POST", "https://shop.test/api/cart", 201),
            ("GET", "https://shop.test/api/users/7", 200),
        ]);
        let (text, seen) = doc_status(&store, &BTreeSet::new(), &BTreeSet::new());
        assert!(
            text.contains("the spec holds 3 endpoints on 1 hosts"),
            "{text}"
        );
        assert!(text.contains("new since you last looked (3)"), "{text}");
        assert!(
            text.contains("POST shop.test/api/cart: only status 201 seen"),
            "{text}"
        );
        assert!(text.contains("only GET seen"), "{text}");
        let (again, _) = doc_status(&store, &seen, &BTreeSet::new());
        assert!(
            again.contains("nothing new since you last looked"),
            "{again}"
        );
    }

    #[test]
    fn search_without_matches_says_what_to_do() {
        let store = store(&[("GET", "https://shop.test/api/cart", 200)]);
        let none = search(&store, Some("orders"));
        assert!(
            none.contains("no endpoint matches \"orders\" (1 endpoints in all"),
            "{none}"
        );
        let all = search(&store, None);
        assert!(
            all.starts_with("1 endpoints\nGET shop.test/api/cart  [1 flows; 200x1]\n"),
            "{all}"
        );
        assert!(all.contains("$.id integer"), "{all}");
    }

    #[test]
    fn get_lists_keys_when_missing_and_clips_bodies() {
        let store = store(&[("GET", "https://shop.test/api/cart", 200)]);
        let missing = get(&store, "GET shop.test/api/nope", 1000, &Redactor::new()).unwrap_err();
        assert_eq!(missing.available, ["GET shop.test/api/cart"]);
        assert_eq!(clip("héllo wörld", 2), "h… (12 more bytes)");
    }
}
