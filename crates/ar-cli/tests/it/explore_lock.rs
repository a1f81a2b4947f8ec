//! The proxy's lock on destructive requests, end to end (issue #26): the
//! fixture's `/tidy` page sends `DELETE /api/cart/items/stale-item` from its
//! own script, on load and on "Refresh", with no destructive label for the
//! explorer to skip. While the explorer drives, the proxy refuses it: the
//! shop never receives it, the archive keeps it as a refused flow, the turn's
//! line and API.md say so, and the spec does not document it. With
//! `--explore-unsafe` the same DELETE reaches the shop.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

use crate::shop::{Shop, wait_bounded};

const STALE: &str = "/api/cart/items/stale-item";

/// Runs `ar` to its end; its output as text, and whether it succeeded.
fn run(mut command: Command) -> (bool, String) {
    let mut child = command.spawn().expect("ar starts");
    let status = wait_bounded(&mut child, Duration::from_secs(150));
    let Output { stdout, stderr, .. } = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&stdout),
        String::from_utf8_lossy(&stderr)
    );
    (status.success(), text)
}

/// The explorer on `/tidy` (headless, offline), writing to `out`.
fn explore_tidy(shop: &Shop, out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        "--out",
        out.to_str().unwrap(),
        "--explore",
        "--explore-pages",
        "2",
        "--explore-time",
        "30",
        "--no-llm-doc",
    ];
    args.extend_from_slice(extra);
    run(shop.ar_at("/tidy", &args))
}

/// How many `DELETE`s of the stale item the shop answered.
fn deletes_received(shop: &Shop) -> usize {
    let hits = shop.site.hits();
    hits.iter()
        .filter(|h| h.method == "DELETE" && h.path == STALE)
        .count()
}

/// The archived flows for `DELETE` of the stale item.
fn archived_deletes(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("flows.jsonl")).expect("flows.jsonl written");
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("archive lines are JSON"))
        .filter(|entry| {
            entry["request"]["method"] == "DELETE"
                && (entry["request"]["url"].as_str()).is_some_and(|u| u.ends_with(STALE))
        })
        .collect()
}

#[test]
fn a_delete_sent_by_a_page_script_is_refused_while_the_explorer_drives() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("locked");
    let (ok, text) = explore_tidy(&shop, &out, &[]);
    assert!(ok, "{text}");

    let hits = shop.site.hits();
    assert!(
        hits.iter()
            .any(|h| h.method == "GET" && h.path == "/api/cart"),
        "the page's script ran (its read went through): {hits:?}"
    );
    assert_eq!(
        deletes_received(&shop),
        0,
        "the shop saw the DELETE: {hits:?}"
    );

    let refused = archived_deletes(&out);
    assert!(!refused.is_empty(), "the refused DELETE is archived");
    for entry in &refused {
        assert_eq!(entry["_ar"]["client"], "explorer", "{entry}");
        assert_eq!(entry["_ar"]["error"]["kind"], "refused", "{entry}");
        assert!(entry["_ar"].get("response").is_none(), "{entry}");
    }

    assert!(text.contains("done: explorer"), "{text}");
    assert!(
        text.contains(&format!("the proxy refused {} destructive", refused.len()))
            && text.contains(&format!("DELETE {STALE}")),
        "the turn's line names the refusal:\n{text}"
    );
    let api_md = std::fs::read_to_string(out.join("API.md")).unwrap();
    assert!(
        api_md.contains("refused while the explorer drove (destructive, never sent)")
            && api_md.contains(&format!("`DELETE {STALE}`")),
        "{api_md}"
    );
    let yaml = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(
        yaml.contains("  /cart:\n    get:"),
        "the read is documented: {yaml}"
    );
    assert!(
        !yaml.contains("\n    delete:"),
        "a request never sent is no operation: {yaml}"
    );
}

#[test]
fn with_explore_unsafe_the_same_delete_reaches_the_shop() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("unsafe");
    let (ok, text) = explore_tidy(&shop, &out, &["--explore-unsafe"]);
    assert!(ok, "{text}");
    assert!(deletes_received(&shop) >= 1, "{:?}", shop.site.hits());
    assert!(!text.contains("the proxy refused"), "{text}");
    let archived = archived_deletes(&out);
    assert!(!archived.is_empty());
    assert!(
        archived
            .iter()
            .all(|entry| entry["_ar"].get("error").is_none() && entry["response"]["status"] == 404),
        "{archived:?}"
    );
}
