//! `ar diff OLD NEW`: GitLab's published v3 spec against a next version with four changes
//! (`tests/data/diff/make_specs.py` says which), a HAR against the spec `ar import` makes of
//! it, and inputs it cannot compare.

use crate::text;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/diff")
        .join(name)
}

fn har(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ar-openapi/tests/data")
        .join(name)
}

fn ar<P: AsRef<std::ffi::OsStr>>(args: &[P]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ar"));
    command.arg("diff").args(args);
    command.output().expect("ar runs")
}

/// `ar diff OLD NEW ARGS...` on the GitLab pair.
fn gitlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("diff")
        .arg(spec("gitlab-v3.json"))
        .arg(spec("gitlab-v3-next.yaml"))
        .args(args)
        .output()
        .expect("ar runs")
}

/// The four changes `make_specs.py` made, each named and classified, and nothing else.
#[test]
fn each_change_of_a_published_spec_is_named_and_classified() {
    let result = gitlab(&[]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert_eq!(
        text(&result.stdout),
        "\
3 breaking changes, 1 other change; operations: 1 removed, 3 changed

GET /api/v3/projects/{id}/notification_settings
  breaking  response 200 property `level` (application/json) removed  [response-optional-property-removed]

GET /api/v3/projects/{id}/pipelines
  breaking  query parameter `ref` added (required)  [new-required-request-parameter]

POST /api/v3/projects/{id}/snippets
            request property `description` (application/x-www-form-urlencoded) added (optional)  [new-optional-request-property]

DELETE /api/v3/projects/{id}/snippets/{snippet_id} (removed)
  breaking  operation removed  [api-removed-without-deprecation]
"
    );
    assert_eq!(text(&result.stderr), "");
}

#[test]
fn json_output_parses_with_stable_keys() {
    let result = gitlab(&["--format", "json"]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let report: serde_json::Value = serde_json::from_slice(&result.stdout).expect("JSON");
    // Sorted: whether the map keeps the written order depends on serde_json's features.
    let keys = |value: &serde_json::Value| -> Vec<String> {
        let mut keys: Vec<String> = value
            .as_object()
            .expect("an object")
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(
        keys(&report),
        ["global", "operations", "report_version", "summary"]
    );
    assert_eq!(report["report_version"], 1);
    assert_eq!(
        report["summary"],
        serde_json::json!({"breaking": 3, "non_breaking": 1, "operations_added": 0,
                           "operations_removed": 1, "operations_changed": 3})
    );
    let operations = report["operations"].as_array().expect("a list");
    let rows: Vec<(&str, &str, &str, &str, bool)> = operations
        .iter()
        .flat_map(|operation| {
            let changes = operation["changes"].as_array().expect("a list");
            changes.iter().map(move |change| {
                (
                    operation["method"].as_str().unwrap(),
                    operation["path"].as_str().unwrap(),
                    operation["status"].as_str().unwrap(),
                    change["rule"].as_str().unwrap(),
                    change["breaking"].as_bool().unwrap(),
                )
            })
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "GET",
                "/api/v3/projects/{id}/notification_settings",
                "changed",
                "response-optional-property-removed",
                true
            ),
            (
                "GET",
                "/api/v3/projects/{id}/pipelines",
                "changed",
                "new-required-request-parameter",
                true
            ),
            (
                "POST",
                "/api/v3/projects/{id}/snippets",
                "changed",
                "new-optional-request-property",
                false
            ),
            (
                "DELETE",
                "/api/v3/projects/{id}/snippets/{snippet_id}",
                "removed",
                "api-removed-without-deprecation",
                true
            ),
        ]
    );
    // Each change says where it is: the response field's place, the parameter's name.
    let field = &operations[0]["changes"][0];
    assert_eq!(
        keys(field),
        [
            "breaking",
            "element",
            "kind",
            "media_type",
            "message",
            "required",
            "rule",
            "schema_path",
            "status"
        ]
    );
    assert_eq!(field["schema_path"], "$.level");
    assert_eq!(operations[1]["changes"][0]["in"], "query");
    assert_eq!(operations[1]["changes"][0]["name"], "ref");
}

#[test]
fn markdown_output_leads_with_the_breaking_table() {
    let result = gitlab(&["--format", "md"]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let markdown = text(&result.stdout);
    let breaking = markdown
        .split("### Breaking changes\n\n")
        .nth(1)
        .expect("a breaking section");
    let table: Vec<&str> = breaking
        .lines()
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(
        table,
        [
            "| Operation | Change | Rule |",
            "|---|---|---|",
            "| `GET /api/v3/projects/{id}/notification_settings` | response 200 property `level` (application/json) removed | `response-optional-property-removed` |",
            "| `GET /api/v3/projects/{id}/pipelines` | query parameter `ref` added (required) | `new-required-request-parameter` |",
            "| `DELETE /api/v3/projects/{id}/snippets/{snippet_id}` (removed) | operation removed | `api-removed-without-deprecation` |",
        ]
    );
    assert!(
        markdown.starts_with(
            "## API changes\n\n3 breaking changes, 1 other change; operations: 1 removed, 3 changed.\n"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("### Other changes\n\n<details><summary>1 change</summary>"),
        "{markdown}"
    );
    // `--format markdown` is the same.
    assert_eq!(gitlab(&["--format", "markdown"]).stdout, result.stdout);
}

#[test]
fn fail_on_breaking_exits_1_only_when_a_change_breaks() {
    let result = gitlab(&["--fail-on", "breaking"]);
    assert_eq!(result.status.code(), Some(1), "{}", text(&result.stderr));
    assert!(text(&result.stdout).starts_with("3 breaking changes"));
    // The same documents as each other: nothing breaks.
    let result = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("diff")
        .args([spec("gitlab-v3.json"), spec("gitlab-v3.json")])
        .args(["--fail-on", "breaking"])
        .output()
        .expect("ar runs");
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
}

/// The same published document, in JSON and in YAML.
#[test]
fn the_same_document_in_json_and_yaml_has_no_changes() {
    let dir = tempfile::tempdir().unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(spec("gitlab-v3.json")).unwrap()).unwrap();
    let yaml = dir.path().join("gitlab.yml");
    std::fs::write(&yaml, serde_norway::to_string(&value).unwrap()).unwrap();
    let result = ar(&[&spec("gitlab-v3.json"), &yaml]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert_eq!(text(&result.stdout), "No changes.\n");
    let result = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("diff")
        .args([&yaml, &spec("gitlab-v3.json")])
        .args(["--format", "md"])
        .output()
        .expect("ar runs");
    assert_eq!(text(&result.stdout), "## API changes\n\nNo changes.\n");
}

/// `--out` writes the report and says on stdout what it found and where it went.
#[test]
fn out_writes_the_report_and_prints_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("api-changes.md");
    let result = gitlab(&["--format", "md", "--out", file.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert_eq!(
        text(&result.stdout),
        format!(
            "3 breaking changes, 1 other change; operations: 1 removed, 3 changed → {}\n",
            file.display()
        )
    );
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written, text(&gitlab(&["--format", "md"]).stdout));
}

/// A HAR is documented as `ar import` documents it: against the directory `ar import` wrote
/// from it, and against its own openapi.json, nothing differs. A HAR without one endpoint's
/// traffic is that endpoint removed.
#[test]
fn a_har_side_is_documented_as_ar_import_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("docs");
    let import = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("import")
        .arg(har("rest.har"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("ar runs");
    assert!(import.status.success(), "{}", text(&import.stderr));

    let result = ar(&[&har("rest.har"), &out]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    assert_eq!(text(&result.stdout), "No changes.\n");
    assert!(
        text(&result.stderr).contains(
            "rest.har documented as `ar import` does: 20 flows read, 17 in scope, 9 endpoints"
        ),
        "{}",
        text(&result.stderr)
    );
    let result = ar(&[&out.join("openapi.json"), &har("rest.har")]);
    assert_eq!(text(&result.stdout), "No changes.\n");

    // The same traffic without its orders, saved as `.json` as some tools do.
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(har("rest.har")).unwrap()).unwrap();
    let entries = value["log"]["entries"].as_array_mut().unwrap();
    let before = entries.len();
    entries.retain(|entry| {
        let url = entry["request"]["url"].as_str().unwrap_or_default();
        !url.contains("/orders")
    });
    assert!(entries.len() < before, "rest.har calls /orders");
    let smaller = dir.path().join("without-orders.json");
    std::fs::write(&smaller, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let result = ar(&[&out, &smaller]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let report = text(&result.stdout);
    let removed: Vec<&str> = report
        .lines()
        .filter(|line| line.ends_with("(removed)"))
        .collect();
    assert!(
        !removed.is_empty() && removed.iter().all(|line| line.contains("/orders")),
        "{report}"
    );
    assert!(
        report.contains("breaking  operation removed  [api-removed-without-deprecation]"),
        "{report}"
    );
}

/// Every input it cannot compare exits 2, naming the file and what is wrong with it.
#[test]
fn unusable_sides_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = spec("gitlab-v3.json");
    let write = |name: &str, content: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    };
    let empty_dir = dir.path().join("empty");
    std::fs::create_dir(&empty_dir).unwrap();
    let cases: [(PathBuf, &str); 7] = [
        (
            dir.path().join("missing.yaml"),
            "cannot read {}: No such file or directory",
        ),
        (
            write("package.json", "{\"name\": \"left-pad\"}"),
            "{}: no `openapi` version field: not an OpenAPI 3 document",
        ),
        (
            write("swagger.yaml", "swagger: '2.0'\npaths: {}\n"),
            "{}: `swagger: 2.0` is Swagger 2, not OpenAPI 3",
        ),
        (
            write("paths.yaml", "openapi: 3.0.3\npaths: [/users]\n"),
            "{}: `paths` is an array, not an object",
        ),
        (
            write("broken.json", "{\"openapi\": \"3.0.3\", \"paths\": {"),
            "{} is not valid JSON: EOF while parsing",
        ),
        (
            write("torn.har", "{\"log\": {\"entries\": [{\"request\""),
            "{} is not a usable HAR file: HAR is not valid JSON",
        ),
        (
            empty_dir.clone(),
            "{} is a directory without an openapi.yaml, openapi.json or flows.jsonl",
        ),
    ];
    for (path, message) in cases {
        for sides in [[&path, &good], [&good, &path]] {
            let result = ar(&sides);
            let stderr = text(&result.stderr);
            assert_eq!(result.status.code(), Some(2), "{stderr}");
            let expected = message.replace("{}", &path.display().to_string());
            assert!(
                stderr.starts_with(&format!("ar: error: {expected}")),
                "{stderr}"
            );
            assert_eq!(text(&result.stdout), "");
        }
    }
}

/// `ar diff ... | head -1`: the reader leaves early, `ar` exits quietly with its verdict.
#[test]
fn a_closed_pipe_ends_quietly_with_the_verdict() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("diff")
        .args([spec("gitlab-v3.json"), spec("gitlab-v3-next.yaml")])
        .args(["--format", "json", "--fail-on", "breaking"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ar runs");
    // Closed before `ar` has read its inputs, so its write meets a closed pipe.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(stderr, "");
    assert_eq!(status.code(), Some(1));
}
