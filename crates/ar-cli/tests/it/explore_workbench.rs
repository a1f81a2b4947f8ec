//! The explorer on the fixture's workbench (issue #46), end to end in real
//! Chromium: a desktop-like app whose URL never changes, where every view
//! opens as a panel: a menu bar of popup menus (with submenus), a launcher of
//! cards without roles, a file tree whose rows a double-click opens and a
//! right-click gives a context menu, dock tabs with toolbars, dialogs and a
//! command palette. Every route is reachable only through its control.
//!
//! With the default budget the explorer reaches every route that is not
//! destructive, leaves the destructive ones alone (Shut Down, Clear All
//! Outputs, Interrupt and Restart Kernel, Disable, Delete), and says how much
//! of its budget it used and why it stopped.

use std::time::Duration;

use ar_fixtures::{WORKBENCH_ENDPOINTS, WORKBENCH_HOST};

use crate::shop::{Shop, run_to_success};

#[test]
fn the_explorer_reaches_every_panel_of_a_desktop_like_app_and_breaks_nothing() {
    let shop = Shop::start();
    let out = tempfile::tempdir().unwrap();
    let url = format!("https://{WORKBENCH_HOST}:{}/", shop.port());
    let mut command = shop.ar_on(
        &url,
        &[
            "--out",
            out.path().to_str().unwrap(),
            "--explore",
            "--no-llm-doc",
        ],
    );
    let log = run_to_success(&mut command, Duration::from_secs(300));

    let hits = shop.site.hits();
    let reached = |endpoint: &ar_fixtures::Endpoint| {
        hits.iter()
            .any(|h| endpoint.matches(&h.method, &h.host, &h.path))
    };
    let missed: Vec<String> = WORKBENCH_ENDPOINTS
        .iter()
        .filter(|e| !e.destructive && !reached(e))
        .map(ar_fixtures::Endpoint::key)
        .collect();
    assert!(missed.is_empty(), "routes never reached: {missed:?}\n{log}");
    let broken: Vec<String> = WORKBENCH_ENDPOINTS
        .iter()
        .filter(|e| e.destructive && reached(e))
        .map(ar_fixtures::Endpoint::key)
        .collect();
    assert!(
        broken.is_empty(),
        "destructive routes sent: {broken:?}\n{log}"
    );

    // The run says what it spent and why it stopped, and names what it left.
    assert!(log.contains(" s of 180 s, "), "{log}");
    assert!(log.contains("left untried:"), "{log}");
    for destructive in ["Shut Down", "Restart Kernel"] {
        assert!(
            log.lines()
                .any(|l| l.contains("destructive") && l.contains(destructive)),
            "{destructive} was not named as left alone:\n{log}"
        );
    }
    // A context menu was opened on a file, and the launcher's role-less cards clicked.
    assert!(log.contains("open the context menu of"), "{log}");
}
