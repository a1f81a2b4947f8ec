//! `ar infer-schema`: files and stdin in, a merged schema out, errors naming file and line.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn ar(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("infer-schema")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ar");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("ar runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn merges_json_lines_and_documents_from_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = dir.path().join("users.jsonl");
    std::fs::write(
        &lines,
        "{\"id\": 1, \"email\": \"ada@example.com\"}\n{\"id\": 2, \"email\": null}\n\
         {\"id\": 4, \"email\": \"kay@example.com\"}\n{\"id\": 5, \"email\": \"lin@example.com\"}\n",
    )
    .expect("write");
    let doc = dir.path().join("one.json");
    std::fs::write(
        &doc,
        "{\n  \"id\": 3.5,\n  \"email\": \"grace@example.com\",\n  \"admin\": true\n}\n",
    )
    .expect("write");
    let (code, stdout, stderr) = ar(
        &[
            lines.to_str().expect("utf8"),
            doc.to_str().expect("utf8"),
            "--no-counts",
        ],
        b"",
    );
    assert_eq!(code, 0, "{stderr}");
    let schema: Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(
        schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "admin": {"type": "boolean"},
                "email": {"type": ["string", "null"], "format": "email"},
                "id": {"type": "number"}
            },
            // In all five objects: enough evidence to call them required.
            "required": ["email", "id"]
        })
    );
}

#[test]
fn reads_stdin_and_prints_openapi() {
    let (code, stdout, stderr) = ar(
        &["--openapi"],
        b"{\"when\": \"2024-05-01T10:00:00Z\", \"n\": null}",
    );
    assert_eq!(code, 0, "{stderr}");
    let schema: Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(schema["properties"]["when"]["format"], "date-time");
    assert_eq!(
        schema["properties"]["n"],
        json!({"nullable": true, "x-ar-samples": 1})
    );
    assert_eq!(schema["x-ar-samples"], 1);
    assert!(schema.get("$schema").is_none());
}

#[test]
fn bad_input_names_the_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("broken.jsonl");
    std::fs::write(&file, "{\"a\": 1}\n{\"a\": 2}\n{\"a\": }\n").expect("write");
    let (code, stdout, stderr) = ar(&[file.to_str().expect("utf8")], b"");
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    assert!(stderr.contains("broken.jsonl"), "{stderr}");
    assert!(stderr.contains("line 3, column 7"), "{stderr}");
}

#[test]
fn shape_outline_and_empty_input() {
    let (code, stdout, _) = ar(&["--shape"], b"{\"data\": {\"items\": [{\"id\": 1}]}}");
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "$ object\n$.data object\n$.data.items array\n$.data.items[] object\n$.data.items[].id integer\n"
    );
    let (code, _, stderr) = ar(&[], b"  \n");
    assert_eq!(code, 1);
    assert!(stderr.contains("no JSON samples"), "{stderr}");
}

#[test]
fn hostile_nesting_is_reported_not_fatal() {
    let depth = 100_000;
    let body = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let (code, stdout, stderr) = ar(&["--no-counts"], body.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\"x-ar-truncated\": \"depth\""));
    assert!(stderr.contains("deeper than 128 levels"), "{stderr}");
}
