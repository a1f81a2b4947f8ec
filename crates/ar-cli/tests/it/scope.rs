//! `scope_add` / `scope_remove` inside a live `ar <url>` session: the mock
//! LLM takes a host out of scope and puts it back, and the flows captured
//! before each change are documented again under the new scope (the spec
//! loses the host's paths, then gets them back) without a restart, while
//! `session.json` records the scope for `--resume` and no endpoint is named
//! twice by the enrichment worker.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ar_fixtures::API_HOST;
use ar_mock_llm::{MockLlm, Reply};
use serde_json::json;

use super::shop::Shop;

const NAMER: &str = "You name HTTP API endpoints";

/// Answers enrichment calls with a name made from the key (by content, so
/// their order does not matter); `None` for the agent's calls.
pub(crate) fn name_endpoints(request: &ar_mock_llm::RecordedRequest) -> Option<Reply> {
    if !request.json()["system"].to_string().contains(NAMER) {
        return None;
    }
    let text = request.last_user_text();
    let key = text
        .lines()
        .next()?
        .trim_start_matches("endpoint: ")
        .to_owned();
    let id: String = key.chars().filter(char::is_ascii_alphanumeric).collect();
    Some(Reply::text(
        json!({"operationId": format!("named{id}"), "summary": format!("Mock summary of {key}"),
               "description": "Named by the mock LLM.", "tag": "mock"})
        .to_string(),
    ))
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_default()
}

#[test]
fn scope_tools_redocument_what_was_captured_without_a_restart() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // What was on disk when the agent's next call arrived after each change.
    let seen: Arc<Mutex<BTreeMap<&'static str, (String, String)>>> = Arc::default();
    {
        let seen = Arc::clone(&seen);
        let out = out.clone();
        mock.respond_with(move |request| {
            if let Some(reply) = name_endpoints(request) {
                return Some(reply);
            }
            let body = &request.body;
            let step = if body.contains("is in scope now") {
                "added"
            } else if body.contains("is out of scope now") {
                "removed"
            } else {
                return None;
            };
            seen.lock().unwrap().entry(step).or_insert_with(|| {
                (
                    read(out.join("openapi.yaml")),
                    read(out.join("session.json")),
                )
            });
            None
        });
    }
    mock.push_all([
        // The product page calls the partner API on api.shop.test (same site: in scope).
        Reply::tool(
            "s1",
            "browser_navigate",
            json!({"url": shop.url("/products/101")}),
        ),
        Reply::tool("s2", "scope_remove", json!({"host": API_HOST})),
        Reply::tool("s3", "scope_add", json!({"host": API_HOST})),
        Reply::text("The partner API is documented again.\nINTENT COVERED"),
    ]);
    let child = shop
        .ar_with_llm(&out, &mock, &["--intent", "map the product page"])
        .spawn()
        .unwrap();
    let (ok, text) = super::shop::finished(child, Duration::from_secs(120));
    assert!(ok, "{text}");
    assert!(
        text.contains("scope: api.shop.test is out of scope now"),
        "{text}"
    );
    assert!(
        text.contains("scope: api.shop.test is in scope now"),
        "{text}"
    );

    let seen = seen.lock().unwrap();
    // The partner API's paths are `/v1/recommendations`, or `/recommendations` under a
    // `https://api.shop.test:PORT/v1` server when every captured path of it starts with `/v1`.
    // After scope_remove: the partner API's paths left the spec at once, the shop's stayed.
    let (spec, manifest) = &seen["removed"];
    assert!(!spec.contains("/recommendations:"), "{spec}");
    assert!(spec.contains("/api/products/{"), "{spec}");
    let manifest: serde_json::Value = serde_json::from_str(manifest).unwrap();
    assert_eq!(manifest["out_of_scope"], json!([API_HOST]), "{manifest}");
    // After scope_add: back, from the flows captured before (no new browsing).
    let (spec, manifest) = &seen["added"];
    assert!(spec.contains("/recommendations:"), "{spec}");
    let manifest: serde_json::Value = serde_json::from_str(manifest).unwrap();
    assert_eq!(manifest["scope"], json!([API_HOST]), "{manifest}");
    assert!(manifest.get("out_of_scope").is_none(), "{manifest}");
    // And at exit.
    let spec = read(out.join("openapi.yaml"));
    assert!(spec.contains("/recommendations:"), "{spec}");
    let manifest: serde_json::Value =
        serde_json::from_str(&read(out.join("session.json"))).unwrap();
    assert_eq!(manifest["scope"], json!([API_HOST]), "{manifest}");

    // Rebuilding the store renumbers endpoints: still one naming call per key.
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    for r in mock
        .requests()
        .iter()
        .filter(|r| r.json()["system"].to_string().contains(NAMER))
    {
        let key = r
            .last_user_text()
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        *named.entry(key).or_default() += 1;
    }
    assert!(!named.is_empty(), "{text}");
    assert!(named.values().all(|n| *n == 1), "named twice: {named:?}");
}

#[test]
fn scope_commands_at_the_prompt_redocument_the_capture() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.respond_with(name_endpoints);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (mut terminal, slave) = super::take::Terminal::open();
    let mut command = shop.ar_with_llm(&out, &mock, &[]);
    command
        .env("TERM", "dumb")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    let mut child = command.spawn().unwrap();
    drop(command);
    let spec = out.join("openapi.yaml");

    let at = terminal.wait_for("opened", 0);
    terminal.type_line("/open /products/101");
    let at = terminal.wait_for("done: open:", at);
    terminal.type_line("/scope remove api.shop.test");
    let at = terminal.wait_for("api.shop.test is out of scope now", at);
    let removed = read(spec.clone());
    assert!(!removed.contains("/recommendations:"), "{removed}");
    assert!(removed.contains("/api/products/{"), "{removed}");
    terminal.type_line("/scope add api.shop.test");
    let at = terminal.wait_for("api.shop.test is in scope now", at);
    let added = read(spec.clone());
    assert!(added.contains("/recommendations:"), "{added}");
    terminal.type_line("/quit");
    terminal.wait_for("session.json in", at);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("ar did not exit on /quit:\n{}", terminal.text());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&read(out.join("session.json"))).unwrap();
    assert_eq!(manifest["scope"], json!([API_HOST]), "{manifest}");
}
