//! What counts as new: the explorer spends its budget where actions still
//! teach something, and stops when a run of them has taught nothing.
//!
//! An action is new when it made the page ask its own site for something of a
//! shape not asked before (a method and URL shape: `GET shop.test/api/items/{integer}?page`),
//! or when it showed a control never seen before on the site (a dialog's
//! fields, a menu's items). Re-sorting a table (the same request again) or
//! dragging a column (nothing at all) is not.

use std::collections::HashSet;

use url::Url;

use super::policy::{site_of, url_shape};
use crate::browser::{SentRequest, Snapshot};

/// Roles whose names say what a control does (a row's or link's name is
/// data: a new file name is not a new feature).
const CONTROL_ROLES: &[&str] = &[
    "button",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "checkbox",
    "radio",
    "switch",
    "spinbutton",
    "slider",
];

/// What one action or page load brought that was not seen before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Gain {
    /// Request shapes the site had not been asked for.
    pub(crate) requests: usize,
    /// Controls (role and name) not seen on the site before.
    pub(crate) controls: usize,
}

impl Gain {
    /// Whether anything was new.
    pub(crate) fn any(self) -> bool {
        self.requests > 0 || self.controls > 0
    }
}

/// Everything seen so far on one site.
#[derive(Debug)]
pub(crate) struct Novelty {
    site: String,
    requests: HashSet<String>,
    controls: HashSet<(String, String)>,
    /// The request shapes the last [`Novelty::record`] found new.
    fresh: Vec<String>,
}

impl Novelty {
    pub(crate) fn new(site: &str) -> Self {
        Self {
            site: site.to_owned(),
            requests: HashSet::new(),
            controls: HashSet::new(),
            fresh: Vec::new(),
        }
    }

    /// Distinct request shapes seen on the site.
    pub(crate) fn request_shapes(&self) -> usize {
        self.requests.len()
    }

    /// The request shapes (`GET host/api/items/{integer}?page`) that the
    /// last call to [`Novelty::record`] found new.
    pub(crate) fn fresh_requests(&self) -> &[String] {
        &self.fresh
    }

    /// Records what was sent and shown; returns what was new. A control
    /// named `chosen` (the option just clicked, shown back as the current
    /// value) is the choice's echo and counts for nothing.
    pub(crate) fn record(
        &mut self,
        sent: &[SentRequest],
        shown: Option<&Snapshot>,
        chosen: Option<&str>,
    ) -> Gain {
        let mut gain = Gain::default();
        self.fresh.clear();
        for request in sent.iter().filter(|r| r.is_data()) {
            let Ok(url) = Url::parse(&request.url) else {
                continue;
            };
            if url.host_str().map(site_of).as_deref() != Some(self.site.as_str()) {
                continue;
            }
            let shape = format!("{} {}", request.method, url_shape(&url));
            if self.requests.insert(shape.clone()) {
                self.fresh.push(shape);
                gain.requests += 1;
            }
        }
        for element in shown.map_or(&[][..], |s| &s.elements) {
            if CONTROL_ROLES.contains(&element.role.as_str())
                && !element.name.is_empty()
                && chosen != Some(element.name.as_str())
                && self
                    .controls
                    .insert((element.role.clone(), element.name.clone()))
            {
                gain.controls += 1;
            }
        }
        gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::{ElementInfo, Ref};

    fn sent(method: &str, url: &str, kind: &str) -> SentRequest {
        SentRequest {
            method: method.into(),
            url: url.into(),
            kind: kind.into(),
        }
    }

    #[test]
    fn a_request_shape_is_new_once_and_other_sites_and_assets_do_not_count() {
        let mut novelty = Novelty::new("shop.test");
        let first = novelty.record(
            &[
                sent("GET", "https://api.shop.test/items/1?page=2", "Fetch"),
                sent("GET", "https://shop.test/app.js", "Script"),
                sent("POST", "https://www.google.test/collect", "Ping"),
            ],
            None,
            None,
        );
        assert_eq!(first.requests, 1);
        let again = novelty.record(
            &[sent("GET", "https://api.shop.test/items/7?page=3", "XHR")],
            None,
            None,
        );
        assert!(!again.any(), "the same shape with other values is not new");
        let post = novelty.record(
            &[sent(
                "POST",
                "https://api.shop.test/items/7?page=3",
                "Fetch",
            )],
            None,
            None,
        );
        assert_eq!(post.requests, 1, "another method is");
        assert_eq!(
            novelty.fresh_requests(),
            ["POST api.shop.test/items/{integer}?page"]
        );
        assert_eq!(novelty.request_shapes(), 2);
    }

    #[test]
    fn new_controls_count_but_new_data_does_not() {
        let mut novelty = Novelty::new("shop.test");
        let snapshot = |names: &[(&str, &str)]| Snapshot {
            elements: names
                .iter()
                .map(|(role, name)| ElementInfo::new(Ref::new(1), *role, *name))
                .collect(),
            ..Snapshot::default()
        };
        let dialog = snapshot(&[("textbox", "Folder name"), ("button", "Create folder")]);
        assert_eq!(novelty.record(&[], Some(&dialog), None).controls, 2);
        assert!(!novelty.record(&[], Some(&dialog), None).any());
        let rows = snapshot(&[("link", "report-2024.csv"), ("clickable", "notes.txt")]);
        assert!(!novelty.record(&[], Some(&rows), None).any());
    }

    #[test]
    fn a_choice_shown_back_is_not_a_new_control() {
        let mut novelty = Novelty::new("shop.test");
        let status_bar = |language: &str| Snapshot {
            elements: vec![ElementInfo::new(Ref::new(1), "button", language)],
            ..Snapshot::default()
        };
        novelty.record(&[], Some(&status_bar("Python")), None);
        let chose = novelty.record(&[], Some(&status_bar("Cobol")), Some("Cobol"));
        assert!(!chose.any(), "the picked language on the status bar");
        let other = novelty.record(&[], Some(&status_bar("Rename…")), Some("Cobol"));
        assert_eq!(other.controls, 1, "a control the choice brought");
    }
}
