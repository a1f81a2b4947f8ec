//! Markdown for a pull request: the headline, a table of the breaking changes, and the other
//! changes in a folded table.

use std::fmt::Write as _;

use crate::change::Change;
use crate::report::Report;

pub(super) fn render(report: &Report) -> String {
    let mut out = String::from("## API changes\n\n");
    if report.is_empty() {
        out.push_str("No changes.\n");
        return out;
    }
    let summary = report.summary();
    let _ = writeln!(out, "{}.", super::headline(&summary));
    let rows = |breaking: bool| -> Vec<(String, &Change)> {
        report
            .changes()
            .filter(|(_, change)| change.breaking == breaking)
            .map(|(operation, change)| {
                let place = operation.map_or_else(
                    || "whole API".to_owned(),
                    |o| super::operation_title(o, true),
                );
                (place, change)
            })
            .collect()
    };
    let breaking = rows(true);
    if !breaking.is_empty() {
        out.push_str("\n### Breaking changes\n\n");
        table(&mut out, &breaking);
    }
    let other = rows(false);
    if !other.is_empty() {
        out.push_str("\n### Other changes\n\n");
        let _ = writeln!(
            out,
            "<details><summary>{} {}</summary>\n",
            other.len(),
            if other.len() == 1 {
                "change"
            } else {
                "changes"
            }
        );
        table(&mut out, &other);
        out.push_str("\n</details>\n");
    }
    out
}

fn table(out: &mut String, rows: &[(String, &Change)]) {
    out.push_str("| Operation | Change | Rule |\n|---|---|---|\n");
    for (place, change) in rows {
        let _ = writeln!(
            out,
            "| {} | {} | `{}` |",
            cell(place),
            cell(&change.message),
            change.rule.id()
        );
    }
}

/// A table cell: `|` escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
