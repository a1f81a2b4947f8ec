//! What a drift finds: the kinds of finding, where each was seen, and the flows that show it,
//! accumulated per finding with a bounded list of flow ids.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::method::Method;

/// Flow ids a finding lists; the rest are only counted.
pub const MAX_FLOW_IDS: usize = 20;

/// What kind of departure from the published spec a finding is.
///
/// The order is the order [`DriftReport`](crate::DriftReport) lists them in: endpoints the spec
/// lacks or retired, then the contract broken, then what the spec leaves unsaid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A call to a method and path the spec does not document (a *shadow* endpoint).
    ShadowEndpoint,
    /// A call to an operation the spec marks `deprecated` (a *zombie* endpoint).
    ZombieEndpoint,
    /// An answer with a status the operation does not document (nor a `2XX` range, nor
    /// `default`).
    UndocumentedStatus,
    /// A body in a media type the operation does not document for it (or a body where it
    /// documents none).
    UndocumentedMediaType,
    /// A JSON value whose type the schema does not allow (`null` included, when not nullable).
    WrongType,
    /// A field the schema requires, missing.
    MissingRequiredField,
    /// A required query or header parameter, not sent.
    MissingRequiredParameter,
    /// A query or header parameter sent that the operation does not document.
    UndocumentedParameter,
    /// A JSON field the schema does not list (nor allow through `additionalProperties`).
    UndocumentedField,
}

/// The four groups a report shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Called, not in the spec.
    Shadow,
    /// Called, deprecated in the spec.
    Zombie,
    /// The documented contract broken: a status, media type, type or required element.
    Violation,
    /// Sent or answered, and the spec says nothing about it.
    Undocumented,
}

impl FindingKind {
    /// The kind as its JSON key spells it: `shadow_endpoint`, `wrong_type`, ...
    pub fn id(self) -> &'static str {
        match self {
            FindingKind::ShadowEndpoint => "shadow_endpoint",
            FindingKind::ZombieEndpoint => "zombie_endpoint",
            FindingKind::UndocumentedStatus => "undocumented_status",
            FindingKind::UndocumentedMediaType => "undocumented_media_type",
            FindingKind::WrongType => "wrong_type",
            FindingKind::MissingRequiredField => "missing_required_field",
            FindingKind::MissingRequiredParameter => "missing_required_parameter",
            FindingKind::UndocumentedParameter => "undocumented_parameter",
            FindingKind::UndocumentedField => "undocumented_field",
        }
    }

    /// Its group.
    pub fn category(self) -> Category {
        match self {
            FindingKind::ShadowEndpoint => Category::Shadow,
            FindingKind::ZombieEndpoint => Category::Zombie,
            FindingKind::UndocumentedParameter | FindingKind::UndocumentedField => {
                Category::Undocumented
            }
            FindingKind::UndocumentedStatus
            | FindingKind::UndocumentedMediaType
            | FindingKind::WrongType
            | FindingKind::MissingRequiredField
            | FindingKind::MissingRequiredParameter => Category::Violation,
        }
    }
}

/// Where in an exchange a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Location {
    /// The query string.
    Query,
    /// A request header.
    Header,
    /// The request body.
    RequestBody,
    /// The response (its status, media type or body).
    Response,
}

/// One departure from the spec, with the flows that show it.
///
/// As JSON, a finding is a flat object with these keys (snake_case, stable; a key that does
/// not apply is left out):
///
/// ```text
/// {"kind": "wrong_type", "category": "violation", "method": "GET", "path": "/v1/users/{id}",
///  "location": "response", "status": 200, "name": "$.age", "expected": "integer",
///  "found": ["string"], "message": "...", "flows": 4, "flow_ids": [3, 9, 12, 40]}
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// What it is.
    pub kind: FindingKind,
    /// Its group.
    pub category: Category,
    /// The method called.
    pub method: String,
    /// The operation's full path template in the spec (server base path included); for a
    /// shadow endpoint, the path called, as the caller templated it (or as sent).
    pub path: String,
    /// For a shadow endpoint, the host called, when the URL had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Where in the exchange.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The response status, for a finding about a response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The parameter (a header's in lowercase), the field's place in the body (`$.items[*].id`,
    /// `$` for the body itself), or the media type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the spec says there: the documented type, statuses, media types or methods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What the traffic showed instead, for a wrong type: the JSON types seen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub found: Vec<String>,
    /// One sentence for a reader.
    pub message: String,
    /// How many flows show it.
    pub flows: u64,
    /// The ids of the first [`MAX_FLOW_IDS`] of them, ascending.
    pub flow_ids: Vec<u64>,
}

/// The flows that show one finding: a count and the first ids.
#[derive(Clone, Debug, Default)]
pub(crate) struct FlowIds {
    count: u64,
    first: Vec<u64>,
    last: Option<u64>,
}

impl FlowIds {
    /// Counts flow `id`, once however many times one flow shows the finding.
    pub(crate) fn add(&mut self, id: u64) {
        if self.last == Some(id) {
            return;
        }
        self.last = Some(id);
        self.count += 1;
        if self.first.len() < MAX_FLOW_IDS {
            self.first.push(id);
        }
    }

