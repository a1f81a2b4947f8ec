//! Hostile input (issue #31): bodies built to exhaust the stack, memory or
//! time. Each import finishes, the spec stays valid, and API.md says what was
//! bounded and why. Peak memory is measured on the `ar` child and held to a
//! generous bound; nothing here asserts a timing.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Runs `ar args...` to the end; returns its output and the peak resident
/// memory seen (`VmHWM`, polled while it runs, so a lower bound of the true
/// peak; the peaks here last as long as the body is being read).
fn ar_measured(args: &[&str]) -> (Output, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ar"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ar runs");
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    while child.try_wait().expect("wait").is_none() {
        if let Some(kb) = std::fs::read_to_string(&status_file).ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        }) {
            peak = peak.max(kb * 1024);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    (child.wait_with_output().expect("ar output"), peak)
}

/// A HAR of GET responses with the given JSON bodies, one per URL.
fn write_har(path: &Path, entries: &[(&str, &str)]) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write!(
        out,
        r#"{{"log":{{"version":"1.2","creator":{{"name":"t","version":"1"}},"entries":["#
    )
    .unwrap();
    for (i, (url, body)) in entries.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let text = serde_json::to_string(body).unwrap();
        write!(
            out,
            r#"{sep}{{"startedDateTime":"2026-01-01T00:00:00.000Z","time":1,
"request":{{"method":"GET","url":"{url}","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0}},
"response":{{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{{"name":"Content-Type","value":"application/json"}}],"cookies":[],
"content":{{"size":{len},"mimeType":"application/json","text":{text}}},"redirectURL":"","headersSize":-1,"bodySize":{len}}},
"cache":{{}},"timings":{{"send":0,"wait":1,"receive":0}}}}"#,
            len = body.len()
        )
        .unwrap();
    }
    write!(out, "]}}}}").unwrap();
    out.flush().unwrap();
}

/// Imports `har` into `dir`; returns API.md, after checking the import
/// succeeded and openapi.json is a parseable 3.0 document.
fn import(har: &Path, dir: &Path, max_rss: u64) -> String {
    let (result, rss) = ar_measured(&[
        "import",
        har.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    eprintln!("peak RSS of `ar import`: {} MB", rss >> 20);
    assert!(rss < max_rss, "peak RSS {} MB", rss >> 20);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("openapi.json")).unwrap()).unwrap();
    assert_eq!(json["openapi"], "3.0.3");
    std::fs::read_to_string(dir.join("API.md")).unwrap()
}

