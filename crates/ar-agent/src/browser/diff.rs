//! What changed between two snapshots, as a compact line diff.
//!
//! After an action the agent is shown this instead of the whole page again:
//! a click that opens a menu costs a few lines, not the page. Lines are
//! compared as rendered text, so a changed value or name shows as one line
//! removed and one added. Unchanged runs collapse to a count, with one line of
//! context on each side so the reader can place the change.

use std::fmt;

use super::Snapshot;

/// Above this many cells the middle part is treated as replaced wholesale
/// rather than aligned (keeps the diff O(n) memory on huge pages).
const MAX_ALIGN_CELLS: usize = 4_000_000;

/// The difference between two snapshots; `Display` renders it for a model.
///
/// ```
/// use ar_agent::browser::{diff, OutlineLine, Ref, Snapshot};
///
/// let page = |extra: Option<&str>| Snapshot {
///     url: "https://shop.test/".into(),
///     title: "Shop".into(),
///     lines: [Some("Menu"), extra, Some("Footer")]
///         .into_iter()
///         .flatten()
///         .map(|t| OutlineLine::new(0, "text").value(t))
///         .collect(),
///     ..Snapshot::default()
/// };
/// let d = diff(&page(None), &page(Some("Added to cart")));
/// assert_eq!(d.to_string(), "  - text: Menu\n+ - text: Added to cart\n  - text: Footer\n");
/// assert_eq!(d.changed_lines(), 1);
/// assert!(diff(&page(None), &page(None)).is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotDiff {
    /// `(old, new)` URL when it changed.
    pub url: Option<(String, String)>,
    /// `(old, new)` title when it changed.
    pub title: Option<(String, String)>,
    /// The changed lines with a little context.
    pub lines: Vec<DiffLine>,
}

/// One line of a [`SnapshotDiff`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// Unchanged, shown for context.
    Same(String),
    /// Only in the new snapshot.
    Added(String),
    /// Only in the old snapshot.
    Removed(String),
    /// This many unchanged lines left out.
    Skipped(usize),
}

impl SnapshotDiff {
    /// Whether nothing changed at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.url.is_none() && self.title.is_none() && self.changed_lines() == 0
    }

    /// How many lines were added or removed.
    #[must_use]
    pub fn changed_lines(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, DiffLine::Added(_) | DiffLine::Removed(_)))
            .count()
    }
}

impl fmt::Display for SnapshotDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((old, new)) = &self.url {
            writeln!(f, "url: {old} -> {new}")?;
        }
        if let Some((old, new)) = &self.title {
            writeln!(f, "title: {old} -> {new}")?;
        }
        for line in &self.lines {
            match line {
                DiffLine::Same(text) => writeln!(f, "  {text}")?,
                DiffLine::Added(text) => writeln!(f, "+ {text}")?,
                DiffLine::Removed(text) => writeln!(f, "- {text}")?,
                DiffLine::Skipped(n) => writeln!(f, "  ... {n} unchanged lines")?,
            }
        }
        Ok(())
    }
}

/// The line diff from `old` to `new`: changed lines with one line of context, the rest collapsed to a count.
#[must_use]
pub fn diff(old: &Snapshot, new: &Snapshot) -> SnapshotDiff {
    let old_lines = render(old);
    let new_lines = render(new);
    let ops = align(&old_lines, &new_lines);
    SnapshotDiff {
        url: (old.url != new.url).then(|| (old.url.clone(), new.url.clone())),
        title: (old.title != new.title).then(|| (old.title.clone(), new.title.clone())),
        lines: with_context(ops),
    }
}

fn render(snapshot: &Snapshot) -> Vec<String> {
    snapshot.outline().lines().map(str::to_owned).collect()
}

/// Aligns two line lists: common prefix and suffix, then an LCS of the middle.
fn align(old: &[String], new: &[String]) -> Vec<DiffLine> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let old_mid = &old[prefix..old.len() - suffix];
    let new_mid = &new[prefix..new.len() - suffix];

    let mut ops: Vec<DiffLine> = old[..prefix].iter().cloned().map(DiffLine::Same).collect();
    if (old_mid.len() + 1).saturating_mul(new_mid.len() + 1) > MAX_ALIGN_CELLS {
        ops.extend(old_mid.iter().cloned().map(DiffLine::Removed));
        ops.extend(new_mid.iter().cloned().map(DiffLine::Added));
    } else {
        ops.extend(lcs_ops(old_mid, new_mid));
    }
    ops.extend(
        old[old.len() - suffix..]
            .iter()
            .cloned()
            .map(DiffLine::Same),
    );
    ops
}

