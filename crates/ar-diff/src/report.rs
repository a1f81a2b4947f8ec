//! The result of a comparison: the changes per operation, sorted, with counts.

use serde::Serialize;

use crate::change::Change;
use crate::method::Method;

/// The version of the JSON layout.
const REPORT_VERSION: u32 = 1;

/// Every change between two documents.
///
/// As JSON (`serde::Serialize`, [`Report::to_json`]) a report is:
///
/// ```text
/// {
///   "report_version": 1,
///   "summary": {"breaking": 3, "non_breaking": 5, "operations_added": 1,
///               "operations_removed": 1, "operations_changed": 2},
///   "global": [<change>...],            // the document's security
///   "operations": [{
///     "method": "GET", "path": "/api/users/{id}",
///     "old_path": "/api/users/{userId}", // only when it was written differently
///     "status": "added" | "removed" | "changed",
///     "breaking": 1,                    // how many of its changes break
///     "changes": [<change>...]
///   }...]
/// }
/// ```
///
/// where a change is the flat object described at [`Change`]. Keys are snake_case and
/// stable; a key that does not apply is left out. `report_version` grows if a key changes
/// meaning.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    report_version: u32,
    summary: Summary,
    global: Vec<Change>,
    operations: Vec<OperationDiff>,
}

/// Counts over a [`Report`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Changes that break a client.
    pub breaking: usize,
    /// Changes that do not.
    pub non_breaking: usize,
    /// Operations only in the new document.
    pub operations_added: usize,
    /// Operations only in the old document.
    pub operations_removed: usize,
    /// Operations in both, with changes.
    pub operations_changed: usize,
}

/// The changes of one operation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct OperationDiff {
    /// Its method.
    pub method: Method,
    /// Its full path template in the new document (the old one's, if removed).
    pub path: String,
    /// Its full path template in the old document, when written differently (parameter
    /// names, or where the server URL ends and the path begins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// Added, removed or changed.
    pub status: OperationStatus,
    /// How many of its changes break a client.
    pub breaking: usize,
    /// Its changes, operation first, then security, parameters, request body, responses.
    pub changes: Vec<Change>,
}

/// Whether an operation is new, gone, or in both documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OperationStatus {
    /// Only in the new document.
    Added,
    /// Only in the old document.
    Removed,
    /// In both, with changes.
    Changed,
}

impl OperationDiff {
    pub(crate) fn new(
        method: Method,
        path: String,
        old_path: Option<String>,
        status: OperationStatus,
        changes: Vec<Change>,
    ) -> OperationDiff {
        let old_path = old_path.filter(|old| *old != path);
        OperationDiff {
            method,
            path,
            old_path,
            status,
            breaking: changes.iter().filter(|c| c.breaking).count(),
            changes,
        }
    }
}

impl Report {
    /// Sorts the operations by path then method and counts.
    pub(crate) fn new(global: Vec<Change>, mut operations: Vec<OperationDiff>) -> Report {
        operations.sort_by(|a, b| (&a.path, a.method).cmp(&(&b.path, b.method)));
        let mut summary = Summary::default();
        for change in global
            .iter()
            .chain(operations.iter().flat_map(|o| &o.changes))
        {
            if change.breaking {
                summary.breaking += 1;
            } else {
                summary.non_breaking += 1;
            }
        }
        for operation in &operations {
            match operation.status {
                OperationStatus::Added => summary.operations_added += 1,
                OperationStatus::Removed => summary.operations_removed += 1,
                OperationStatus::Changed => summary.operations_changed += 1,
            }
        }
        Report {
            report_version: REPORT_VERSION,
            summary,
            global,
            operations,
        }
    }

    /// Whether any change breaks a client (for `--fail-on breaking`).
    pub fn has_breaking(&self) -> bool {
        self.summary.breaking > 0
    }

    /// Whether the documents describe the same API.
    pub fn is_empty(&self) -> bool {
        self.global.is_empty() && self.operations.is_empty()
    }

    /// The counts.
    pub fn summary(&self) -> Summary {
        self.summary
    }

    /// Changes to the whole API: the document's `security`.
    pub fn global(&self) -> &[Change] {
        &self.global
    }

    /// The operations with changes, sorted by path then method.
    pub fn operations(&self) -> &[OperationDiff] {
        &self.operations
    }

    /// Every change, each with its operation (`None` for the whole API's).
    pub fn changes(&self) -> impl Iterator<Item = (Option<&OperationDiff>, &Change)> {
        self.global.iter().map(|c| (None, c)).chain(
            self.operations
                .iter()
                .flat_map(|o| o.changes.iter().map(move |c| (Some(o), c))),
        )
    }

    /// The report as pretty-printed JSON (see the module documentation for its keys).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self)
            .expect("a report serializes: its map keys are all strings");
        text.push('\n');
        text
    }
}
