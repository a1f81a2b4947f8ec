//! The explorer on the fixture's workspace (issue #26), end to end in real
//! Chromium: each UI pattern that stopped it on real single-page apps, and
//! what the shop's server saw because of it.
//!
//! - a "Toggle sidebar" button, first on the page, that hides the workspace's
//!   own navigation and remembers it: the explorer undoes it, and still
//!   reaches every view the sidebar links to;
//! - an "Actions" menu with a nested "Export" submenu: each item is reached,
//!   the menu reopened for each;
//! - file rows a click only selects: a double-click opens one;
//! - a "New folder" dialog whose "Create folder" button sits outside its
//!   form and checks the name first, and whose form asks for a description
//!   once "Start from" has a choice (rendering itself anew), and refuses a
//!   quota that is not a number with a message beside it: one option is
//!   chosen, the description filled, the refused quota given a number, the
//!   folder created, then viewed;
//! - settings linked from several places with a different `?returnTo=`
//!   inside a hash route: one page, visited once;
//! - "Clear all data" and "Delete" behind confirmations: never sent.

use std::time::Duration;

use crate::shop::{Shop, run_to_success};

#[test]
fn the_explorer_reaches_what_a_person_reaches_in_the_workspace_and_breaks_nothing() {
    let shop = Shop::start();
    let out = tempfile::tempdir().unwrap();
    let mut command = shop.ar_at(
        "/workspace",
        &[
            "--out",
            out.path().to_str().unwrap(),
            "--explore",
            "--explore-pages",
            "14",
            "--explore-time",
            "120",
            "--no-llm-doc",
        ],
    );
    let log = run_to_success(&mut command, Duration::from_secs(240));

    let hits = shop.site.hits();
    let hit = |method: &str, prefix: &str| {
        hits.iter()
            .any(|h| h.method == method && h.path.starts_with(prefix))
    };
    let views = [
        "/api/workspace/activity",
        "/api/workspace/shared",
        "/api/workspace/trash",
    ];
    for view in views {
        assert!(
            hit("GET", view),
            "the sidebar's {view} view was not reached:\n{log}"
        );
    }
    assert!(
        log.contains("undo \"Toggle sidebar\""),
        "the collapsed sidebar was not undone:\n{log}"
    );
    assert!(hit("GET", "/api/workspace/usage"), "menu item:\n{log}");
    assert!(
        hits.iter()
            .any(|h| h.method == "GET" && h.path.starts_with("/api/workspace/export")),
        "the nested submenu's export:\n{log}"
    );
    assert!(
        hits.iter().any(|h| h.method == "GET"
            && h.path.starts_with("/api/workspace/files/")
            && h.path.len() > "/api/workspace/files/".len()),
        "no file was opened by double-click:\n{log}"
    );
    assert!(log.contains("double-click"), "{log}");
    let created = hits
        .iter()
        .position(|h| h.method == "POST" && h.path == "/api/workspace/folders")
        .unwrap_or_else(|| panic!("the dialog's folder was not created:\n{log}"));
    assert!(
        hits[created..]
            .iter()
            .any(|h| h.method == "GET" && h.path.starts_with("/api/workspace/folders/")),
        "the created folder was not viewed:\n{log}"
    );
    // The dialog's form asks for a description only once "Start from" has a
    // choice, and renders itself anew when it gets one.
    let archive = std::fs::read_to_string(out.path().join("flows.jsonl")).expect("the archive");
    assert!(
        archive
            .lines()
            .any(|line| line.contains("\"method\":\"POST\"")
                && line.contains("/api/workspace/folders\"")
                && line.contains("Hello from the ar explorer.")),
        "the folder was created without the description its form asked for:\n{log}"
    );
    assert!(
        log.contains("again, changing what it refused: \"Quota in GB (optional)\" to \"1\""),
        "the quota the form refused was not changed to a number:\n{log}"
    );
    assert!(hit("GET", "/api/workspace/settings"), "{log}");
    let settings_visits = log
        .lines()
        .filter(|l| l.trim_start().starts_with("visit ") && l.contains("#/settings"))
        .count();
    assert!(
        settings_visits <= 1,
        "settings visited once per returnTo ({settings_visits} times):\n{log}"
    );
    assert!(
        !hit("POST", "/api/workspace/clear"),
        "cleared all data:\n{log}"
    );
    assert!(!hit("DELETE", "/api/workspace/"), "deleted a file:\n{log}");
    assert!(log.contains("left untried:"), "{log}");
    assert!(log.contains("\"Clear all data\""), "{log}");
}
