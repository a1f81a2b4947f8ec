//! Query and header parameters: which names were sent, how often, and what
//! type their values had, so the spec can say `integer`, `required: true`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::fold::with_lowercase;

/// At most this many distinct names are tracked per endpoint and location;
/// beyond it (e.g. a cache-buster with a random name) new names are counted only.
pub(crate) const MAX_PARAMS: usize = 64;

/// Request headers that every client sends and that document nothing about
/// the API (plus credentials, which become security schemes instead).
pub(crate) fn is_boring_header(lower: &str) -> bool {
    lower.starts_with(':')
        || lower.starts_with("sec-")
        || lower.starts_with("accept")
        || lower.starts_with("if-")
        || lower.starts_with("access-control-")
        || lower.starts_with("proxy-")
        || lower.starts_with("x-forwarded-")
        || matches!(
            lower,
            "host"
                | "user-agent"
                | "connection"
                | "keep-alive"
                | "content-length"
                | "content-type"
                | "content-encoding"
                | "transfer-encoding"
                | "te"
                | "trailer"
                | "upgrade"
                | "cookie"
                | "authorization"
                | "origin"
                | "referer"
                | "cache-control"
                | "pragma"
                | "dnt"
                | "priority"
                | "purpose"
                | "expect"
                | "range"
                | "via"
                | "upgrade-insecure-requests"
                | "x-requested-with"
                | "save-data"
                | "device-memory"
                | "dpr"
                | "viewport-width"
                | "rtt"
                | "downlink"
                | "ect"
                | "sec-gpc"
                | "x-real-ip"
                | "forwarded"
        )
}

/// Response headers that every server or CDN sends and that say nothing about
/// the API (transport, caching, security policies, tracing of the edge);
/// what is left (`Location`, `Link`, `ETag`, `Retry-After`, `X-Total-Count`,
/// rate limits, request ids) is documented per response.
pub(crate) fn is_boring_response_header(lower: &str) -> bool {
    lower.starts_with(':')
        || lower.starts_with("access-control-")
        || lower.starts_with("cross-origin-")
        || lower.starts_with("content-security-policy")
        || lower.starts_with("proxy-")
        || lower.starts_with("cf-")
        || lower.starts_with("x-amz-cf-")
        || lower.starts_with("x-envoy-")
        || lower.starts_with("x-cache")
        || matches!(
            lower,
            "date"
                | "server"
                | "age"
                | "expires"
                | "pragma"
                | "vary"
                | "via"
                | "connection"
                | "keep-alive"
                | "transfer-encoding"
                | "trailer"
                | "upgrade"
                | "content-length"
                | "content-type"
                | "content-encoding"
                | "accept-ranges"
                | "alt-svc"
                | "cache-control"
                | "strict-transport-security"
                | "x-content-type-options"
                | "x-frame-options"
                | "x-xss-protection"
                | "x-dns-prefetch-control"
                | "x-download-options"
                | "x-permitted-cross-domain-policies"
                | "referrer-policy"
                | "permissions-policy"
                | "feature-policy"
                | "origin-agent-cluster"
                | "expect-ct"
                | "report-to"
                | "reporting-endpoints"
                | "nel"
                | "server-timing"
                | "timing-allow-origin"
                | "x-powered-by"
                | "x-aspnet-version"
                | "x-served-by"
                | "x-timer"
                | "p3p"
        )
}

/// Evidence about one parameter's values.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ParamStats {
    /// The name as first seen (headers keep their case).
    pub(crate) name: String,
    /// Flows in which it was present.
    pub(crate) present: u64,
    ints: u64,
    numbers: u64,
    bools: u64,
    uuids: u64,
    dates: u64,
    date_times: u64,
    strings: u64,
    /// The first value seen, already redacted by the caller.
    pub(crate) example: Option<String>,
    /// Whether the name was sent more than once in one request (`tag=a&tag=b`).
    pub(crate) repeated: bool,
    /// The number its [`ParamSet`] gave the last flow that sent it (0: none
    /// yet), so a name sent twice in one flow is told apart without a
    /// per-flow set of names.
    last_flow: u64,
    /// The distinct values sent, while they are few and short (`None` once
    /// there were more): a response field holding only these values echoes
    /// the request ([`crate::echo`]). Never written out.
    values: Option<Vec<Box<str>>>,
}

/// Distinct values remembered per parameter for [`ParamStats::sent`].
const MAX_VALUES_TRACKED: usize = 16;
/// Longest value remembered for [`ParamStats::sent`] (an enum value is short).
const MAX_VALUE_BYTES: usize = 64;

