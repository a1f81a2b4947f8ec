//! `ar import`: HAR files and `flows.jsonl` archives in, a valid spec and API.md out.

use crate::{ar_run as ar, text};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ar-openapi/tests/data")
        .join(name)
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
fn a_damaged_archive_imports_what_is_intact_and_never_reads_outside_its_bodies() {
    let out = tempfile::tempdir().unwrap();
    let archive_dir = out.path().join("session");
    std::fs::create_dir_all(archive_dir.join("bodies")).unwrap();
    // A line as `ar` writes it, its response body spilled to `bodies/<sha256>`.
    let body = r#"{"id":7,"name":"a body spilled to bodies/"}"#;
    let hash = "02888a89071f97709f0e5f519ce2955af00435d5c4648a2faa4d28692da0426a";
    std::fs::write(archive_dir.join("bodies").join(hash), body).unwrap();
    let spilled = r#"{"_ar":{"client":"human","id":9,"request_body":{"size":0},"request_version":"HTTP/1.1","response":{"body":{"content_type":"application/json","size":43,"spilled":"HASH"},"version":"HTTP/1.1"},"started":1700000000000000,"timings":{},"v":1},"cache":{},"request":{"bodySize":-1,"cookies":[],"headers":[],"headersSize":-1,"httpVersion":"HTTP/1.1","method":"GET","queryString":[],"url":"https://shop.test/api/items/7"},"response":{"bodySize":-1,"content":{"mimeType":"application/json","size":43},"cookies":[],"headers":[{"name":"content-type","value":"application/json"}],"headersSize":-1,"httpVersion":"HTTP/1.1","redirectURL":"","status":200,"statusText":""},"startedDateTime":"2023-11-14T22:13:20.000Z","time":0.0,"timings":{"blocked":-1.0,"connect":-1.0,"dns":-1.0,"receive":0.0,"send":0.0,"ssl":-1.0,"wait":0.0}}"#;
    let lines = [
        spilled.replace("HASH", hash),
        // The same line naming a file outside `bodies/`.
        spilled.replace("HASH", "../../../../etc/passwd"),
        // A last line cut short by a crash.
        r#"{"startedDateTime": "2026-"#.to_owned(),
    ];
    std::fs::write(archive_dir.join("flows.jsonl"), lines.join("\n")).unwrap();

    let docs = out.path().join("docs");
    let args = [
        "import",
        archive_dir.to_str().unwrap(),
        "--out",
        docs.to_str().unwrap(),
    ];
    let result = ar(&args);
    let stderr = text(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(
        stderr.contains("flows.jsonl: archive line 2") && stderr.contains("not a SHA-256"),
        "the warning names the file, the line and the problem: {stderr}"
    );
    let summary = text(&result.stdout);
    assert!(summary.contains("1 flows read"), "{summary}");
    let yaml = std::fs::read_to_string(docs.join("openapi.yaml")).unwrap();
    // The spilled body was read back: its fields are in the response schema.
    assert!(
        yaml.contains("  /items/") && yaml.contains("name: a body spilled to bodies/"),
        "{yaml}"
    );

    let result = ar(&[&args[..], &["--strict"]].concat());
    let stderr = text(&result.stderr);
    assert!(!result.status.success());
    assert!(
        stderr.contains("flows.jsonl: archive line 2") && stderr.contains("not a SHA-256"),
        "{stderr}"
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

/// A HAR of GET requests to `https://files.test` + each path, answered with JSON.
fn har_of(paths: &[&str]) -> String {
    let entries: Vec<serde_json::Value> = paths
        .iter()
        .map(|path| {
            serde_json::json!({
                "startedDateTime": "2025-11-21T04:40:00.000Z",
                "time": 1,
                "request": {
                    "method": "GET", "url": format!("https://files.test{path}"),
                    "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [],
                    "headersSize": -1, "bodySize": -1
                },
                "response": {
                    "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Content-Type", "value": "application/json"}],
                    "cookies": [], "redirectURL": "", "headersSize": -1, "bodySize": -1,
                    "content": {"mimeType": "application/json", "size": 12, "text": "{\"size\":12}"}
                },
                "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
            })
        })
        .collect();
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
        .to_string()
}

/// `ar import INPUT ARGS... --out DIR`, which must succeed; its spec as YAML.
fn imported_yaml(input: &Path, args: &[&str], dir: &Path) -> String {
    let mut all = vec!["import", input.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend(["--out", dir.to_str().unwrap()]);
    let result = ar(&all);
    assert!(result.status.success(), "{}", text(&result.stderr));
    std::fs::read_to_string(dir.join("openapi.yaml")).unwrap()
}

#[test]
fn a_template_makes_paths_of_any_depth_one_endpoint() {
    let out = tempfile::tempdir().unwrap();
    let har = out.path().join("files.har");
    std::fs::write(
        &har,
        har_of(&[
            "/api/files/a/b/c.txt",
            "/api/files/x.txt",
            "/api/files/docs/readme.md",
        ]),
    )
    .unwrap();
    let dir = out.path().join("docs");
    let result = ar(&[
        "import",
        har.to_str().unwrap(),
        "--template",
        "/api/files/{path*}",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", text(&result.stderr));
    let stdout = text(&result.stdout);
    assert!(
        stdout.starts_with("3 flows read, 3 in scope, 1 endpoints"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("openapi.json")).unwrap()).unwrap();
    let paths: Vec<&String> = json["paths"].as_object().unwrap().keys().collect();
    // One endpoint: the server URL takes the shared `/api`.
    assert_eq!(paths, ["/files/{path}"], "{json}");
    assert_eq!(json["servers"][0]["url"], "https://files.test/api");
    let param = &json["paths"]["/files/{path}"]["get"]["parameters"][0];
    assert_eq!(param["name"], "path");
    assert_eq!(param["in"], "path");
    assert_eq!(param["schema"]["type"], "string");
    assert!(
        param["description"]
            .as_str()
            .unwrap()
            .contains("spans one or more segments"),
        "{param}"
    );

    // The same from a templates file.
    let file = out.path().join("templates.txt");
    std::fs::write(&file, "# downloads\n\nfiles.test/api/files/{path*}\n").unwrap();
    let args = ["--templates", file.to_str().unwrap()];
    let yaml = imported_yaml(&har, &args, &out.path().join("docs2"));
    assert!(yaml.contains("/files/{path}:"), "{yaml}");
}

#[test]
fn file_paths_of_several_depths_become_one_path_parameter_unasked() {
    let out = tempfile::tempdir().unwrap();
    let har = out.path().join("files.har");
    let files = [
        "README.md",
        "src/main.rs",
        "src/lib/util.rs",
        "docs/guide/intro.txt",
    ];
    let paths: Vec<String> = (files.iter())
        .map(|f| format!("/api/repos/7/raw/{f}"))
        .chain(["/api/repos/7".into(), "/api/repos/8".into()])
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    std::fs::write(&har, har_of(&paths)).unwrap();
    let dir = out.path().join("docs");
    let yaml = imported_yaml(&har, &[], &dir);
    assert!(yaml.contains("\n  /repos/{repoId}/raw/{path}:\n"), "{yaml}");
    assert!(yaml.contains("spans one or more segments"), "{yaml}");
    crate::validate_if_possible(&dir.join("openapi.yaml"));
}

#[test]
fn a_session_directory_brings_its_templates() {
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    std::fs::create_dir_all(&session).unwrap();
    let har: serde_json::Value =
        serde_json::from_str(&har_of(&["/api/files/a/b/c.txt", "/api/files/x.txt"])).unwrap();
    let lines: Vec<String> = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry.to_string() + "\n")
        .collect();
    std::fs::write(session.join("flows.jsonl"), lines.concat()).unwrap();
    std::fs::write(
        session.join("session.json"),
        r#"{"version": 1, "target": "https://files.test/", "created": "", "updated": "",
            "settings": {"headless": true, "templates": ["/api/files/{path*}"]}}"#,
    )
    .unwrap();
    let yaml = imported_yaml(&session, &[], &out.path().join("docs"));
    assert!(yaml.contains("/files/{path}:"), "{yaml}");
}

#[test]
fn a_bad_template_fails_naming_it() {
    let out = tempfile::tempdir().unwrap();
    let har = out.path().join("files.har");
    std::fs::write(&har, har_of(&["/api/files/x.txt"])).unwrap();
    for (pattern, problem) in [
        ("/api/{path*}/raw", "must be the last segment"),
        ("/api/{}", "empty parameter name"),
        ("/api/{path", "unbalanced brace"),
        ("/api/{id}/{id}", "duplicate parameter name `id`"),
    ] {
        let result = ar(&[
            "import",
            har.to_str().unwrap(),
            "--template",
            pattern,
            "--out",
            out.path().join("o").to_str().unwrap(),
        ]);
        assert!(!result.status.success(), "{pattern}");
        let stderr = text(&result.stderr);
        assert!(stderr.contains(&format!("`{pattern}`")), "{stderr}");
        assert!(stderr.contains(problem), "{stderr}");
    }
    let file = out.path().join("templates.txt");
    std::fs::write(&file, "/ok/{a}\n# fine\n/bad/{b\n").unwrap();
    let result = ar(&[
        "import",
        har.to_str().unwrap(),
        "--templates",
        file.to_str().unwrap(),
        "--out",
        out.path().join("o").to_str().unwrap(),
    ]);
    assert!(!result.status.success());
    let stderr = text(&result.stderr);
    assert!(
        stderr.contains("templates.txt:3") && stderr.contains("`/bad/{b`"),
        "{stderr}"
    );
}

/// HAR files as other tools write them, each with what the tool leaves out.
fn other_exporters() -> [(&'static str, serde_json::Value); 4] {
    use serde_json::json;
    let json_response = |status: u16, text: &str| {
        json!({"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "content": {"size": text.len(), "mimeType": "application/json", "text": text},
            "redirectURL": "", "headersSize": -1, "bodySize": text.len()})
    };
    // Firefox: `cache: {}`, timings cut short, `_securityState`, and a POST
    // answered as a script (Facebook's `for (;;);` JSON) that is no asset.
    let firefox = json!({"log": {"version": "1.2", "creator": {"name": "Firefox", "version": "126.0"},
        "pages": [], "entries": [
        {"pageref": "page_1", "startedDateTime": "2024-06-01T10:00:00.000+02:00", "time": 12,
         "request": {"bodySize": 0, "method": "GET", "url": "https://shop.test/api/v1/items?page=2",
            "httpVersion": "HTTP/2", "headers": [{"name": "Accept", "value": "application/json"}],
            "cookies": [], "queryString": [{"name": "page", "value": "2"}], "headersSize": 120},
         "response": json_response(200, r#"[{"id":1,"name":"pen"}]"#),
         "cache": {}, "timings": {"blocked": -1, "send": 0, "wait": 12},
         "_securityState": "secure", "serverIPAddress": "203.0.113.7", "connection": "443"},
        {"startedDateTime": "2024-06-01T10:00:01.000+02:00", "time": 20,
         "request": {"method": "POST", "url": "https://shop.test/ajax/cart/add?__a=1",
            "httpVersion": "HTTP/2", "headers": [], "cookies": [], "queryString": [],
            "postData": {"mimeType": "application/x-www-form-urlencoded",
                "params": [{"name": "item", "value": "1"}]}},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "cookies": [],
            "headers": [{"name": "Content-Type", "value": "application/x-javascript; charset=utf-8"}],
            "content": {"mimeType": "application/x-javascript; charset=utf-8",
                "text": "for (;;);{\"payload\":{\"count\":1}}"}},
         "cache": {}, "timings": {}}
    ]}});
    // Fiddler: odd `httpVersion`s, and requests still open when saved have no response.
    let fiddler = json!({"log": {"version": "1.2",
        "creator": {"name": "Fiddler", "version": "5.0.20202.18177", "comment": "https://fiddler2.com"},
        "entries": [
        {"startedDateTime": "2024-06-01T08:00:00.1234567-07:00", "time": 30,
         "request": {"method": "GET", "url": "http://api.shop.test/v2/orders/17", "httpVersion": "HTTP/1.1",
            "headers": [], "cookies": [], "queryString": [], "headersSize": -1, "bodySize": -1},
         "response": json_response(200, r#"{"id":17,"total":9.5}"#),
         "cache": {}, "timings": {"send": 0, "wait": 28, "receive": 2, "blocked": 0, "dns": 0, "connect": 0, "ssl": 0}},
        {"startedDateTime": "2024-06-01T08:00:01.000-07:00", "time": 0,
         "request": {"method": "PUT", "url": "http://api.shop.test/v2/orders/17", "httpVersion": "unknown",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "postData": {"mimeType": "application/json", "text": "{\"total\":10}"}}},
        {"startedDateTime": "2024-06-01T08:00:02.000-07:00",
         "request": {"method": "DELETE", "url": "http://api.shop.test/v2/orders/18", "httpVersion": ""},
         "response": null},
        {"startedDateTime": "2024-06-01T08:00:03.000-07:00",
         "request": {"method": "GET", "url": "http://api.shop.test/v2/orders/19", "httpVersion": 1.1},
         "response": {"status": 0, "content": {}}}
    ]}});
    // By hand: only what a person would bother to write.
    let minimal = json!({"log": {"entries": [
        {"request": {"method": "GET", "url": "https://api.shop.test/ping"}}
    ]}});
    // A load-test export (Load Impact, k6): ordered requests, no times, no responses.
    let load_test = json!({"log": {"entries": [
        {"index": 0, "checks": [], "variables": {}, "comment": "log in",
         "request": {"method": "POST", "url": "http://test.loadimpact.test/login",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "postData": {"mimeType": "application/json", "text": "{\"user\":\"admin\",\"password\":\"123\"}"}}},
        {"index": 1,
         "request": {"method": "GET", "url": "http://test.loadimpact.test/my_messages.php",
            "queryString": [{"name": "page", "value": "1"}]}}
    ]}});
    [
        ("firefox", firefox),
        ("fiddler", fiddler),
        ("minimal", minimal),
        ("load-test", load_test),
    ]
}

#[test]
fn hars_of_other_exporters_import_and_say_what_was_repaired() {
    let out = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    for (name, har) in other_exporters() {
        let file = out.path().join(format!("{name}.har"));
        std::fs::write(&file, har.to_string()).unwrap();
        let dir = out.path().join(name);
        let result = ar(&[
            "import",
            file.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(result.status.success(), "{name}: {}", text(&result.stderr));
        let yaml = std::fs::read_to_string(dir.join("openapi.yaml")).unwrap();
        assert!(yaml.contains("paths:\n  /"), "{name}: no operation\n{yaml}");
        crate::validate_if_possible(&dir.join("openapi.yaml"));
        crate::validate_if_possible(&dir.join("openapi.json"));
        let markdown = std::fs::read_to_string(dir.join("API.md")).unwrap();
        lines.push((name, text(&result.stdout), yaml, markdown));
    }
    let [firefox, fiddler, minimal, load_test] = &lines[..] else {
        unreachable!()
    };
    assert!(
        firefox
            .1
            .starts_with("2 flows read, 2 in scope, 2 endpoints →"),
        "{}",
        firefox.1
    );
    assert!(
        firefox.2.contains("/ajax/cart/add:"),
        "a POST answered as a script is documented"
    );
    assert!(
        fiddler
            .1
            .contains("; 3 entries without a response: request side documented"),
        "{}",
        fiddler.1
    );
    assert!(
        fiddler.2.contains("put:") && fiddler.2.contains("delete:"),
        "{}",
        fiddler.2
    );
    assert!(
        fiddler.2.contains("No response was captured"),
        "{}",
        fiddler.2
    );
    assert!(
        fiddler
            .3
            .contains("- 3 entries without a response: request side documented\n"),
        "API.md's ledger says what the spec stands on\n{}",
        fiddler.3
    );
    assert!(
        !firefox.3.contains("not read exactly as written"),
        "{}",
        firefox.3
    );
    assert!(
        minimal.1.contains(
            "1 entry without startedDateTime: time of the previous entry used; \
             1 entry without a response: request side documented"
        ),
        "{}",
        minimal.1
    );
    assert!(
        load_test.1.contains("; 2 entries without startedDateTime")
            && load_test.1.contains("; 2 entries without a response"),
        "{}",
        load_test.1
    );
    assert!(
        load_test.2.contains("user:"),
        "the request body is documented"
    );
}

#[test]
fn what_cannot_be_read_is_named_by_entry_and_field() {
    let out = tempfile::tempdir().unwrap();
    let [.., (_, load_test)] = other_exporters();
    let undated = out.path().join("load-test.har");
    std::fs::write(&undated, load_test.to_string()).unwrap();
    let broken = out.path().join("broken.har");
    let entries = r#"[{"request": {"method": "GET", "url": "my_messages.php"}}, {"response": {}}]"#;
    std::fs::write(&broken, format!(r#"{{"log": {{"entries": {entries}}}}}"#)).unwrap();
    let import = |file: &Path, strict: bool| {
        let mut args = vec!["import", file.to_str().unwrap()];
        args.extend(strict.then_some("--strict"));
        args.extend(["--out", out.path().to_str().unwrap()]);
        let result = ar(&args);
        assert!(!result.status.success());
        text(&result.stderr)
    };
    let stderr = import(&undated, true);
    assert!(
        stderr
            .contains("load-test.har is not a usable HAR file: entry 0: startedDateTime: missing"),
        "{stderr}"
    );
    let stderr = import(&broken, false);
    assert!(
        stderr.contains("entry 0: request.url: not absolute"),
        "{stderr}"
    );
    assert!(stderr.contains("entry 1: request: missing"), "{stderr}");
    assert!(
        stderr.contains(
            "nothing to document (1 entry with a malformed request: skipped; \
             1 entry with a malformed request.url: skipped)"
        ),
        "{stderr}"
    );
}
