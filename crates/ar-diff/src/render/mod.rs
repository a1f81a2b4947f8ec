//! A [`Report`] as text for a terminal, markdown for a pull request, or JSON.

mod markdown;
mod text;

use crate::report::{OperationDiff, OperationStatus, Report, Summary};

/// An output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Plain text, one operation per block, for a terminal (the default).
    #[default]
    Text,
    /// Markdown for a pull request: breaking changes first, the rest folded.
    Markdown,
    /// Pretty-printed JSON with stable snake_case keys (see [`Report`]).
    Json,
}

impl Report {
    /// The report in `format`, ending with a newline.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => text::render(self),
            Format::Markdown => markdown::render(self),
            Format::Json => self.to_json(),
        }
    }
}

/// `3 breaking changes, 5 other changes; operations: 1 added, 1 removed, 2 changed`.
fn headline(summary: &Summary) -> String {
    let mut text = format!(
        "{}, {}",
        count(summary.breaking, "breaking change", "breaking changes"),
        count(summary.non_breaking, "other change", "other changes"),
    );
    let operations: Vec<String> = [
        (summary.operations_added, "added"),
        (summary.operations_removed, "removed"),
        (summary.operations_changed, "changed"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if !operations.is_empty() {
        text.push_str("; operations: ");
        text.push_str(&operations.join(", "));
    }
    text
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `GET /users/{id}`, with `(added)`/`(removed)` and the old path when it differs.
fn operation_title(operation: &OperationDiff, code: bool) -> String {
    let name = format!("{} {}", operation.method, operation.path);
    let mut title = if code { format!("`{name}`") } else { name };
    match operation.status {
        OperationStatus::Added => title.push_str(" (added)"),
        OperationStatus::Removed => title.push_str(" (removed)"),
        OperationStatus::Changed => {}
    }
    if let Some(old) = &operation.old_path {
        if code {
            title.push_str(&format!(" (was `{old}`)"));
        } else {
            title.push_str(&format!(" (was {old})"));
        }
    }
    title
}