impl ParamStats {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            values: Some(Vec::new()),
            ..Self::default()
        }
    }

    /// The distinct values sent, if they were few and short.
    pub(crate) fn sent(&self) -> Option<&[Box<str>]> {
        self.values.as_deref()
    }

    fn remember(&mut self, raw: &str) {
        let Some(values) = &mut self.values else {
            return;
        };
        if values.iter().any(|v| **v == *raw) {
            return;
        }
        if raw.len() > MAX_VALUE_BYTES || values.len() >= MAX_VALUES_TRACKED {
            self.values = None;
        } else {
            values.push(raw.into());
        }
    }

    /// Records one value. `shown` gives the value as it may appear in output
    /// (redacted); it is called only for the first value, the one kept as
    /// the example, so later flows pay nothing for redaction.
    pub(crate) fn observe(&mut self, raw: &str, shown: impl FnOnce() -> String) {
        self.strings += 1;
        match classify(raw) {
            Kind::Int => self.ints += 1,
            Kind::Number => self.numbers += 1,
            Kind::Bool => self.bools += 1,
            Kind::Uuid => self.uuids += 1,
            Kind::Date => self.dates += 1,
            Kind::DateTime => self.date_times += 1,
            Kind::Text => {}
        }
        if self.example.is_none() {
            self.example = Some(shown());
        }
        self.remember(raw);
    }

    /// Adds another endpoint's evidence (when the store merges endpoints).
    pub(crate) fn merge(&mut self, other: &ParamStats) {
        self.present += other.present;
        self.ints += other.ints;
        self.numbers += other.numbers;
        self.bools += other.bools;
        self.uuids += other.uuids;
        self.dates += other.dates;
        self.date_times += other.date_times;
        self.strings += other.strings;
        self.repeated |= other.repeated;
        if self.example.is_none() {
            self.example.clone_from(&other.example);
        }
        match &other.values {
            Some(values) => values.iter().for_each(|v| self.remember(v)),
            None => self.values = None,
        }
    }

    /// The OpenAPI schema of the values: the narrowest type every value fits.
    pub(crate) fn schema(&self) -> Value {
        let all = self.strings;
        let item = if all == 0 {
            json!({"type": "string"})
        } else if self.ints == all {
            json!({"type": "integer"})
        } else if self.ints + self.numbers == all {
            json!({"type": "number"})
        } else if self.bools == all {
            json!({"type": "boolean"})
        } else if self.uuids == all {
            json!({"type": "string", "format": "uuid"})
        } else if self.dates == all {
            json!({"type": "string", "format": "date"})
        } else if self.date_times == all {
            json!({"type": "string", "format": "date-time"})
        } else {
            json!({"type": "string"})
        };
        if self.repeated {
            json!({"type": "array", "items": item})
        } else {
            item
        }
    }

    /// [`Self::schema`] for a request header: a date there is an API
    /// version (`Plaid-Version: 2020-09-14`, `Notion-Version: 2022-06-28`),
    /// an identifier sent as written rather than a date to compute with, so
    /// it stays a plain string (client generators also refuse date-typed
    /// headers: openapi-python-client leaves such operations out).
    pub(crate) fn header_schema(&self) -> Value {
        let mut schema = self.schema();
        let item = if schema.get("items").is_some() {
            &mut schema["items"]
        } else {
            &mut schema
        };
        if let Some(map) = item.as_object_mut()
            && matches!(
                map.get("format").and_then(Value::as_str),
                Some("date" | "date-time")
            )
        {
            map.remove("format");
        }
        schema
    }

    /// The example as a typed JSON value (`2` rather than `"2"` for integers).
    pub(crate) fn example_value(&self) -> Option<Value> {
        let example = self.example.as_deref()?;
        let schema = self.schema();
        let typed = match schema.get("type").and_then(Value::as_str) {
            Some("integer") => example.parse::<i64>().ok().map(Value::from),
            Some("number") => example
                .parse::<f64>()
                .ok()
                .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number)),
            Some("boolean") => example.parse::<bool>().ok().map(Value::from),
            Some("array") => Some(json!([example])),
            _ => Some(Value::from(example)),
        };
        typed.or_else(|| Some(Value::from(example)))
    }
}

/// Parameters of one location (query or header), keyed by lowercase name.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ParamSet {
    pub(crate) params: BTreeMap<String, ParamStats>,
    /// Names not tracked because `MAX_PARAMS` was reached.
    pub(crate) overflow: u64,
    /// Flows observed: numbers them for [`ParamStats`]'s `last_flow`.
    flows: u64,
}

