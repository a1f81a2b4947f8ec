//! End to end: `ar mcp` driven by a client we did not write, the official
//! MCP Python SDK (`tests/mcp_client.py`, PyPI `mcp` pinned in
//! `.ci/requirements.txt`), against the fixture shop with real headless
//! Chromium and the real capture proxy.
//!
//! The script checks each step as it goes (see its docstring) and prints a
//! report; this test runs it and checks the report. `.ci/run` installs the
//! SDK into `.ci/.venv`; outside CI a missing venv skips the test with a
//! note, under `CI=true` it fails.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::shop::{Shop, wait_bounded};

/// What the client script needs to open the shop.
fn shop_config(shop: &Shop, out: &std::path::Path) -> Value {
    json!({
        "url": shop.url("/"),
        "resolve": shop.resolve_entries(),
        "upstream_ca": shop.ca_file(),
        "out": out,
    })
}

/// The venv's Python when the MCP SDK is installed there.
fn python_with_mcp() -> Option<PathBuf> {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/.venv/bin/python");
    let importable = Command::new(&python)
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    importable.then_some(python)
}

/// Runs the client script with `args`; its JSON report, or a panic with
/// everything it said.
fn client(python: &std::path::Path, args: &[&str], also: impl Fn() -> String) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut child = Command::new(python)
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_bounded(&mut child, Duration::from_secs(180));
    let output = child.wait_with_output().unwrap();
    let said = format!(
        "{}\n--- client stderr ---\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        also()
    );
    assert!(status.success(), "{said}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("one JSON report");
    if std::env::var_os("AR_SHOW_OUTPUT").is_some() {
        println!("{report:#}");
    }
    report
}

/// The venv's Python with the SDK, or `None` (a skip) outside CI.
fn python_or_skip() -> Option<PathBuf> {
    let python = python_with_mcp();
    if python.is_none() {
        let how = "the MCP Python SDK is not installed: `python3 -m venv .ci/.venv && .ci/.venv/bin/pip install -r .ci/requirements.txt` (what .ci/run does)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{how}");
        eprintln!("skipped: {how}");
    }
    python
}

#[test]
fn the_streamable_http_transport_serves_the_same_tools_on_loopback() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_ar"))
        .args(["mcp", "--http", "0", "--ca-dir"])
        .arg(shop.ca_dir.path())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The address line, then keep the pipe drained.
    let stderr = std::io::BufReader::new(server.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(stderr).map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("ar mcp: serving MCP on ") {
                let _ = tx.send(url.to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("ar mcp --http says where it listens");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let config = shop_config(&shop, &dir.path().join("out"));
    let report = client(&python, &["http", &url, &config.to_string()], String::new);
    assert_eq!(report["protocol"], "2025-11-25");
    let tools: Vec<String> = serde_json::from_value(report["tools"].clone()).unwrap();
    assert!(tools.contains(&"browser_click".to_owned()), "{tools:?}");
    assert_eq!(report["no_site"]["error"], "no_site");
    assert_eq!(report["refusal"]["error"], "human_has_browser");
    // SIGTERM ends it cleanly.
    let pid = rustix::process::Pid::from_raw(server.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = wait_bounded(&mut server, Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
}

#[test]
fn the_official_python_sdk_drives_ar_mcp_over_stdio_and_reads_the_growing_spec() {
    let Some(python) = python_or_skip() else {
        return;
    };
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let stderr = dir.path().join("ar-mcp.stderr");
    let mut config = shop_config(&shop, &out);
    config["ar"] = json!(env!("CARGO_BIN_EXE_ar"));
    config["path"] = json!(std::env::var("PATH").unwrap_or_default());
    config["ca_dir"] = json!(shop.ca_dir.path());
    config["stderr"] = json!(stderr);
    let said = || {
        format!(
            "--- ar mcp stderr ---\n{}",
            std::fs::read_to_string(&stderr).unwrap_or_default()
        )
    };
    let report = client(&python, &[&config.to_string()], said);
    assert_eq!(report["server"], "ar", "{report}");
    assert_eq!(report["protocol"], "2025-11-25", "{report}");
    // The registry's tools come first, in the agent's order.
    let agent: Vec<String> = ar_agent::agent::tool_definitions()
        .into_iter()
        .map(|t| t.name)
        .collect();
    let listed: Vec<String> = serde_json::from_value(report["tools"].clone()).unwrap();
    assert_eq!(listed[..agent.len()], agent[..], "{report}");
    assert!(
        ["not_found", "stale_ref"].contains(&report["bad_ref"]["error"].as_str().unwrap()),
        "{report}"
    );
    assert!(report["updates"].as_u64().unwrap() >= 1, "{report}");
    // Closing wrote the session's files where site_open was told to.
    assert!(
        report["closed"].as_str().unwrap().contains("wrote"),
        "{report}"
    );
    let spec = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(spec.contains("/api/products:"), "{spec}");
    let archive = std::fs::read_to_string(out.join("flows.jsonl")).unwrap();
    // The page site_open loads is the session's own; what the client's clicks
    // caused is stamped as an agent's.
    let by_agent = (archive.lines())
        .filter(|l| l.starts_with(r#"{"_ar":{"client":"agent""#) && l.contains("/api/products/"))
        .count();
    assert!(by_agent >= 1, "no product flow stamped as the agent's");
    assert!(
        archive.contains(r#"{"_ar":{"client":"explorer""#),
        "explore's flows are the explorer's"
    );
    // Stdout stayed the protocol's: the logs went to stderr.
    let log = std::fs::read_to_string(&stderr).unwrap_or_default();
    assert!(log.contains("serving MCP on stdio"), "{log}");
    for (call, bytes) in report["sizes"].as_object().unwrap() {
        println!("{call}: {bytes} bytes");
    }
}
