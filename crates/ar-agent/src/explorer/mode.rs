//! An app's mode: a switch among side-by-side options ("GenAI | Model
//! training") that changes which places the navigation offers.
//!
//! Apps keep such a choice (in local storage, a cookie, the account), and
//! some of their own actions change it behind the user's back: starting a
//! demo opens the demo in the other mode. Every page seen after that shows
//! the other mode's view, so the pages only the chosen mode lists (a run of
//! an experiment) are never found. The explorer notices the switch as a
//! person would, by the navigation: the links the choice brought are gone
//! and the ones it took away are back. Then it chooses the option again.

use std::collections::BTreeSet;

use url::Url;

use crate::browser::{ElementInfo, Snapshot};

use super::plan::find_click;
use super::policy::url_shape;

/// The option the explorer chose, and the links choosing it swapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mode {
    pub(super) role: String,
    pub(super) name: String,
    /// Links shown once it was chosen that were not shown before.
    shows: BTreeSet<String>,
    /// Links shown before that it took away.
    hides: BTreeSet<String>,
}

impl Mode {
    /// The mode a click on `control` chose, when the page stayed and the
    /// click swapped links for others while the control and its sibling
    /// options stayed (an exclusive choice, not a menu or a tab's content).
    pub(super) fn chosen_by(
        control: &ElementInfo,
        before: &Snapshot,
        after: &Snapshot,
    ) -> Option<Self> {
        if !matches!(
            control.role.as_str(),
            "button" | "radio" | "switch" | "clickable"
        ) || control.group.is_none()
            || find_click(after, &control.role, &control.name, 0).is_none()
        {
            return None;
        }
        let (was, is) = (links(before), links(after));
        let shows: BTreeSet<String> = is.difference(&was).cloned().collect();
        let hides: BTreeSet<String> = was.difference(&is).cloned().collect();
        // A page of a list swaps links too (`/items/1` for `/items/21`):
        // a mode swaps places of different kinds.
        let page = Url::parse(&after.url).ok()?;
        let shapes = |hrefs: &BTreeSet<String>| -> BTreeSet<String> {
            (hrefs.iter())
                .filter_map(|h| page.join(h).ok())
                .map(|u| url_shape(&u))
                .collect()
        };
        if !shapes(&shows).is_disjoint(&shapes(&hides)) {
            return None;
        }
        (!shows.is_empty() && !hides.is_empty()).then(|| Self {
            role: control.role.clone(),
            name: control.name.clone(),
            shows,
            hides,
        })
    }

    /// The option to click when `snapshot` shows the app switched out of
    /// this mode: none of the links it brought, some it took away, and the
    /// option itself on the page.
    pub(super) fn switched_back<'s>(&self, snapshot: &'s Snapshot) -> Option<&'s ElementInfo> {
        let shown = links(snapshot);
        if !self.shows.is_disjoint(&shown) || self.hides.is_disjoint(&shown) {
            return None;
        }
        find_click(snapshot, &self.role, &self.name, 0)
    }
}

fn links(snapshot: &Snapshot) -> BTreeSet<String> {
    (snapshot.elements.iter())
        .filter_map(|e| e.href.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::Ref;

    fn option(name: &str) -> ElementInfo {
        let mut e = ElementInfo::new(Ref::new(1), "button", name);
        e.group = Some(0);
        e
    }

    fn link(n: u32, href: &str) -> ElementInfo {
        let mut e = ElementInfo::new(Ref::new(n), "link", href);
        e.href = Some(href.to_owned());
        e
    }

    fn page(elements: Vec<ElementInfo>) -> Snapshot {
        Snapshot {
            url: "https://app.test/".into(),
            title: String::new(),
            lines: Vec::new(),
            elements,
            omitted_lines: 0,
        }
    }

    #[test]
    fn an_option_that_swaps_the_navigation_is_a_mode_and_is_seen_switched_back() {
        let choice = option("Model training");
        let genai = page(vec![choice.clone(), link(2, "/prompts"), link(3, "/runs")]);
        let ml = page(vec![choice.clone(), link(2, "/models"), link(3, "/runs")]);
        let mode = Mode::chosen_by(&choice, &genai, &ml).expect("a mode");
        assert!(mode.switched_back(&ml).is_none());
        assert_eq!(
            mode.switched_back(&genai).map(|e| e.name.as_str()),
            Some("Model training")
        );
        // A page without the option or without those links says nothing.
        assert!(
            mode.switched_back(&page(vec![link(2, "/prompts")]))
                .is_none()
        );
        assert!(mode.switched_back(&page(vec![choice.clone()])).is_none());
    }

    #[test]
    fn links_only_added_or_a_lone_control_make_no_mode() {
        let choice = option("More");
        let before = page(vec![choice.clone(), link(2, "/a")]);
        let more = page(vec![choice.clone(), link(2, "/a"), link(3, "/b")]);
        assert!(Mode::chosen_by(&choice, &before, &more).is_none());
        let mut lone = choice.clone();
        lone.group = None;
        let swapped = page(vec![lone.clone(), link(3, "/b")]);
        assert!(Mode::chosen_by(&lone, &before, &swapped).is_none());
    }
}