impl ParamSet {
    /// Records the parameters of one flow: `(name, raw value)` pairs, with
    /// `shown(name, raw value)` giving a value as it may appear in output.
    pub(crate) fn observe<'a>(
        &mut self,
        values: impl IntoIterator<Item = (&'a str, &'a str)>,
        case_sensitive: bool,
        shown: impl Fn(&str, &str) -> String,
    ) {
        self.flows += 1;
        for (name, raw) in values {
            if case_sensitive {
                self.observe_one(name, name, raw, &shown);
            } else {
                with_lowercase(name, |key| self.observe_one(key, name, raw, &shown));
            }
        }
    }

    /// Records one value of the parameter `name`, tracked under `key`.
    fn observe_one(
        &mut self,
        key: &str,
        name: &str,
        raw: &str,
        shown: &impl Fn(&str, &str) -> String,
    ) {
        if !self.params.contains_key(key) {
            if self.params.len() >= MAX_PARAMS {
                self.overflow += 1;
                return;
            }
            self.params.insert(key.to_string(), ParamStats::new(name));
        }
        let Some(stats) = self.params.get_mut(key) else {
            return;
        };
        stats.observe(raw, || shown(name, raw));
        if stats.last_flow == self.flows {
            stats.repeated = true;
        } else {
            stats.last_flow = self.flows;
            stats.present += 1;
        }
    }

    pub(crate) fn merge(&mut self, other: &ParamSet) {
        for (key, stats) in &other.params {
            let len = self.params.len();
            match self.params.get_mut(key) {
                Some(mine) => mine.merge(stats),
                None if len < MAX_PARAMS => {
                    // Its flow numbers are the other set's: start afresh here.
                    let stats = ParamStats {
                        last_flow: 0,
                        ..stats.clone()
                    };
                    self.params.insert(key.clone(), stats);
                }
                None => self.overflow += 1,
            }
        }
        self.overflow += other.overflow;
    }
}

enum Kind {
    Int,
    Number,
    Bool,
    Uuid,
    Date,
    DateTime,
    Text,
}

fn classify(value: &str) -> Kind {
    let bytes = value.as_bytes();
    if !value.is_empty()
        && value.len() <= 18
        && value.parse::<i64>().is_ok()
        && !(value.len() > 1 && value.starts_with('0'))
    {
        return Kind::Int;
    }
    if value.parse::<f64>().is_ok_and(f64::is_finite)
        && value.bytes().any(|b| b == b'.')
        && !value.starts_with('.')
    {
        return Kind::Number;
    }
    if value == "true" || value == "false" {
        return Kind::Bool;
    }
    if bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
    {
        return Kind::Uuid;
    }
    let is_date = |d: &[u8]| {
        d.len() == 10
            && d[4] == b'-'
            && d[7] == b'-'
            && d.iter()
                .enumerate()
                .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit())
    };
    if is_date(bytes) {
        return Kind::Date;
    }
    if bytes.len() >= 19 && is_date(&bytes[..10]) && (bytes[10] == b'T' || bytes[10] == b't') {
        return Kind::DateTime;
    }
    Kind::Text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observe(set: &mut ParamSet, pairs: &[(&str, &str)]) {
        set.observe(pairs.iter().copied(), true, |_, v| v.to_string());
    }

    #[test]
    fn types_narrow_to_what_every_value_fits() {
        let mut set = ParamSet::default();
        observe(
            &mut set,
            &[("page", "1"), ("q", "shoes"), ("since", "2024-01-02")],
        );
        observe(&mut set, &[("page", "2"), ("q", "42"), ("price", "9.5")]);
        assert_eq!(set.params["page"].schema(), json!({"type": "integer"}));
        assert_eq!(set.params["page"].present, 2);
        assert_eq!(set.params["q"].schema(), json!({"type": "string"}));
        assert_eq!(
            set.params["since"].schema(),
            json!({"type": "string", "format": "date"})
        );
        assert_eq!(set.params["price"].schema(), json!({"type": "number"}));
        assert_eq!(set.params["page"].example_value(), Some(json!(1)));
    }

    #[test]
    fn repeated_names_become_arrays_and_leading_zeros_stay_strings() {
        let mut set = ParamSet::default();
        observe(&mut set, &[("tag", "a"), ("tag", "b"), ("zip", "01234")]);
        assert_eq!(
            set.params["tag"].schema(),
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(set.params["tag"].present, 1);
        assert_eq!(set.params["zip"].schema(), json!({"type": "string"}));
    }

    #[test]
    fn names_are_bounded() {
        let mut set = ParamSet::default();
        for i in 0..(MAX_PARAMS + 10) {
            let name = format!("p{i}");
            observe(&mut set, &[(name.as_str(), "1")]);
        }
        assert_eq!(set.params.len(), MAX_PARAMS);
        assert_eq!(set.overflow, 10);
    }
}
