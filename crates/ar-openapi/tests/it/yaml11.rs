//! The YAML reads back unchanged as YAML 1.1: PyYAML, which
//! openapi-spec-validator reads specs with, gets every name and value as
//! written, where serde_norway's YAML 1.2 once let `on` become `True`.
//!
//! Runs when a `python3` on PATH imports `yaml`, and says it skipped otherwise;
//! the Rust-only checks of the same rules are the unit tests of `yaml.rs`.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Map, Value, json};

/// Strings YAML 1.1 reads as booleans, numbers, dates, null or merge keys
/// when plain, and strings with characters it rejects, folds or strips.
const TRICKY: &[&str] = &[
    "y",
    "Y",
    "n",
    "N",
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "true",
    "True",
    "FALSE",
    "null",
    "Null",
    "NULL",
    "~",
    "",
    "=",
    "<<",
    ".inf",
    "-.Inf",
    ".nan",
    "1:20",
    "190:20:30.15",
    "1_000",
    "0b1010",
    "0o17",
    "017",
    "0x1F",
    "12",
    "1.5",
    "6.02e+23",
    "2024-05-01",
    "2024-5-1 10:00:00",
    "2025-01-02T10:00:00Z",
    "tab\there",
    "nul\0",
    "c1\u{80}\u{9f}",
    "nel\u{85}",
    "ls\u{2028}ps\u{2029}",
    "\u{feff}bom",
    "\u{fffe}\u{ffff}",
    "cr\r\nlf",
    "two\nlines",
    "trailing\n\n",
    " lead",
    "trail ",
    "a: b",
    "#x",
    "x #y",
    "'q'",
    "\"dq\"",
    "- x",
    "? x",
    "---",
    "@at",
    "`tick`",
    "%p",
    "!tag",
    "&a",
    "*a",
    "|",
    ">",
    "{}",
    "[]",
    "漢字 😀",
];

fn python_with_yaml() -> Option<()> {
    let status = Command::new("python3")
        .args(["-c", "import yaml"])
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then_some(())
}

/// A spec whose property names, `required` entries, enum members and
/// examples are all [`TRICKY`].
fn spec() -> openapiv3::OpenAPI {
    let properties: Map<String, Value> = TRICKY
        .iter()
        .map(|word| {
            let schema = json!({"type": "string", "enum": [word], "example": word});
            ((*word).to_string(), schema)
        })
        .collect();
    serde_json::from_value(json!({
        "openapi": "3.0.3",
        "info": {"title": "on", "version": "1.0"},
        "paths": {},
        "components": {"schemas": {"Tricky": {
            "type": "object",
            "properties": properties,
            "required": TRICKY,
        }}},
    }))
    .expect("a valid OpenAPI document")
}

#[test]
fn pyyaml_reads_every_name_and_value_back_unchanged() {
    if python_with_yaml().is_none() {
        eprintln!("skipped: no python3 that imports yaml (pip install pyyaml==6.0.3)");
        return;
    }
    let spec = spec();
    let yaml = ar_openapi::to_yaml(&spec).unwrap();
    let expected: Value = serde_json::from_str(&ar_openapi::to_json(&spec).unwrap()).unwrap();
    // Both of PyYAML's safe loaders: pure Python, and libyaml's when built in.
    let script = "import sys, json, yaml\n\
        text = sys.stdin.buffer.read()\n\
        loaders = [yaml.SafeLoader] + ([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])\n\
        json.dump([yaml.load(text, Loader=loader) for loader in loaders], sys.stdout, default=repr)\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(yaml.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "PyYAML failed: {}\n{yaml}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    for document in read {
        assert_eq!(document, expected, "{yaml}");
    }
}