    /// Both lists' flows (for findings merged when they are reported).
    pub(crate) fn merge(&mut self, other: &FlowIds) {
        self.count += other.count;
        self.first.extend(&other.first);
        self.first.sort_unstable();
        self.first.dedup();
        self.first.truncate(MAX_FLOW_IDS);
    }

    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The ids kept, ascending.
    pub(crate) fn ids(&self) -> Vec<u64> {
        let mut ids = self.first.clone();
        ids.sort_unstable();
        ids
    }
}

/// What identifies a finding on a documented operation: the same kind at the same place of
/// the same operation is one finding, however many flows show it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    pub(crate) path: String,
    pub(crate) method: Method,
    pub(crate) kind: FindingKind,
    pub(crate) location: Option<Location>,
    pub(crate) status: Option<u16>,
    pub(crate) name: String,
}

/// What a finding on a documented operation gathered.
#[derive(Clone, Debug, Default)]
pub(crate) struct Entry {
    pub(crate) expected: Option<String>,
    pub(crate) found: BTreeSet<&'static str>,
    pub(crate) flows: FlowIds,
}

/// One issue the checks of a single exchange raise, before it joins its finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Issue {
    pub(crate) kind: FindingKind,
    pub(crate) location: Location,
    /// The parameter, field path or media type.
    pub(crate) name: String,
    pub(crate) expected: Option<String>,
    pub(crate) found: BTreeSet<&'static str>,
}

impl Issue {
    pub(crate) fn new(kind: FindingKind, location: Location, name: impl Into<String>) -> Issue {
        Issue {
            kind,
            location,
            name: name.into(),
            expected: None,
            found: BTreeSet::new(),
        }
    }

    pub(crate) fn expected(mut self, expected: impl Into<String>) -> Issue {
        self.expected = Some(expected.into());
        self
    }
}

/// The sentence a finding reads as.
pub(crate) fn message(
    kind: FindingKind,
    location: Option<Location>,
    status: Option<u16>,
    name: &str,
    expected: Option<&str>,
    found: &BTreeSet<&'static str>,
) -> String {
    let side = match (location, status) {
        (Some(Location::Response), Some(status)) => format!("response {status}"),
        (Some(Location::Response), None) => "response".to_owned(),
        _ => "request".to_owned(),
    };
    let expected = expected.unwrap_or_default();
    let found = found.iter().copied().collect::<Vec<_>>().join(" | ");
    match kind {
        FindingKind::ShadowEndpoint if expected.is_empty() => {
            "called, but the spec has no such path".to_owned()
        }
        FindingKind::ShadowEndpoint => {
            format!("called, but the spec documents this path for {expected} only")
        }
        FindingKind::ZombieEndpoint => "called, though the spec marks it deprecated".to_owned(),
        FindingKind::UndocumentedStatus => format!(
            "answered {}, not a documented status ({expected})",
            status.unwrap_or_default()
        ),
        FindingKind::UndocumentedMediaType if expected.is_empty() => {
            format!("{side} body in {name}, where the spec documents no body")
        }
        FindingKind::UndocumentedMediaType => {
            format!("{side} body in {name}, not a documented media type ({expected})")
        }
        FindingKind::WrongType if found == "null" => {
            format!("{side} field `{name}` is null; documented {expected}, not nullable")
        }
        FindingKind::WrongType => {
            format!("{side} field `{name}` is {found}; documented {expected}")
        }
        FindingKind::MissingRequiredField => {
            format!("{side} lacks required field `{name}`")
        }
        FindingKind::MissingRequiredParameter => {
            format!("required {} `{name}` not sent", parameter_word(location))
        }
        FindingKind::UndocumentedParameter => {
            format!("{} `{name}` sent, not documented", parameter_word(location))
        }
        FindingKind::UndocumentedField => {
            format!("{side} field `{name}` not documented")
        }
    }
}

fn parameter_word(location: Option<Location>) -> &'static str {
    match location {
        Some(Location::Header) => "header",
        _ => "query parameter",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_ids_count_each_flow_once_and_keep_the_first() {
        let mut ids = FlowIds::default();
        for id in [5, 5, 6].into_iter().chain(100..140) {
            ids.add(id);
        }
        assert_eq!(ids.count(), 42);
        assert_eq!(ids.ids().len(), MAX_FLOW_IDS);
        assert_eq!(ids.ids()[..3], [5, 6, 100]);
        let mut other = FlowIds::default();
        other.add(1);
        ids.merge(&other);
        assert_eq!((ids.count(), ids.ids()[..2].to_vec()), (43, vec![1, 5]));
    }

    #[test]
    fn every_kind_has_its_group_and_sentence() {
        let found: BTreeSet<&str> = ["string"].into();
        let at = Some(Location::Response);
        let say = |kind, name: &str, expected| message(kind, at, Some(200), name, expected, &found);
        assert_eq!(
            say(FindingKind::WrongType, "$.age", Some("integer")),
            "response 200 field `$.age` is string; documented integer"
        );
        assert_eq!(
            say(FindingKind::UndocumentedStatus, "", Some("201, 404")),
            "answered 200, not a documented status (201, 404)"
        );
        assert_eq!(
            message(
                FindingKind::UndocumentedParameter,
                Some(Location::Header),
                None,
                "x-trace",
                None,
                &BTreeSet::new()
            ),
            "header `x-trace` sent, not documented"
        );
        assert_eq!(FindingKind::WrongType.category(), Category::Violation);
        assert_eq!(
            FindingKind::UndocumentedField.category(),
            Category::Undocumented
        );
        assert_eq!(FindingKind::ShadowEndpoint.id(), "shadow_endpoint");
    }
}
