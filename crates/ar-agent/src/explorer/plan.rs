//! Reading a snapshot into things to do: which controls to click, which
//! forms to fill, and what submits each form.
//!
//! Elements are described so they can be found again after a re-render (by
//! role, name and occurrence; a form by its field names), because
//! single-page apps re-render and old refs go stale.

use std::collections::HashSet;
use std::sync::Arc;

use crate::browser::{ElementInfo, Ref, Snapshot};

use super::policy::{digits_to_n, is_dismissal};

/// Roles that do something when clicked and are not form fields.
pub(crate) const CLICKABLE_ROLES: &[&str] = &[
    "button",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "clickable",
    "switch",
    "treeitem",
    "option",
    "row",
    "gridcell",
    "listitem",
    "article",
];

/// Roles of list entries that some apps open only on a double-click.
pub(crate) const ENTRY_ROLES: &[&str] = &[
    "clickable",
    "row",
    "gridcell",
    "treeitem",
    "option",
    "listitem",
    "article",
];

/// Which button a click presses: the main one, or the one that opens an
/// element's context menu (a file's Rename, Duplicate, Delete).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Press {
    #[default]
    Main,
    Context,
}

/// A click that revealed what is planned next (a menu opened for its items,
/// a context menu for its entries); it is clicked again when the item is no
/// longer shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) role: String,
    pub(crate) name: String,
    pub(crate) press: Press,
}

/// One planned action, described so it can be found again after a re-render.
#[derive(Debug, Clone)]
pub(crate) enum Planned {
    Click {
        role: String,
        name: String,
        occurrence: usize,
        /// A main click, or one that opens the element's context menu.
        press: Press,
        /// The list this entry belongs to (its plan batch and list key), if any.
        list: Option<(usize, String)>,
        /// The clicks that revealed it, outermost first.
        via: Vec<Step>,
        /// What the dialogs open when it was planned showed ([`Layers`]).
        layers: Layers,
    },
    Form {
        fingerprint: String,
        label: String,
        via: Vec<Step>,
        layers: Layers,
    },
}

impl Planned {
    pub(crate) fn via(&self) -> &[Step] {
        match self {
            Self::Click { via, .. } | Self::Form { via, .. } => via,
        }
    }

    pub(crate) fn layers(&self) -> &Layers {
        match self {
            Self::Click { layers, .. } | Self::Form { layers, .. } => layers,
        }
    }

    /// Whether two actions were planned in one state of the page: revealed
    /// by the same clicks, from one look at the page (the same dialogs and
    /// tabs shown). An app that never changes its URL is a tree of such
    /// states, each reached by its chain of clicks.
    pub(crate) fn same_state(&self, other: &Planned) -> bool {
        self.via() == other.via() && Arc::ptr_eq(&self.layers().0, &other.layers().0)
    }
}

/// Where a page stood when actions were planned on it, shared by those
/// actions: the controls (role and name) its open dialogs and popup menus
/// showed, and its selected tabs.
///
/// A dialog open when an action's turn comes that shows none of those
/// controls opened since (an error the app raised, a menu an item left
/// open): it stands between a person and the action, and is closed first.
/// One the action was planned in, even grown or re-rendered since, is where
/// the action belongs. A control that is gone because another tab's panel
/// is shown now (a launcher's cards once a document opened over them) is
/// found again by selecting the tabs that were selected.
#[derive(Debug, Clone, Default)]
pub(crate) struct Layers(Arc<LayersOf>);

#[derive(Debug, Default)]
struct LayersOf {
    dialogs: HashSet<(String, String)>,
    tabs: Vec<String>,
}

impl Layers {
    /// Where `snapshot` stands.
    pub(crate) fn of(snapshot: &Snapshot) -> Self {
        let dialogs = (snapshot.elements.iter())
            .filter(|e| e.dialog.is_some() && !e.name.is_empty())
            .map(|e| (e.role.clone(), e.name.clone()))
            .collect();
        let tabs = (snapshot.elements.iter())
            .filter(|e| is_selected_tab(e) && e.href.is_none() && !e.name.is_empty())
            .map(|e| e.name.clone())
            .collect();
        Self(Arc::new(LayersOf { dialogs, tabs }))
    }