fn lcs_ops(old: &[String], new: &[String]) -> Vec<DiffLine> {
    let (n, m) = (old.len(), new.len());
    // table[i][j] = LCS length of old[i..] and new[j..], flattened.
    let width = m + 1;
    let mut table = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * width + j] = if old[i] == new[j] {
                table[(i + 1) * width + j + 1] + 1
            } else {
                table[(i + 1) * width + j].max(table[i * width + j + 1])
            };
        }
    }
    let mut ops = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if old[i] == new[j] {
            ops.push(DiffLine::Same(old[i].clone()));
            i += 1;
            j += 1;
        } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
            ops.push(DiffLine::Removed(old[i].clone()));
            i += 1;
        } else {
            ops.push(DiffLine::Added(new[j].clone()));
            j += 1;
        }
    }
    ops.extend(old[i..].iter().cloned().map(DiffLine::Removed));
    ops.extend(new[j..].iter().cloned().map(DiffLine::Added));
    ops
}

/// Keeps one unchanged line on each side of a change; collapses the rest.
fn with_context(ops: Vec<DiffLine>) -> Vec<DiffLine> {
    let changed: Vec<bool> = ops
        .iter()
        .map(|op| !matches!(op, DiffLine::Same(_)))
        .collect();
    if !changed.contains(&true) {
        return Vec::new();
    }
    let near_change = |i: usize| {
        changed[i] || (i > 0 && changed[i - 1]) || changed.get(i + 1).copied().unwrap_or(false)
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    for (i, op) in ops.into_iter().enumerate() {
        if near_change(i) {
            if skipped > 0 {
                out.push(DiffLine::Skipped(skipped));
                skipped = 0;
            }
            out.push(op);
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 {
        out.push(DiffLine::Skipped(skipped));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::OutlineLine;

    fn page(url: &str, texts: &[&str]) -> Snapshot {
        Snapshot {
            url: url.to_owned(),
            title: "T".to_owned(),
            lines: texts
                .iter()
                .map(|t| OutlineLine::new(0, "text").value(*t))
                .collect(),
            ..Snapshot::default()
        }
    }

    #[test]
    fn far_away_unchanged_lines_collapse_to_a_count() {
        let old = page("u", &["a", "b", "c", "d", "e", "f"]);
        let new = page("u", &["a", "b", "c", "d", "E", "f"]);
        assert_eq!(
            diff(&old, &new).to_string(),
            "  ... 3 unchanged lines\n  - text: d\n- - text: e\n+ - text: E\n  - text: f\n"
        );
    }

    #[test]
    fn navigation_shows_the_url_change() {
        let d = diff(&page("https://a/1", &["x"]), &page("https://a/2", &["y"]));
        assert!(
            d.to_string()
                .starts_with("url: https://a/1 -> https://a/2\n")
        );
        assert_eq!(d.changed_lines(), 2);
    }

    proptest::proptest! {
        /// Law: the kept and added lines, in order, are exactly the new
        /// outline; the kept and removed lines are exactly the old one.
        #[test]
        fn the_diff_rebuilds_both_sides(
            old in proptest::collection::vec(0u8..6, 0..40),
            new in proptest::collection::vec(0u8..6, 0..40),
        ) {
            let lines = |v: &[u8]| -> Vec<String> { v.iter().map(|n| format!("- text: {n}")).collect() };
            let (old, new) = (lines(&old), lines(&new));
            let ops = align(&old, &new);
            let side = |keep: fn(&DiffLine) -> Option<&String>| -> Vec<String> {
                ops.iter().filter_map(keep).cloned().collect()
            };
            let rebuilt_new = side(|op| match op {
                DiffLine::Same(t) | DiffLine::Added(t) => Some(t),
                _ => None,
            });
            let rebuilt_old = side(|op| match op {
                DiffLine::Same(t) | DiffLine::Removed(t) => Some(t),
                _ => None,
            });
            proptest::prop_assert_eq!(rebuilt_new, new);
            proptest::prop_assert_eq!(rebuilt_old, old);
        }
    }

    #[test]
    fn applying_the_diff_gives_the_new_outline() {
        let old = page("u", &["a", "x", "b", "c", "y", "d"]);
        let new = page("u", &["a", "b", "z", "c", "d", "w"]);
        let ops = align(&render(&old), &render(&new));
        let rebuilt: Vec<&String> = ops
            .iter()
            .filter_map(|op| match op {
                DiffLine::Same(t) | DiffLine::Added(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(rebuilt, render(&new).iter().collect::<Vec<_>>());
        let unchanged = ops
            .iter()
            .filter(|op| matches!(op, DiffLine::Same(_)))
            .count();
        assert_eq!(unchanged, 4, "a, b, c, d are kept");
    }
}
