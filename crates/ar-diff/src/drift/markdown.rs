//! `DRIFT.md`: the counts, then one table per category (shadow endpoints, zombie endpoints,
//! violations, undocumented), each row with the flows that show it.

use std::fmt::Write as _;

use super::finding::{Category, Finding, Location, MAX_FLOW_IDS};
use super::report::DriftReport;

pub(super) fn render(report: &DriftReport) -> String {
    let mut out = String::from("# Drift from the published spec\n\n");
    let summary = report.summary();
    let spec = match report.spec_title() {
        Some(title) => format!("`{}` ({title})", cell(report.spec_name())),
        None => format!("`{}`", cell(report.spec_name())),
    };
    let _ = writeln!(
        out,
        "Traffic held against {spec}: {} flows, {} of them calls to documented operations; \
         {} of {} documented operations called.\n",
        summary.flows,
        summary.flows_matched,
        summary.operations_called,
        summary.operations_documented
    );
    if !report.other_hosts().is_empty() {
        let hosts: Vec<String> = report
            .other_hosts()
            .iter()
            .map(|(host, &flows)| {
                let word = if flows == 1 { "flow" } else { "flows" };
                format!("`{}` ({flows} {word})", cell(host))
            })
            .collect();
        let _ = writeln!(
            out,
            "Flows to hosts the spec's servers do not name are not held against it: {}.\n",
            hosts.join(", ")
        );
    }
    if report.is_empty() {
        out.push_str(
            "No drift: every call was to a documented operation, and the calls and answers kept \
             to what it documents.\n",
        );
        return out;
    }
    let _ = writeln!(out, "**{}.**", report.headline());
    if summary.findings_not_listed > 0 {
        let _ = writeln!(
            out,
            "\n{} more observations of further findings are not listed (the report keeps {} \
             findings).",
            summary.findings_not_listed,
            super::MAX_FINDINGS
        );
    }
    let sections = [
        (
            Category::Shadow,
            "Shadow endpoints",
            "Called, but the spec does not document them.",
        ),
        (
            Category::Zombie,
            "Zombie endpoints",
            "Called, though the spec marks them deprecated.",
        ),
        (
            Category::Violation,
            "Violations",
            "Where requests and answers break what the spec documents.",
        ),
        (
            Category::Undocumented,
            "Undocumented",
            "Parameters and fields the traffic carried that the spec does not list.",
        ),
    ];
    for (category, title, intro) in sections {
        let findings: Vec<&Finding> = report
            .findings()
            .iter()
            .filter(|f| f.category == category)
            .collect();
        if findings.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {title}\n\n{intro}\n");
        match category {
            Category::Shadow | Category::Zombie => {
                out.push_str("| Endpoint | Note | Flows | Flow ids |\n|---|---|---|---|\n");
                for finding in findings {
                    let note = match (&finding.host, category) {
                        (Some(host), Category::Shadow) => {
                            format!("on `{}`; {}", cell(host), cell(&finding.message))
                        }
                        _ => cell(&finding.message),
                    };
                    let _ = writeln!(
                        out,
                        "| `{} {}` | {note} | {} | {} |",
                        finding.method,
                        cell(&finding.path),
                        finding.flows,
                        flow_ids(finding)
                    );
                }
            }
            Category::Violation | Category::Undocumented => {
                out.push_str(
                    "| Operation | Where | Finding | Flows | Flow ids |\n|---|---|---|---|---|\n",
                );
                for finding in findings {
                    let _ = writeln!(
                        out,
                        "| `{} {}` | {} | {} | {} | {} |",
                        finding.method,
                        cell(&finding.path),
                        place(finding),
                        cell(&finding.message),
                        finding.flows,
                        flow_ids(finding)
                    );
                }
            }
        }
    }
    out
}

/// `query`, `header`, `request body`, `response 200`.
fn place(finding: &Finding) -> String {
    match (finding.location, finding.status) {
        (Some(Location::Query), _) => "query".to_owned(),
        (Some(Location::Header), _) => "header".to_owned(),
        (Some(Location::RequestBody), _) => "request body".to_owned(),
        (Some(Location::Response), Some(status)) => format!("response {status}"),
        (Some(Location::Response), None) => "response".to_owned(),
        (None, _) => String::new(),
    }
}

/// `3, 9, 12`, with `…` when more flows show it than are listed.
fn flow_ids(finding: &Finding) -> String {
    let mut text = finding
        .flow_ids
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if finding.flows > finding.flow_ids.len() as u64 {
        let _ = write!(text, ", … (first {MAX_FLOW_IDS})");
    }
    text
}

/// A table cell: `|` escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
