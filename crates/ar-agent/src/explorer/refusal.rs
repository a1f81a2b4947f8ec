//! Reading a form that refused its submission: which of the fields the
//! explorer filled the form now flags.
//!
//! A form that refuses a value says so beside the field ("Temperature must
//! be a number", "Enter a valid URL"), in text that was not there before the
//! submission. Many forms mark nothing else (no `aria-invalid`, no native
//! constraint), so the evidence is where new text appeared, not what it says:
//! any language, any wording.

use std::collections::HashMap;

use super::plan::run_around;
use crate::browser::{ElementInfo, OutlineLine, Ref, Snapshot};

/// The fields among `filled` beside which new text appeared between `before`
/// (the form as submitted) and `after` (the form still shown): text after the
/// field's own line, up to the next element, that was not there before. A
/// field missing from either outline is not judged.
pub(crate) fn flagged(before: &Snapshot, after: &Snapshot, filled: &[Ref]) -> Vec<Ref> {
    filled
        .iter()
        .copied()
        .filter(|&field| {
            let (Some(was), Some(now)) = (beside(before, field), beside(after, field)) else {
                return false;
            };
            let mut seen: HashMap<String, usize> = HashMap::new();
            for line in was {
                *seen.entry(line).or_default() += 1;
            }
            now.into_iter().any(|line| match seen.get_mut(&line) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    false
                }
                _ => true,
            })
        })
        .collect()
}

/// The box to check when a form refuses a group of checkboxes (its message
/// beside `flagged`, one of them): the first enabled box of the run of
/// checkboxes `flagged` stands in, when none of them is checked yet.
pub(crate) fn box_to_check(snapshot: &Snapshot, flagged: Ref) -> Option<&ElementInfo> {
    let run = run_around(&snapshot.elements, flagged, |e| e.role == "checkbox")?;
    if run.iter().any(|e| e.checked == Some(true)) {
        return None;
    }
    run.iter().find(|e| !e.disabled)
}

/// The lines that follow `field`'s line up to the next line with a ref, as
/// text, leaving out the field's own (its value, its placeholder: what the
/// explorer typed is not the form's answer); `None` when the outline does not
/// show the field.
fn beside(snapshot: &Snapshot, field: Ref) -> Option<Vec<String>> {
    let at = snapshot
        .lines
        .iter()
        .position(|line| line.reference == Some(field))?;
    let depth = snapshot.lines[at].depth;
    let after = &snapshot.lines[at + 1..];
    let own = after
        .iter()
        .take_while(|line| line.depth > depth && line.reference.is_none())
        .count();
    Some(
        after[own..]
            .iter()
            .take_while(|line| line.reference.is_none())
            .map(text_of)
            .collect(),
    )
}

/// A line without its indent: what it says, wherever the form nests it.
fn text_of(line: &OutlineLine) -> String {
    let mut flat = line.clone();
    flat.depth = 0;
    flat.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(n: u32, name: &str) -> OutlineLine {
        OutlineLine::new(1, "textbox")
            .name(name)
            .reference(Ref::new(n))
    }

    fn text(value: &str) -> OutlineLine {
        OutlineLine::new(1, "text").value(value)
    }

    fn snapshot(lines: Vec<OutlineLine>) -> Snapshot {
        Snapshot {
            lines,
            ..Snapshot::default()
        }
    }

    #[test]
    fn a_field_is_flagged_by_the_text_that_appeared_beside_it() {
        let before = snapshot(vec![
            text("Name"),
            field(1, "Name"),
            text("Temperature"),
            field(2, "Temperature"),
            text("Top P"),
            field(3, "Top P"),
            OutlineLine::new(0, "button")
                .name("Create")
                .reference(Ref::new(4)),
        ]);
        let after = snapshot(vec![
            text("Name"),
            field(1, "Name"),
            text("Temperature"),
            field(2, "Temperature"),
            OutlineLine::new(0, "text").value("Temperature must be a number >= 0"),
            text("Top P"),
            field(3, "Top P"),
            text("Top P must be a number between 0 and 1"),
            OutlineLine::new(0, "button")
                .name("Create")
                .reference(Ref::new(4)),
        ]);
        let filled = [Ref::new(1), Ref::new(2), Ref::new(3)];
        assert_eq!(
            flagged(&before, &after, &filled),
            [Ref::new(2), Ref::new(3)]
        );
        assert!(flagged(&before, &before, &filled).is_empty());
    }

    #[test]
    fn what_the_field_itself_shows_is_not_the_forms_answer() {
        let typed = |value: &str| {
            snapshot(vec![
                field(1, "Name"),
                OutlineLine::new(2, "text").value(value),
                text("Prompt type:"),
            ])
        };
        let before = typed("Ada Lovelace");
        assert!(flagged(&before, &typed("explorer1"), &[Ref::new(1)]).is_empty());
    }

    #[test]
    fn a_group_of_boxes_gets_its_first_enabled_box_checked_once() {
        let check = |n: u32, name: &str, checked: bool| {
            let mut e = ElementInfo::new(Ref::new(n), "checkbox", name);
            e.checked = Some(checked);
            e
        };
        let mut first = check(2, "Run created", false);
        first.disabled = true;
        let mut snapshot = Snapshot {
            elements: vec![
                ElementInfo::new(Ref::new(1), "switch", "Active"),
                first,
                check(3, "Run deleted", false),
                check(4, "Tag set", false),
                ElementInfo::new(Ref::new(5), "button", "Create"),
            ],
            ..Snapshot::default()
        };
        let to_check = box_to_check(&snapshot, Ref::new(4)).map(|e| e.reference);
        assert_eq!(to_check, Some(Ref::new(3)));
        snapshot.elements[3].checked = Some(true);
        assert!(box_to_check(&snapshot, Ref::new(4)).is_none());
        assert!(box_to_check(&snapshot, Ref::new(9)).is_none());
    }

    #[test]
    fn a_repeated_line_counts_and_a_field_gone_is_not_judged() {
        let before = snapshot(vec![field(1, "Code"), text("Required")]);
        let after = snapshot(vec![field(1, "Code"), text("Required"), text("Required")]);
        assert_eq!(flagged(&before, &after, &[Ref::new(1)]), [Ref::new(1)]);
        let gone = snapshot(vec![text("Saved")]);
        assert!(flagged(&before, &gone, &[Ref::new(1)]).is_empty());
    }
}
