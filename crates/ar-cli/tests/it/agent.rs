//! End to end: `ar <shop> --intent ...` with the mock LLM scripting a short
//! exploration of the fixture shop through real headless Chromium. The spec
//! gains the endpoints the agent's actions made fire, named by the
//! enrichment worker (one call per endpoint), and `ar` exits on its own.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ar_fixtures::SHOP_HOST;
use ar_mock_llm::{MockLlm, Reply};
use serde_json::json;

use super::shop::{Shop, lines_of, wait_bounded, wait_for};

/// `namedApiProducts` for `GET shop.test:1234/api/products/{productId}`.
fn name_for(key: &str) -> String {
    let path = key.split_once('/').map_or("", |(_, p)| p);
    let words: String = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .map(|w| {
            let w: String = w.chars().filter(char::is_ascii_alphanumeric).collect();
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    format!("named{words}")
}

#[test]
fn intent_drives_chromium_and_the_spec_gets_the_agents_endpoints_with_llm_names() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    // Enrichment calls (recognised by their system prompt) are answered by content.
    mock.respond_with(|request| {
        let body = request.json();
        let system = body["system"].to_string();
        if !system.contains("You name HTTP API endpoints") {
            return None;
        }
        let text = request.last_user_text();
        let key = text
            .lines()
            .next()?
            .trim_start_matches("endpoint: ")
            .to_owned();
        Some(Reply::text(
            json!({"operationId": name_for(&key), "summary": format!("Mock summary of {key}"),
                   "description": "Named by the mock LLM.", "tag": "mock"})
            .to_string(),
        ))
    });
    mock.push_all([
        Reply::turn()
            .and_text("Opening the product list first.\n")
            .tool_call(
                "a1",
                "browser_navigate",
                json!({"url": shop.url("/products")}),
            ),
        Reply::tool("a2", "flows_search", json!({"query": "products"})),
        Reply::tool(
            "a3",
            "flows_get",
            json!({"key": format!("GET {SHOP_HOST}:{}/api/products", shop.site.addr().port())}),
        ),
        Reply::tool("a4", "browser_scroll", json!({"direction": "down"})),
        Reply::tool(
            "a5",
            "browser_navigate",
            json!({"url": shop.url("/products/101")}),
        ),
        Reply::tool("a6", "doc_status", json!({})),
        Reply::text("The catalogue is a paged list plus a detail endpoint.\nINTENT COVERED"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = shop.ar(&[
        "--out",
        out.to_str().unwrap(),
        "--provider",
        "anthropic",
        "--base-url",
        &mock.base_url(),
        "--model",
        "mock-model",
        "--intent",
        "map the product catalogue",
    ]);
    command.env("ANTHROPIC_API_KEY", "sk-ant-test-e2e-key");
    let mut child = command.spawn().unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(120));
    let output = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if std::env::var_os("AR_SHOW_OUTPUT").is_some() {
        println!("{text}");
    }
    assert!(status.success(), "{text}");

    // The user saw the agent work: streamed text, tool calls, tokens, the end.
    assert!(
        text.contains("agent: Opening the product list first."),
        "{text}"
    );
    assert!(text.contains("→ browser_navigate"), "{text}");
    assert!(text.contains("tokens this turn:"), "{text}");
    assert!(
        text.contains("the agent reports the intent covered"),
        "{text}"
    );

    // The agent's observations were real: the tool results carried what Chromium showed.
    let requests = mock.requests();
    let agent_requests: Vec<_> = requests
        .iter()
        .filter(|r| {
            !r.json()["system"]
                .to_string()
                .contains("You name HTTP API endpoints")
        })
        .collect();
    assert_eq!(agent_requests.len(), 7, "{text}");
    let after_nav = agent_requests[1].body.as_str();
    assert!(after_nav.contains("/products"), "{after_nav}");
    assert!(after_nav.contains("new API endpoints"), "{after_nav}");
    let search = agent_requests[2].body.as_str();
    assert!(search.contains("/api/products"), "{search}");
    let results: Vec<(String, String)> = agent_requests[1..]
        .iter()
        .zip([
            "browser_navigate /products",
            "flows_search products",
            "flows_get /api/products",
            "browser_scroll down",
            "browser_navigate /products/101",
            "doc_status",
        ])
        .map(|(r, step)| (step.to_owned(), last_tool_result(&r.json())))
        .collect();
    assert!(
        results[2].1.contains("-> 200"),
        "flows_get shows samples: {}",
        results[2].1
    );
    assert!(
        results[3].1.starts_with("page changes")
            || results[3].1.starts_with("the page did not change"),
        "after a scroll the agent gets a diff, not the page: {}",
        results[3].1
    );
    // Token accounting (benches/notes/agent-tool-results.md).
    println!("| step | tool | result bytes | ~tokens |");
    println!("|---:|---|---:|---:|");
    for (i, (step, result)) in results.iter().enumerate() {
        println!(
            "| {} | {step} | {} | {} |",
            i + 1,
            result.len(),
            result.len() / 4
        );
    }
    if let Some(dir) = std::env::var_os("AR_TOOL_RESULT_DUMP") {
        for (i, (_, result)) in results.iter().enumerate() {
            std::fs::write(
                std::path::Path::new(&dir).join(format!("step{}.txt", i + 1)),
                result,
            )
            .unwrap();
        }
    }

    // Enrichment: one call per endpoint, never twice for a key.
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    for r in requests.iter().filter(|r| {
        r.json()["system"]
            .to_string()
            .contains("You name HTTP API endpoints")
    }) {
        let key = r
            .last_user_text()
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        *named.entry(key).or_default() += 1;
    }
    assert!(!named.is_empty(), "no enrichment call: {text}");
    assert!(
        named.values().all(|n| *n == 1),
        "a key was named twice: {named:?}"
    );

    // The spec has the endpoints the agent visited, with the enrichment's names.
    let yaml = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(yaml.contains("/api/products:"), "{yaml}");
    assert!(
        yaml.contains("/api/products/{productId}:") || yaml.contains("/api/products/{id}:"),
        "{yaml}"
    );
    assert!(yaml.contains("operationId: namedApiProducts"), "{yaml}");
    assert!(yaml.contains("summary: Mock summary of GET"), "{yaml}");
    let cache = std::fs::read_to_string(out.join("enrichment.json")).unwrap();
    assert!(cache.contains("namedApiProducts"), "{cache}");
}

/// The text of the last tool result in an Anthropic request body.
fn last_tool_result(body: &serde_json::Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let Some(last) = messages.iter().rev().find(|m| m["role"] == "user") else {
        return String::new();
    };
    last["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| match &b["content"] {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(parts) => {
                parts.iter().filter_map(|p| p["text"].as_str()).collect()
            }
            _ => String::new(),
        })
        .next_back()
        .unwrap_or_default()
}

/// Runs `command` with `script` on stdin; returns (success, stdout + stderr).
fn run(mut command: Command, script: &str) -> (bool, String) {
    use std::io::Write as _;
    command.stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(150));
    let output = child.wait_with_output().unwrap();
    (
        status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

#[test]
fn plain_text_on_stdin_is_an_agent_turn_and_ask_human_without_a_repl_is_a_tool_error() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.push_all([
        Reply::tool("h1", "ask_human", json!({"reason": "log in for me"})),
        Reply::tool("h2", "browser_navigate", json!({"url": shop.url("/cart")})),
        Reply::text("The cart endpoint is mapped; no login was possible.\n"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = shop.ar(&[
        "--out",
        out.to_str().unwrap(),
        "--base-url",
        &mock.base_url(),
        "--no-llm-doc",
    ]);
    command.env("ANTHROPIC_API_KEY", "sk-ant-test-e2e-key");
    let (ok, text) = run(command, "look at the cart\n/flows cart\n");
    assert!(ok, "{text}");
    assert!(
        text.contains("the agent asked for a human (log in for me)"),
        "{text}"
    );
    assert!(
        text.contains("agent: The cart endpoint is mapped"),
        "{text}"
    );
    assert!(text.contains("the agent reported"), "{text}");
    assert!(
        text.contains("/api/cart"),
        "/flows answered after the turn: {text}"
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 3, "no enrichment with --no-llm-doc: {text}");
    let refused = last_tool_result(&requests[1].json());
    assert!(refused.contains("nobody is at the keyboard"), "{refused}");
    let yaml = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(yaml.contains("/api/cart:"), "{yaml}");
    assert!(!out.join("enrichment.json").exists());
}

#[test]
fn without_an_api_key_an_intent_says_how_to_set_one_and_runs_the_explorer() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = shop.ar(&[
        "--out",
        out.to_str().unwrap(),
        "--intent",
        "map the shop",
        "--explore-pages",
        "2",
        "--explore-time",
        "20",
    ]);
    command.env_remove("ANTHROPIC_API_KEY");
    let (ok, text) = run(command, "");
    assert!(ok, "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
    assert!(
        text.contains("falling back to the built-in explorer"),
        "{text}"
    );
    assert!(text.contains("naming   off (no API key)"), "{text}");
    assert!(text.contains("explorer"), "{text}");
    let yaml = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(yaml.contains("/api/products"), "{yaml}");
}

#[test]
fn several_intents_run_one_after_another_over_the_openai_wire_format() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.push_all([
        Reply::tool("o1", "browser_navigate", json!({"url": shop.url("/cart")})),
        Reply::text("Cart mapped.\nINTENT COVERED"),
        Reply::text("Nothing more to see for orders.\n"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = shop.ar(&[
        "--out",
        out.to_str().unwrap(),
        "--provider",
        "openai",
        "--base-url",
        &mock.openai_base_url(),
        "--no-llm-doc",
        "--intent",
        "map the cart",
        "--intent",
        "map the orders",
    ]);
    command.env("OPENAI_API_KEY", "sk-proj-test-e2e-key");
    let (ok, text) = run(command, "");
    assert!(ok, "{text}");
    assert!(text.contains("intent: map the cart"), "{text}");
    assert!(text.contains("intent: map the orders"), "{text}");
    assert!(
        text.contains("the agent reports the intent covered (2 model calls, 1 tool calls); the agent reported (1 model calls, 0 tool calls)"),
        "{text}"
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        requests
            .iter()
            .all(|r| r.path.ends_with("/chat/completions"))
    );
    assert_eq!(requests[2].last_user_text(), "map the orders");
    // One conversation: the second intent sees the first one's history.
    assert!(
        requests[2].body.contains("map the cart"),
        "{}",
        requests[2].body
    );
}

#[test]
fn ctrl_c_ends_the_agents_turn_and_the_conversation_goes_on() {
    use std::io::Write as _;
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.push_all([
        Reply::tool(
            "c1",
            "browser_navigate",
            json!({"url": shop.url("/products")}),
        ),
        // The model "thinks" forever: only Ctrl-C ends this.
        Reply::text("Let me look at").stall_after(2),
        Reply::text("You stopped me after the product list.\n"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut command = shop.ar(&[
        "--out",
        out.to_str().unwrap(),
        "--base-url",
        &mock.base_url(),
        "--no-llm-doc",
    ]);
    command
        .env("ANTHROPIC_API_KEY", "sk-ant-test-e2e-key")
        .stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let lines = lines_of(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"map the catalogue\n").unwrap();
    let mut seen = String::new();
    wait_for(&lines, "→ browser_navigate", &mut seen);
    let deadline = Instant::now() + Duration::from_secs(30);
    while mock.request_count() < 2 {
        assert!(
            Instant::now() < deadline,
            "the second model call never came: {seen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    wait_for(&lines, "stopping the agent", &mut seen);
    wait_for(&lines, "agent stopped: stopped", &mut seen);

    stdin.write_all(b"what did you find?\n").unwrap();
    wait_for(
        &lines,
        "agent: You stopped me after the product list.",
        &mut seen,
    );
    stdin.write_all(b"/quit\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "ar did not quit: {seen}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{seen}");

    // The follow-up continued the same conversation, well-formed for the API.
    let last = mock.requests().last().unwrap().json();
    let messages = last["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"], "{last}");
    assert!(last.to_string().contains("what did you find?"));
    // What was captured before the stop stays.
    let yaml = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(yaml.contains("/api/products:"), "{yaml}");
}

#[test]
fn the_agents_replay_tool_resends_an_edited_request_through_the_proxy_and_sees_no_secret() {
    use ar_fixtures::{API_HOST, PUBLIC_API_KEY};
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.respond_with(super::scope::name_endpoints);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // The product page calls the partner API with its key in `X-Api-Key`.
    let key = format!("GET {API_HOST}:{}/v1/recommendations", shop.port());
    mock.push_all([
        Reply::tool(
            "r1",
            "browser_navigate",
            json!({"url": shop.url("/products/101")}),
        ),
        Reply::tool(
            "r2",
            "replay",
            json!({"key": key, "path": "/v1/recommendations?product_id=105&limit=1"}),
        ),
        Reply::text("Replayed.\nINTENT COVERED"),
    ]);
    let child = shop
        .ar_with_llm(&out, &mock, &["--intent", "see what recommendations take"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (ok, text) = super::shop::finished(child, Duration::from_secs(120));
    assert!(ok, "{text}");

    let requests = mock.requests();
    let answer = requests
        .iter()
        .map(|r| last_tool_result(&r.json()))
        .find(|t| t.starts_with("replayed GET"))
        .unwrap_or_else(|| panic!("no replay answer reached the model:\n{text}"));
    // The captured key went to the origin (200), the answer is the edited request's.
    assert!(answer.contains("-> 200"), "{answer}");
    assert!(answer.contains(r#""product_id":105"#), "{answer}");
    for request in &requests {
        assert!(
            !request.body.contains(PUBLIC_API_KEY),
            "a secret reached the LLM"
        );
    }

    // The exchange is a flow of its own, stamped replay, as the origin got it.
    let (replayed, archive) = super::shop::replayed_flows(&out);
    assert_eq!(replayed.len(), 1, "{archive}");
    assert!(
        replayed[0]["request"]["url"]
            .as_str()
            .unwrap()
            .ends_with("product_id=105&limit=1")
    );
    assert_eq!(replayed[0]["response"]["status"], 200);
}