    /// The tabs selected then that are shown, but not selected, in `snapshot`.
    pub(crate) fn tabs_to_reselect<'a>(&self, snapshot: &'a Snapshot) -> Vec<&'a ElementInfo> {
        (self.0.tabs.iter())
            .filter_map(|name| {
                (snapshot.elements.iter())
                    .find(|e| e.role == "tab" && e.name == *name && e.checked == Some(false))
            })
            .collect()
    }

    /// The first dialog open in `snapshot` that shows none of these
    /// controls: one that opened after the action was planned.
    pub(crate) fn newer_dialog(&self, snapshot: &Snapshot) -> Option<u32> {
        let mut dialogs: Vec<u32> = snapshot.elements.iter().filter_map(|e| e.dialog).collect();
        dialogs.dedup();
        dialogs.into_iter().find(|&dialog| {
            !(snapshot.elements.iter())
                .filter(|e| e.dialog == Some(dialog))
                .any(|e| (self.0.dialogs).contains(&(e.role.clone(), e.name.clone())))
        })
    }
}

/// Fields that are filled and submitted together: a `<form>`, the fields of
/// a dialog that has no form, or a search field on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldGroup {
    Form(u32),
    Dialog(u32),
    /// A search field on its own (a find bar, a filter box over a list): a
    /// form of one, sent with Enter.
    Search(Ref),
}

impl FieldGroup {
    /// The group an element belongs to as a field, if any.
    pub(crate) fn of(element: &ElementInfo) -> Option<Self> {
        match (element.form, element.dialog) {
            (Some(form), _) => Some(Self::Form(form)),
            (None, Some(dialog)) if is_field(element) => Some(Self::Dialog(dialog)),
            (None, None)
                if element.role == "searchbox"
                    || element.input_type.as_deref() == Some("search") =>
            {
                Some(Self::Search(element.reference))
            }
            _ => None,
        }
    }

    /// The groups of a snapshot, in document order.
    pub(crate) fn all(snapshot: &Snapshot) -> Vec<Self> {
        let mut groups = Vec::new();
        for group in snapshot.elements.iter().filter_map(Self::of) {
            if !groups.contains(&group) {
                groups.push(group);
            }
        }
        groups
    }

    /// The group's members.
    pub(crate) fn members(self, snapshot: &Snapshot) -> Vec<&ElementInfo> {
        snapshot
            .elements
            .iter()
            .filter(|e| Self::of(e) == Some(self))
            .collect()
    }
}

/// Whether the element takes input (not a button).
pub(crate) fn is_field(element: &ElementInfo) -> bool {
    !is_button(element)
        && (matches!(element.tag.as_str(), "input" | "select" | "textarea")
            || element.is_text_field()
            || matches!(
                element.role.as_str(),
                "checkbox" | "radio" | "switch" | "combobox" | "listbox"
            ))
}

pub(crate) fn is_button(element: &ElementInfo) -> bool {
    element.role == "button"
        || matches!(
            element.input_type.as_deref(),
            Some("submit" | "button" | "image" | "reset")
        )
}

/// What submits a group of fields: a submit button in the form; else, for
/// a form in a dialog whose buttons sit outside the form (a modal's footer),
/// the dialog's last button that does not just close it; else the form's
/// last such button. `None`: press Enter in the last text field. The button
/// may be disabled still: many forms enable it once their fields are filled.
pub(crate) fn submit_control<'a>(
    snapshot: &'a Snapshot,
    fields: &[&'a ElementInfo],
    usable: impl Fn(&ElementInfo) -> bool,
) -> Option<&'a ElementInfo> {
    let candidate = |e: &&ElementInfo| {
        is_button(e)
            && e.input_type.as_deref() != Some("reset")
            && !is_dismissal(&e.name)
            && usable(e)
    };
    if let Some(submit) = fields
        .iter()
        .find(|e| candidate(e) && e.input_type.as_deref() == Some("submit"))
    {
        return Some(submit);
    }
    let footer = fields.iter().find_map(|e| e.dialog).and_then(|dialog| {
        snapshot
            .elements
            .iter()
            .rev()
            .filter(|e| e.dialog == Some(dialog) && e.form.is_none())
            .find(|e| candidate(e))
    });
    footer.or_else(|| fields.iter().rev().find(|e| candidate(e)).copied())
}

fn is_selected_tab(element: &ElementInfo) -> bool {
    element.role == "tab" && element.checked == Some(true)
}

/// Controls of one role in one container beyond which they are choices among
/// values (a language picker's 150 languages, a calendar's days, a font
/// menu), not distinct actions: a menu of actions is read at a glance, and
/// stays well under this. So do a site's sections: more pages than this one
/// level below one page are a catalog's entries.
pub(crate) const MANY_CHOICES: usize = 30;