#[test]
fn bodies_nested_100000_levels_deep_are_documented_to_a_bound_and_said_so() {
    const LEVELS: usize = 100_000;
    let arrays = format!("{}{}", "[".repeat(LEVELS), "]".repeat(LEVELS));
    let objects = format!("{}1{}", r#"{"a":"#.repeat(LEVELS), "}".repeat(LEVELS));
    let tmp = tempfile::tempdir().unwrap();
    let har = tmp.path().join("deep.har");
    write_har(
        &har,
        &[
            ("https://api.shop.test/v1/lists/1", &arrays),
            ("https://api.shop.test/v1/lists/2", "[[1]]"),
            ("https://api.shop.test/v1/trees/1", &objects),
            ("https://api.shop.test/v1/trees/2", r#"{"a":{"a":2}}"#),
        ],
    );
    let markdown = import(&har, &tmp.path().join("docs"), 200 << 20);
    assert!(
        markdown.contains("4 flows seen, 4 documented"),
        "{markdown}"
    );
    assert!(
        markdown.contains("## Bodies bounded by safety limits")
            && markdown.contains("- 2 nested value(s) deeper than 128 levels"),
        "{markdown}"
    );
    // The example says why it is missing instead of calling valid JSON invalid.
    assert!(
        markdown.contains("<200000 bytes of JSON nested deeper than 128 levels, not shown>"),
        "{markdown}"
    );
    assert!(!markdown.contains("invalid JSON"), "{markdown}");
    let yaml = std::fs::read_to_string(tmp.path().join("docs/openapi.yaml")).unwrap();
    assert!(yaml.contains("x-ar-truncated: depth"), "{yaml}");
}

#[test]
fn an_object_of_a_million_keys_becomes_a_map_in_bounded_memory() {
    const KEYS: usize = 1_000_000;
    // Values of two types, so the object is no plain map of one type: it
    // stays a record of properties until the property limit makes it a map.
    let mut wide = String::with_capacity(KEYS * 16);
    wide.push('{');
    for i in 0..KEYS {
        let sep = if i == 0 { "" } else { "," };
        if i % 2 == 0 {
            wide.push_str(&format!(r#"{sep}"k{i}":{i}"#));
        } else {
            wide.push_str(&format!(r#"{sep}"k{i}":"v""#));
        }
    }
    wide.push('}');
    let tmp = tempfile::tempdir().unwrap();
    let har = tmp.path().join("wide.har");
    write_har(
        &har,
        &[
            ("https://api.shop.test/v1/bags/1", &wide),
            ("https://api.shop.test/v1/bags/2", r#"{"k0":0,"k1":"v"}"#),
        ],
    );
    // The body is 17 MB; before the example bound, its tree alone took ~170 MB.
    let markdown = import(&har, &tmp.path().join("docs"), 300 << 20);
    assert!(
        markdown.contains("2 flows seen, 2 documented"),
        "{markdown}"
    );
    assert!(
        markdown.contains("- 1 object(s) with more than 1000 distinct keys"),
        "{markdown}"
    );
    let yaml = std::fs::read_to_string(tmp.path().join("docs/openapi.yaml")).unwrap();
    assert!(yaml.contains("additionalProperties"), "{yaml}");
    assert!(
        yaml.len() < 64 << 10,
        "the spec stays small: {} bytes",
        yaml.len()
    );
}

#[test]
fn a_har_with_a_64_mib_base64_body_imports_in_about_its_text() {
    base64_body_imports_in_about_its_text(22_369_622);
}

/// The issue's size: a body just over 2 GiB (2.9 GB of base64 text in the
/// HAR). Not in CI: it writes the file to a temporary directory and needs
/// about 3 GB of memory; run by hand with
/// `cargo test -p ar-cli --test it -- --ignored a_har_with_a_2_gib`.
#[test]
#[ignore = "writes a 2.9 GB HAR and needs 3 GB of memory: run by hand"]
fn a_har_with_a_2_gib_base64_body_imports_in_about_its_text() {
    base64_body_imports_in_about_its_text(715_827_883);
}

/// Imports a HAR whose first entry's body is `quads` times the bytes
/// 00 10 83 in base64 ("ABCD": the text is written without an encoder and
/// the body is known byte for byte), with a small JSON entry beside it.
fn base64_body_imports_in_about_its_text(quads: usize) {
    let body_len = quads * 3;
    let tmp = tempfile::tempdir().unwrap();
    let har = tmp.path().join("big.har");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&har).unwrap());
    let entry = |url: &str, mime: &str, size: usize| {
        format!(
            r#"{{"startedDateTime":"2026-01-01T00:00:00.000Z","time":1,
"request":{{"method":"GET","url":"{url}","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0}},
"response":{{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{{"name":"Content-Type","value":"{mime}"}}],"cookies":[],
"redirectURL":"","headersSize":-1,"bodySize":{size},"content":{{"size":{size},"mimeType":"{mime}","encoding":"base64","text":""#
        )
    };
    out.write_all(br#"{"log":{"version":"1.2","entries":["#)
        .unwrap();
    out.write_all(
        entry(
            "https://api.shop.test/v1/files/1",
            "application/octet-stream",
            body_len,
        )
        .as_bytes(),
    )
    .unwrap();
    for _ in 0..quads / 1024 {
        out.write_all("ABCD".repeat(1024).as_bytes()).unwrap();
    }
    out.write_all("ABCD".repeat(quads % 1024).as_bytes())
        .unwrap();
    out.write_all(br#""}}},"#).unwrap();
    // `{"id":7}` in base64, beside it.
    out.write_all(entry("https://api.shop.test/v1/files/2", "application/json", 8).as_bytes())
        .unwrap();
    out.write_all(br#"eyJpZCI6N30="}}}]}}"#).unwrap();
    out.flush().unwrap();
    drop(out);

    let text_len = quads * 4;
    // The text bypasses the JSON reader into one buffer sized from `size`,
    // and the body is decoded inside it: the text plus the process's own
    // ~45 MB (before: 6 times the body, in a debug build).
    let markdown = import(
        &har,
        &tmp.path().join("docs"),
        (text_len + (64 << 20)) as u64,
    );
    assert!(
        markdown.contains("2 flows seen, 2 documented"),
        "{markdown}"
    );
    let yaml = std::fs::read_to_string(tmp.path().join("docs/openapi.yaml")).unwrap();
    assert!(yaml.contains("application/octet-stream"), "{yaml}");
    assert!(yaml.contains("id:"), "{yaml}");
}
