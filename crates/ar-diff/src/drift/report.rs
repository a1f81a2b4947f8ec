//! What a [`Drift`](super::Drift) found, sorted and counted, as markdown (`DRIFT.md`) or JSON
//! (`drift.json`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::finding::{self, Category, Finding, FindingKind};
use super::{Baseline, Drift, Shadow};

/// The version of the JSON layout.
const DRIFT_VERSION: u32 = 1;

/// Everything a drift found.
///
/// As JSON ([`DriftReport::to_json`]):
///
/// ```text
/// {
///   "drift_version": 1,
///   "spec": {"name": "petstore.yaml", "title": "Petstore", "version": "1.0.0"},
///   "summary": {"flows": 120, "flows_matched": 112, "flows_other_hosts": 4,
///               "operations_documented": 15, "operations_called": 12,
///               "shadow_endpoints": 2, "zombie_endpoints": 1, "violations": 3,
///               "undocumented": 4, "findings_not_listed": 0},
///   "other_hosts": {"cdn.example.com": 4},   // left out when there are none
///   "findings": [<finding>...]
/// }
/// ```
///
/// where a finding is the flat object described at [`Finding`]. Findings are sorted by
/// category (shadow, zombie, violation, undocumented), then path, method, kind, location,
/// status and name. Keys are snake_case and stable; `drift_version` grows if one changes
/// meaning.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriftReport {
    drift_version: u32,
    spec: SpecName,
    summary: DriftSummary,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    other_hosts: BTreeMap<String, u64>,
    findings: Vec<Finding>,
}

/// The spec a report holds the traffic against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct SpecName {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
}

/// Counts over a [`DriftReport`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DriftSummary {
    /// Flows held against the spec.
    pub flows: u64,
    /// Flows that called a documented operation.
    pub flows_matched: u64,
    /// Flows to hosts the spec's servers do not name, when they all name one: not held
    /// against the spec.
    pub flows_other_hosts: u64,
    /// Operations the spec documents.
    pub operations_documented: usize,
    /// Documented operations the flows called.
    pub operations_called: usize,
    /// Shadow endpoint findings.
    pub shadow_endpoints: usize,
    /// Zombie endpoint findings.
    pub zombie_endpoints: usize,
    /// Findings of the documented contract broken.
    pub violations: usize,
    /// Findings of parameters and fields the spec does not document.
    pub undocumented: usize,
    /// Observations of findings past [`MAX_FINDINGS`](super::MAX_FINDINGS), not listed.
    pub findings_not_listed: u64,
}

/// The report of `drift`, each shadow group the caller named under the template `current`
/// gives for its key (see [`Drift::report_regrouped`]).
pub(super) fn build(drift: &Drift, current: &dyn Fn(&str) -> Option<String>) -> DriftReport {
    let mut shadows: BTreeMap<(String, Option<String>, String), Shadow> = BTreeMap::new();
    for ((method, group), shadow) in &drift.shadows {
        let path = match shadow.keyed.then(|| current(group)).flatten() {
            Some(path) => path,
            None => shadow.path.clone(),
        };
        let key = (method.clone(), shadow.host.clone(), path.clone());
        match shadows.get_mut(&key) {
            Some(merged) => merged.flows.merge(&shadow.flows),
            None => {
                shadows.insert(
                    key,
                    Shadow {
                        path,
                        ..shadow.clone()
                    },
                );
            }
        }
    }
    let mut findings: Vec<Finding> = shadows
        .into_iter()
        .map(|((method, host, path), shadow)| {
            let expected = (!shadow.documented.is_empty()).then(|| {
                let methods: Vec<&str> = shadow.documented.iter().map(|m| m.as_str()).collect();
                methods.join(", ")
            });
            let message = finding::message(
                FindingKind::ShadowEndpoint,
                None,
                None,
                "",
                expected.as_deref(),
                &BTreeSet::new(),
            );
            Finding {
                kind: FindingKind::ShadowEndpoint,
                category: Category::Shadow,
                method,
                path,
                host,
                location: None,
                status: None,
                name: None,
                expected,
                found: Vec::new(),
                message,
                flows: shadow.flows.count(),
                flow_ids: shadow.flows.ids(),
            }
        })
        .collect();
    findings.extend(drift.findings.iter().map(|(key, entry)| {
        let message = finding::message(
            key.kind,
            key.location,
            key.status,
            &key.name,
            entry.expected.as_deref(),
            &entry.found,
        );
        Finding {
            kind: key.kind,
            category: key.kind.category(),
            method: key.method.as_str().to_owned(),
            path: key.path.clone(),
            host: None,
            location: key.location,
            status: key.status,
            name: (!key.name.is_empty()).then(|| key.name.clone()),
            expected: entry.expected.clone(),
            found: entry.found.iter().map(|&t| t.to_owned()).collect(),
            message,
            flows: entry.flows.count(),
            flow_ids: entry.flows.ids(),
        }
    }));
    let summary = DriftSummary::new(
        &findings,
        drift.flows,
        drift.matched,
        drift.elsewhere.values().sum(),
        drift.baseline.0.operations,
        drift.called.values().map(BTreeSet::len).sum(),
        drift.not_listed,
    );
    DriftReport::new(&drift.baseline, summary, findings, drift.elsewhere.clone())
}

