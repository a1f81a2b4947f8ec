//! Plain text for a terminal: a headline, then one block per operation, each change on a
//! line marked `breaking` or left blank, with the rule that decided in brackets.

use std::fmt::Write as _;

use crate::change::Change;
use crate::report::Report;

pub(super) fn render(report: &Report) -> String {
    if report.is_empty() {
        return "No changes.\n".to_owned();
    }
    let mut out = String::new();
    let _ = writeln!(out, "{}", super::headline(&report.summary()));
    if !report.global().is_empty() {
        out.push_str("\nWhole API\n");
        lines(&mut out, report.global());
    }
    for operation in report.operations() {
        let _ = writeln!(out, "\n{}", super::operation_title(operation, false));
        lines(&mut out, &operation.changes);
    }
    out
}

fn lines(out: &mut String, changes: &[Change]) {
    for change in changes {
        let mark = if change.breaking { "breaking" } else { "" };
        let _ = writeln!(
            out,
            "  {mark:<8}  {}  [{}]",
            change.message,
            change.rule.id()
        );
    }
}