/// The list an element is an entry of, if it is one: an entry role (a row,
/// a tree item, a clickable card) in a repeated container, a control named
/// like others of its container (`Reorder Trace ID column`, `Reorder Time
/// column`), or one of more than [`MANY_CHOICES`] controls of its role in its
/// container. Distinct controls side by side (`GenAI`, `Model training`) are
/// not a list: each does its own thing.
pub(crate) fn list_key(snapshot: &Snapshot, element: &ElementInfo) -> Option<String> {
    let group = element.group?;
    if ENTRY_ROLES.contains(&element.role.as_str()) {
        return Some(format!("{group}"));
    }
    let same_role = snapshot
        .elements
        .iter()
        .filter(|e| e.group == Some(group) && e.role == element.role)
        .count();
    if same_role > MANY_CHOICES {
        return Some(format!("{group}|{}", element.role));
    }
    let template = name_template(&element.name)?;
    let alike = snapshot
        .elements
        .iter()
        .filter(|e| e.group == Some(group) && e.role == element.role)
        .filter(|e| name_template(&e.name).as_deref() == Some(template.as_str()))
        .count();
    (alike > 1).then(|| format!("{group}|{template}"))
}

/// What names of one kind share: the first and last word of a name of three
/// or more words, or the name with its numbers masked (`Page 2`).
fn name_template(name: &str) -> Option<String> {
    let masked = digits_to_n(name);
    let words: Vec<&str> = masked.split_whitespace().collect();
    if words.len() >= 3 {
        return Some(format!("{} … {}", words[0], words[words.len() - 1]));
    }
    (masked != name).then_some(masked)
}

/// A form's identity across re-renders: the kinds of fields and buttons it
/// has, not how many rows of them. A list editor's "Add item" adds a row of
/// the same fields numbered anew (`items_3_name`); the form it leaves is the
/// one it was, not another to submit again.
pub(crate) fn form_fingerprint(fields: &[&ElementInfo]) -> String {
    let kinds: std::collections::BTreeSet<String> =
        fields.iter().map(|e| digits_to_n(&member_key(e))).collect();
    kinds.into_iter().collect::<Vec<_>>().join(",")
}

/// A form member's part of the fingerprint: its field name, else its role and name.
pub(crate) fn member_key(element: &ElementInfo) -> String {
    element
        .field_name
        .clone()
        .unwrap_or_else(|| format!("{}:{}", element.role, element.name))
}

/// The run of consecutive `elements` around the one with ref `at` that are
/// all `alike` (a group of radios, of checkboxes); `None` when `at` is not
/// among them.
pub(crate) fn run_around(
    elements: &[ElementInfo],
    at: Ref,
    alike: impl Fn(&ElementInfo) -> bool,
) -> Option<&[ElementInfo]> {
    let at = elements.iter().position(|e| e.reference == at)?;
    let start = elements[..at]
        .iter()
        .rposition(|e| !alike(e))
        .map_or(0, |i| i + 1);
    let end = elements[at..]
        .iter()
        .position(|e| !alike(e))
        .map_or(elements.len(), |i| at + i);
    Some(&elements[start..end])
}

/// The element a planned click means, in a new snapshot.
pub(crate) fn find_click<'a>(
    snapshot: &'a Snapshot,
    role: &str,
    name: &str,
    occurrence: usize,
) -> Option<&'a ElementInfo> {
    snapshot
        .elements
        .iter()
        .filter(|e| FieldGroup::of(e).is_none() && e.role == role && e.name == name)
        .nth(occurrence)
}

/// The fields of the group a planned form means, in a new snapshot.
pub(crate) fn find_form<'a>(
    snapshot: &'a Snapshot,
    fingerprint: &str,
) -> Option<Vec<&'a ElementInfo>> {
    FieldGroup::all(snapshot)
        .into_iter()
        .map(|group| group.members(snapshot))
        .find(|fields| form_fingerprint(fields) == fingerprint)
}