impl DriftSummary {
    pub(super) fn new(
        findings: &[Finding],
        flows: u64,
        flows_matched: u64,
        flows_other_hosts: u64,
        operations_documented: usize,
        operations_called: usize,
        findings_not_listed: u64,
    ) -> DriftSummary {
        let count = |category| findings.iter().filter(|f| f.category == category).count();
        DriftSummary {
            flows,
            flows_matched,
            flows_other_hosts,
            operations_documented,
            operations_called,
            shadow_endpoints: count(Category::Shadow),
            zombie_endpoints: count(Category::Zombie),
            violations: count(Category::Violation),
            undocumented: count(Category::Undocumented),
            findings_not_listed,
        }
    }
}

impl DriftReport {
    /// Sorts the findings.
    pub(super) fn new(
        baseline: &Baseline,
        summary: DriftSummary,
        mut findings: Vec<Finding>,
        other_hosts: BTreeMap<String, u64>,
    ) -> DriftReport {
        findings.sort_by(|a, b| {
            (
                a.category, &a.path, &a.method, a.kind, a.location, a.status, &a.name,
            )
                .cmp(&(
                    b.category, &b.path, &b.method, b.kind, b.location, b.status, &b.name,
                ))
        });
        let info = baseline.document().as_value().get("info");
        let text = |field: &str| {
            info.and_then(|i| i.get(field))
                .and_then(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .filter(|s| !s.trim().is_empty())
        };
        DriftReport {
            drift_version: DRIFT_VERSION,
            spec: SpecName {
                name: baseline.name().to_owned(),
                title: text("title"),
                version: text("version"),
            },
            summary,
            other_hosts,
            findings,
        }
    }

    /// Flows per host the spec's servers do not name (the first 100 hosts by name, the rest
    /// as `(other hosts)`).
    pub fn other_hosts(&self) -> &BTreeMap<String, u64> {
        &self.other_hosts
    }

    /// The counts.
    pub fn summary(&self) -> DriftSummary {
        self.summary
    }

    /// Every finding, sorted.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Whether the traffic kept to the spec: no finding at all.
    pub fn is_empty(&self) -> bool {
        self.findings.is_empty() && self.summary.findings_not_listed == 0
    }

    /// What the report calls the spec (its name as given to the [`Baseline`]).
    pub fn spec_name(&self) -> &str {
        &self.spec.name
    }

    /// `2 shadow endpoints, 1 zombie endpoint, 3 violations, 4 undocumented`, or
    /// `no drift`: the counts in a line.
    pub fn headline(&self) -> String {
        let s = &self.summary;
        if self.findings.is_empty() {
            return "no drift".to_owned();
        }
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        [
            plural(s.shadow_endpoints, "shadow endpoint", "shadow endpoints"),
            plural(s.zombie_endpoints, "zombie endpoint", "zombie endpoints"),
            plural(s.violations, "violation", "violations"),
            format!("{} undocumented", s.undocumented),
        ]
        .join(", ")
    }

    /// The report as pretty-printed JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a report serializes");
        text.push('\n');
        text
    }

    /// The report as markdown (`DRIFT.md`), ending with a newline.
    pub fn to_markdown(&self) -> String {
        super::markdown::render(self)
    }

    /// The title and version of the spec, when it names them (`Petstore 1.0.0`).
    pub(super) fn spec_title(&self) -> Option<String> {
        let title = self.spec.title.as_deref()?;
        Some(match &self.spec.version {
            Some(version) => format!("{title} {version}"),
            None => title.to_owned(),
        })
    }
}
