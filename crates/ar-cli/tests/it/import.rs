//! `ar import`: HAR files and `flows.jsonl` archives in, a valid spec and API.md out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ar-openapi/tests/data")
        .join(name)
}

fn ar(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ar"))
        .args(args)
        .output()
        .expect("ar runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_har_becomes_yaml_json_and_markdown_with_a_summary_line() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("docs");
    let result = ar(&[
        "import",
        data("rest.har").to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    assert!(
        stdout.starts_with("20 flows read, 17 in scope, 9 endpoints; skipped "),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 static asset")
            && stdout.contains("1 tracker / analytics")
            && stdout.contains("1 HTML page"),
        "{stdout}"
    );
    let yaml = std::fs::read_to_string(dir.join("openapi.yaml")).unwrap();
    assert!(yaml.contains("/users/{userId}:"), "{yaml}");
    assert!(yaml.contains("url: https://api.shop.test/api/v1"), "{yaml}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("openapi.json")).unwrap()).unwrap();
    assert_eq!(json["openapi"], "3.0.3");
    let markdown = std::fs::read_to_string(dir.join("API.md")).unwrap();
    assert!(markdown.contains("## What was left out"), "{markdown}");
    // Nothing but the three documents: temp files were renamed away.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["API.md", "openapi.json", "openapi.yaml"]);
}

#[test]
fn scope_leaves_other_hosts_out_and_lists_them() {
    let out = tempfile::tempdir().unwrap();
    let result = ar(&[
        "import",
        data("rest.har").to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--scope",
        "api.shop.test",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let markdown = std::fs::read_to_string(out.path().join("API.md")).unwrap();
    assert!(
        markdown.contains("## Out-of-scope hosts seen"),
        "{markdown}"
    );
    assert!(
        markdown.contains("`www.google-analytics.com`"),
        "{markdown}"
    );
}

#[test]
fn several_inputs_and_an_archive_directory_import_together() {
    let out = tempfile::tempdir().unwrap();
    // An `ar` archive: one HAR entry per line, in a directory.
    let archive_dir = out.path().join("session");
    std::fs::create_dir(&archive_dir).unwrap();
    let har: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("auth.har")).unwrap()).unwrap();
    let lines: Vec<String> = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    std::fs::write(archive_dir.join("flows.jsonl"), lines.join("\n") + "\n").unwrap();
    let docs = out.path().join("docs");
    let result = ar(&[
        "import",
        data("graphql.har").to_str().unwrap(),
        archive_dir.to_str().unwrap(),
        "--out",
        docs.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let yaml = std::fs::read_to_string(docs.join("openapi.yaml")).unwrap();
    assert!(
        yaml.contains("/graphql:") && yaml.contains("/partner/items:"),
        "{yaml}"
    );
}

#[test]
fn unusable_input_fails_with_a_clear_message() {
    let out = tempfile::tempdir().unwrap();
    let junk = out.path().join("notes.txt");
    std::fs::write(&junk, "hello").unwrap();
    let result = ar(&[
        "import",
        junk.to_str().unwrap(),
        "--out",
        out.path().join("o").to_str().unwrap(),
    ]);
    assert!(!result.status.success());
    assert!(
        text(&result.stderr).contains("is neither a HAR file nor an ar flows.jsonl archive"),
        "{}",
        text(&result.stderr)
    );

    let broken = out.path().join("broken.har");
    std::fs::write(&broken, "{\"log\": {\"entries\": [ {\"request\": ").unwrap();
    let result = ar(&[
        "import",
        broken.to_str().unwrap(),
        "--out",
        out.path().join("o").to_str().unwrap(),
    ]);
    assert!(!result.status.success());
    assert!(
        text(&result.stderr).contains("broken.har is not a usable HAR file"),
        "{}",
        text(&result.stderr)
    );

    let missing = ar(&[
        "import",
        "/nonexistent/x.har",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("/nonexistent/x.har"),
        "{}",
        text(&missing.stderr)
    );
    assert!(
        !out.path().join("o").exists(),
        "no output for unusable input"
    );
}

#[test]
fn secrets_stay_out_unless_asked_for() {
    let out = tempfile::tempdir().unwrap();
    let result = ar(&[
        "import",
        data("secrets.har").to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let all = ["openapi.yaml", "openapi.json", "API.md"]
        .map(|f| std::fs::read_to_string(out.path().join(f)).unwrap())
        .join("\n");
    let stdout = text(&result.stdout) + &text(&result.stderr);
    for secret in std::fs::read_to_string(data("secrets.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
    {
        assert!(!all.contains(secret), "{secret} leaked into the outputs");
        assert!(
            !stdout.contains(secret),
            "{secret} leaked into the terminal"
        );
    }
    let raw = out.path().join("raw");
    let result = ar(&[
        "import",
        data("secrets.har").to_str().unwrap(),
        "--out",
        raw.to_str().unwrap(),
        "--no-redact",
    ]);
    assert!(result.status.success());
    assert!(
        std::fs::read_to_string(raw.join("API.md"))
            .unwrap()
            .contains("AK-1122334455667788")
    );
}

#[test]
fn base_url_sets_the_main_server_and_must_be_absolute() {
    let out = tempfile::tempdir().unwrap();
    let result = ar(&[
        "import",
        data("rest.har").to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--base-url",
        "https://api.shop.test/api",
        "--title",
        "Shop API",
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let yaml = std::fs::read_to_string(out.path().join("openapi.yaml")).unwrap();
    assert!(
        yaml.contains("- url: https://api.shop.test/api\n"),
        "{yaml}"
    );
    assert!(yaml.contains("  /v1/users/{userId}:"), "{yaml}");
    assert!(yaml.contains("title: Shop API"), "{yaml}");

    let relative = ar(&[
        "import",
        data("rest.har").to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
        "--base-url",
        "/api",
    ]);
    assert!(!relative.status.success());
    assert!(
        text(&relative.stderr).contains("--base-url must be an absolute http(s) URL"),
        "{}",
        text(&relative.stderr)
    );
}