/// The group a form became after one of its own fields re-rendered it (a
/// choice that asks for other fields): of the groups keeping at least half of
/// its members (`before`, by [`member_key`]), the one keeping the most.
pub(crate) fn find_form_again<'a>(
    snapshot: &'a Snapshot,
    before: &[String],
) -> Option<Vec<&'a ElementInfo>> {
    FieldGroup::all(snapshot)
        .into_iter()
        .map(|group| {
            let members = group.members(snapshot);
            let keys: Vec<String> = members.iter().map(|e| member_key(e)).collect();
            let kept = before.iter().filter(|key| keys.contains(key)).count();
            (kept, members)
        })
        .filter(|(kept, _)| *kept > 0 && kept * 2 >= before.len())
        .min_by_key(|(kept, _)| std::cmp::Reverse(*kept))
        .map(|(_, members)| members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::Ref;

    fn element(n: u32, role: &str, name: &str) -> ElementInfo {
        ElementInfo::new(Ref::new(n), role, name)
    }

    #[test]
    fn a_modal_form_is_submitted_by_its_footer_button_not_cancel() {
        let mut name = element(1, "textbox", "Experiment name");
        name.tag = "input".into();
        name.form = Some(0);
        name.dialog = Some(0);
        let mut cancel = element(2, "button", "Cancel");
        cancel.dialog = Some(0);
        let mut create = element(3, "button", "Create");
        create.dialog = Some(0);
        let mut advanced = element(5, "button", "Advanced settings");
        advanced.input_type = Some("button".into());
        advanced.form = Some(0);
        advanced.dialog = Some(0);
        let mut close = element(4, "button", "Close");
        close.dialog = Some(0);
        let snapshot = Snapshot {
            elements: vec![name.clone(), advanced, cancel, create, close],
            ..Snapshot::default()
        };
        let fields = vec![&snapshot.elements[0], &snapshot.elements[1]];
        let submit = submit_control(&snapshot, &fields, |_| true).unwrap();
        assert_eq!(submit.name, "Create");
        let without_create = submit_control(&snapshot, &fields, |e| e.name != "Create");
        assert_eq!(without_create.unwrap().name, "Advanced settings");
    }

    #[test]
    fn rows_and_alike_controls_are_lists_distinct_controls_are_not() {
        let in_group = |n: u32, role: &str, name: &str| {
            let mut e = element(n, role, name);
            e.group = Some(4);
            e
        };
        let snapshot = Snapshot {
            elements: vec![
                in_group(1, "button", "GenAI"),
                in_group(2, "button", "Model training"),
                in_group(3, "button", "Reorder Trace ID column"),
                in_group(4, "button", "Reorder Time column"),
                in_group(5, "row", "report.csv"),
                in_group(6, "button", "Page 2"),
                in_group(7, "button", "Page 3"),
            ],
            ..Snapshot::default()
        };
        let key = |n: usize| list_key(&snapshot, &snapshot.elements[n]);
        assert_eq!(key(0), None);
        assert_eq!(key(1), None);
        assert_eq!(key(2), key(3));
        assert!(key(2).is_some());
        assert_eq!(key(4).as_deref(), Some("4"));
        assert_eq!(key(5), key(6));
        assert!(key(5).is_some());
    }

    #[test]
    fn dialog_fields_without_a_form_are_one_group() {
        let mut a = element(1, "textbox", "Name");
        a.tag = "input".into();
        a.dialog = Some(1);
        let mut b = element(2, "combobox", "Provider");
        b.dialog = Some(1);
        let mut ok = element(3, "button", "Save");
        ok.dialog = Some(1);
        let snapshot = Snapshot {
            elements: vec![a, b, ok],
            ..Snapshot::default()
        };
        assert_eq!(FieldGroup::all(&snapshot), [FieldGroup::Dialog(1)]);
        let fields = FieldGroup::Dialog(1).members(&snapshot);
        assert_eq!(fields.len(), 2);
        assert_eq!(
            find_form(&snapshot, &form_fingerprint(&fields))
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            find_click(&snapshot, "button", "Save", 0)
                .unwrap()
                .reference,
            Ref::new(3)
        );
    }

    #[test]
    fn a_form_that_asks_for_other_fields_is_found_again_by_those_it_kept() {
        let member = |n: u32, form: u32, field_name: &str| {
            let mut e = element(n, "textbox", field_name);
            e.tag = "input".into();
            e.field_name = Some(field_name.into());
            e.form = Some(form);
            e
        };
        // A search form, and the form being filled: "Text" became "Chat",
        // which asks for messages instead of a template.
        let before: Vec<String> = ["name", "type", "type", "template", "commit"]
            .map(String::from)
            .into();
        let snapshot = Snapshot {
            elements: vec![
                member(1, 0, "q"),
                member(2, 1, "name"),
                member(3, 1, "type"),
                member(4, 1, "type"),
                member(5, 1, "messages.0"),
                member(6, 1, "commit"),
            ],
            ..Snapshot::default()
        };
        let found = find_form_again(&snapshot, &before).expect("found again");
        assert_eq!(
            found
                .iter()
                .map(|e| e.reference.number())
                .collect::<Vec<_>>(),
            [2, 3, 4, 5, 6]
        );
        // A form keeping less than half of the fields is another form.
        let other: Vec<String> = ["q", "sort", "page"].map(String::from).into();
        assert!(find_form_again(&snapshot, &other).is_none());
    }
}
