//! `ar proxy` and `ar ca` as a user runs them: a real process, curl as the
//! client, a real origin on loopback, SIGTERM to stop.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A tiny HTTP/1.1 origin: answers every request with a JSON body naming its path.
pub(crate) fn origin() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let n = stream.read(&mut buf).unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let body = format!(r#"{{"path":"{path}"}}"#);
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    port
}

/// `ar proxy` running in the background, its stdout lines on a channel.
pub(crate) struct RunningProxy {
    child: Child,
    lines: mpsc::Receiver<String>,
    addr: String,
}

impl RunningProxy {
    /// `ar proxy --port 0 ARGS...`, once it said where it listens.
    pub(crate) fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ar"))
            .arg("proxy")
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut proxy = Self {
            child,
            lines,
            addr: String::new(),
        };
        let first = proxy.wait_for("listening on http://");
        proxy.addr = first.rsplit("http://").next().unwrap().trim().to_string();
        proxy
    }

    /// `ar proxy` writing to `dir/out` with its CA in `dir/ca`, sending
    /// `api.test` to the origin on `port` and nothing anywhere else.
    pub(crate) fn offline(dir: &std::path::Path, port: u16, args: &[&str]) -> Self {
        let (out, ca_dir) = (dir.join("out"), dir.join("ca"));
        let resolve = format!("api.test:{port}:127.0.0.1");
        let mut all = vec![
            "--out",
            out.to_str().unwrap(),
            "--ca-dir",
            ca_dir.to_str().unwrap(),
            "--resolve",
            &resolve,
            "--offline",
        ];
        all.extend(args);
        Self::start(&all)
    }

    /// Where it listens (`127.0.0.1:PORT`).
    pub(crate) fn addr(&self) -> &str {
        &self.addr
    }

    pub(crate) fn wait_for(&self, needle: &str) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no line with {needle:?}"));
            if line.contains(needle) {
                return line;
            }
        }
    }

    /// The live web view's `host:port` and token, from the line that prints its URL.
    pub(crate) fn ui(&self) -> (String, String) {
        let line = self.wait_for("  ui       http://127.0.0.1:");
        let url = line.trim().trim_start_matches("ui").trim();
        let authority = url.trim_start_matches("http://").split('/').next().unwrap();
        let token = url.split("token=").nth(1).unwrap();
        (authority.to_owned(), token.to_owned())
    }

    /// `curl` fetches `url` through the proxy; returns once the proxy printed
    /// the flow's line (it shows the path without the query).
    pub(crate) fn fetch(&self, url: &str) {
        let status = Command::new("curl")
            .args(["-sS", "--max-time", "20", "-o", "/dev/null", "--proxy"])
            .arg(format!("http://{}", self.addr))
            .arg(url)
            .status()
            .unwrap();
        assert!(status.success(), "curl {url}");
        let path = url.split('?').next().unwrap();
        self.wait_for(path);
    }

    /// SIGTERM, then the rest of stdout and the exit status.
    pub(crate) fn stop(mut self) -> (Vec<String>, std::process::ExitStatus) {
        Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        let status = self.child.wait().unwrap();
        // Every line to the end of its stdout: the reader thread may still
        // be passing on the last ones when the process has exited.
        (self.lines.iter().collect(), status)
    }
}

#[test]
fn ar_proxy_archives_every_flow_and_flushes_on_sigterm() {
    let (port, dir) = (origin(), tempfile::tempdir().unwrap());
    let out = dir.path().join("out");
    let proxy = RunningProxy::offline(dir.path(), port, &["--scope", "api.test"]);
    for path in ["/users/1?token=hunter2", "/users/2"] {
        let url = format!("http://api.test:{port}{path}");
        let output = Command::new("curl")
            .args([
                "-sS",
                "--max-time",
                "20",
                "--proxy",
                &format!("http://{}", proxy.addr),
                &url,
            ])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let expected = format!(r#"{{"path":"{path}"}}"#);
        assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    }
    let line = proxy.wait_for("/users/1");
    assert!(line.contains("200 GET http://api.test"), "{line}");
    assert!(
        !line.contains("hunter2"),
        "query strings (tokens) are not printed: {line}"
    );
    proxy.wait_for("/users/2");
    // Live: the spec on disk follows the traffic within its one-second rewrite interval, before any exit.
    let live = crate::settled(
        Duration::from_secs(10),
        || std::fs::read_to_string(out.join("openapi.yaml")).unwrap_or_default(),
        |spec| !spec.contains("/users/{"),
    );
    assert!(live.contains("/users/{"), "the live spec: {live}");
    let (rest, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    assert!(
        rest.iter().any(|l| l.contains("archived 2 flows")),
        "{rest:?}"
    );

    let archive = std::fs::read_to_string(out.join("flows.jsonl")).unwrap();
    let entries: Vec<serde_json::Value> = archive
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries.len(), 2);
    assert_eq!(
        entries[0]["request"]["url"],
        format!("http://api.test:{port}/users/1?token=hunter2")
    );
    assert_eq!(entries[1]["response"]["status"], 200);
    assert!(out.join("bodies").is_dir());

    // The same flows were documented live: a line for the new endpoint, and the spec on disk.
    assert!(
        rest.iter()
            .any(|l| l.contains("documented 1 endpoints from 2 in-scope flows")),
        "{rest:?}"
    );
    let spec = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    assert!(spec.contains("/users/{"), "{spec}");
    assert!(
        !spec.contains("hunter2"),
        "secrets never reach the spec: {spec}"
    );
}

#[test]
fn ar_proxy_serves_the_live_view_of_its_flows_behind_its_token() {
    let (port, dir) = (origin(), tempfile::tempdir().unwrap());
    let proxy = RunningProxy::offline(dir.path(), port, &["--scope", "api.test"]);
    let (authority, token) = proxy.ui();
    let (authority, token) = (authority.as_str(), token.as_str());
    proxy.fetch(&format!("http://api.test:{port}/users/1?token=hunter2"));

    let get = |target: &str| crate::web::raw(authority, authority, "GET", target);
    let listed = get(&format!("/api/flows?token={token}&q=users"));
    assert!(listed.starts_with("HTTP/1.1 200"), "{listed}");
    assert!(listed.contains(r#""total":1"#), "{listed}");
    assert!(listed.contains("/users/1?token=REDACTED"), "{listed}");
    assert!(!listed.contains("hunter2"), "{listed}");
    let id = listed
        .split(r#""id":"#)
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    let detail = get(&format!("/api/flow?token={token}&id={id}"));
    // The body shown pretty, its secret redacted and offered for reveal.
    assert!(detail.contains(r#""kind":"json""#), "{detail}");
    assert!(
        detail.contains(r#"\"path\": \"/users/1?token=REDACTED\""#),
        "{detail}"
    );
    assert!(detail.contains(r#""secret":"res.body""#), "{detail}");
    assert!(!detail.contains("hunter2"), "{detail}");
    assert!(detail.contains(r#""url_secret":"url""#), "{detail}");
    // Revealing takes a POST with the token; a GET or no token reveals nothing.
    let reveal = format!("/api/reveal?token={token}&id={id}&part=url");
    assert!(!get(&reveal).contains("hunter2"));
    let stranger = crate::web::raw(
        authority,
        authority,
        "POST",
        &format!("/api/reveal?id={id}&part=url"),
    );
    assert!(stranger.starts_with("HTTP/1.1 403"), "{stranger}");
    let revealed = crate::web::raw(authority, authority, "POST", &reveal);
    assert!(revealed.contains("token=hunter2"), "{revealed}");
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
}

/// The JSON body of an HTTP answer read by hand.
fn json_body(answer: &str) -> serde_json::Value {
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

#[test]
fn ar_proxy_live_view_explains_corrects_and_replays_its_endpoints() {
    let (port, dir) = (origin(), tempfile::tempdir().unwrap());
    let out = dir.path().join("out");
    let proxy = RunningProxy::offline(dir.path(), port, &["--scope", "api.test"]);
    let (authority, token) = proxy.ui();
    let (authority, token) = (authority.as_str(), token.as_str());
    for user in 1..=3 {
        proxy.fetch(&format!("http://api.test:{port}/users/{user}"));
    }
    let get = |target: &str| crate::web::raw(authority, authority, "GET", target);
    let post = |target: &str, body: &str| {
        crate::web::raw_with_body(authority, authority, "POST", target, body)
    };

    // The endpoint the three flows joined, with its evidence.
    let endpoints = crate::settled(
        Duration::from_secs(10),
        || get(&format!("/api/endpoints?token={token}")),
        |answer| answer.contains("/users/{"),
    );
    let endpoints = json_body(&endpoints);
    let users = endpoints
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["template"].as_str().unwrap().starts_with("/users/{"))
        .unwrap_or_else(|| panic!("{endpoints}"));
    assert_eq!(users["flows"], 3, "{users}");
    // The values the id had, offered to split one off.
    assert_eq!(
        users["values"],
        serde_json::json!([{"segment": 1, "values": [["1", 1], ["2", 1], ["3", 1]], "secret": 0, "more": 0}]),
    );
    let key = users["key"].as_str().unwrap();
    let encoded: String = url::form_urlencoded::byte_serialize(key.as_bytes()).collect();
    let explained = get(&format!("/api/explain?token={token}&key={encoded}"));
    assert!(explained.starts_with("HTTP/1.1 200"), "{explained}");
    assert!(explained.contains("users"), "{explained}");

    // A correction: the id is a literal after all. The spec on disk follows
    // at once, and the correction is kept beside the archive.
    let corrected = post(
        &format!("/api/correct?token={token}&key={encoded}&segment=1&as=literal"),
        "",
    );
    assert!(corrected.starts_with("HTTP/1.1 200"), "{corrected}");
    assert!(
        corrected.contains("re-documented 3 flows, 3 endpoints (was 1)"),
        "{corrected}"
    );
    let spec = std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    for user in 1..=3 {
        assert!(spec.contains(&format!("/users/{user}:")), "{spec}");
    }
    let kept = std::fs::read_to_string(out.join("templates.txt")).unwrap();
    assert!(kept.contains("/users/2"), "{kept}");

    // A replay of an edited request goes through the proxy and is captured as one.
    let listed = get(&format!("/api/flows?token={token}&q=users/1"));
    let from = json_body(&listed)["rows"][0]["id"].clone();
    let edited = serde_json::json!({
        "from": from,
        "method": "GET",
        "url": format!("http://api.test:{port}/users/4"),
        "headers": [["accept", "application/json"]],
    });
    let replayed = post(&format!("/api/replay?token={token}"), &edited.to_string());
    assert!(replayed.starts_with("HTTP/1.1 200"), "{replayed}");
    assert!(replayed.contains(r#""ok":true"#), "{replayed}");
    proxy.wait_for("/users/4");
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    let (replays, archive) = crate::shop::replayed_flows(&out);
    assert_eq!(replays.len(), 1, "{archive}");
    assert_eq!(
        replays[0]["request"]["url"],
        format!("http://api.test:{port}/users/4")
    );

    // `ar import` of the directory applies the correction too.
    let imported = dir.path().join("imported");
    let status = Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("import")
        .arg(&out)
        .arg("--out")
        .arg(&imported)
        .args(["--scope", "api.test"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let spec = std::fs::read_to_string(imported.join("openapi.yaml")).unwrap();
    assert!(spec.contains("/users/2:"), "{spec}");
}

#[test]
fn ar_proxy_templates_shape_the_live_spec() {
    let (port, dir) = (origin(), tempfile::tempdir().unwrap());
    let out = dir.path().join("out");
    let proxy = RunningProxy::offline(dir.path(), port, &["--template", "/files/{path*}"]);
    for path in ["/files/a/b/report.txt", "/files/notes.txt"] {
        proxy.fetch(&format!("http://api.test:{port}{path}"));
    }
    let live = crate::settled(
        Duration::from_secs(10),
        || std::fs::read_to_string(out.join("openapi.yaml")).unwrap_or_default(),
        |spec| !spec.contains("/files/{path}"),
    );
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    assert!(
        live.contains("/files/{path}:"),
        "one endpoint for both: {live}"
    );
    assert!(!live.contains("report.txt:"), "{live}");
}

impl Drop for RunningProxy {
    /// A test that fails midway leaves no proxy behind (stopped ones ignore this).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The peak resident memory of process `pid` so far (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

#[test]
fn a_one_megabyte_request_head_gets_431_and_is_archived_as_refused() {
    let (port, dir) = (origin(), tempfile::tempdir().unwrap());
    let out = dir.path().join("out");
    let proxy = RunningProxy::offline(dir.path(), port, &["--scope", "api.test"]);
    // 1 MB: curl reads a header line from a file up to 1 MiB.
    let big = "a".repeat(1_000_000);

    // Raw bytes: one head of 1 MB, as a hostile client sends it.
    let mut tcp = std::net::TcpStream::connect(&proxy.addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "GET http://api.test:{port}/raw?x=1 HTTP/1.1\r\nHost: api.test:{port}\r\nX-Big: {big}\r\n\r\n"
    );
    // The proxy stops reading at its bound, so the rest may meet a reset.
    let _ = tcp.write_all(head.as_bytes());
    let mut reply = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n @ 1..) = tcp.read(&mut chunk) {
        reply.extend_from_slice(&chunk[..n]);
    }
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.starts_with("HTTP/1.1 431 Request Header Fields Too Large"),
        "{reply}"
    );

    // curl, with the same header from a file.
    let header = dir.path().join("header.txt");
    std::fs::write(&header, format!("X-Big: {big}\n")).unwrap();
    let output = Command::new("curl")
        .args([
            "-sS",
            "--max-time",
            "20",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
        ])
        .arg("--proxy")
        .arg(format!("http://{}", proxy.addr))
        .arg("-H")
        .arg(format!("@{}", header.display()))
        .arg(format!("http://api.test:{port}/curl"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "431",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    proxy.wait_for("/raw");
    proxy.wait_for("/curl");
    let rss = peak_rss(proxy.child.id());
    eprintln!(
        "peak RSS of `ar proxy` after two 1 MB heads: {} MB",
        rss >> 20
    );
    // hyper's 400 KiB buffer and the 8 KiB sample, never the 1 MB head.
    assert!(rss < 96 << 20, "peak RSS {} MB", rss >> 20);
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");

    let archive = std::fs::read_to_string(out.join("flows.jsonl")).unwrap();
    let entries: Vec<serde_json::Value> = archive
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let urls: Vec<&str> = entries
        .iter()
        .map(|e| e["request"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            format!("http://api.test:{port}/raw?x=1"),
            format!("http://api.test:{port}/curl")
        ]
    );
    for entry in &entries {
        assert_eq!(entry["response"]["status"], 431, "{entry}");
        let error = &entry["_ar"]["error"];
        assert_eq!(error["kind"], "refused", "{entry}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("request head over 400 KiB"),
            "{entry}"
        );
    }
    let markdown = std::fs::read_to_string(out.join("API.md")).unwrap();
    assert!(
        markdown.contains("| refused by the proxy (never sent) | 2 |"),
        "{markdown}"
    );
}

#[test]
fn ar_ca_prints_trust_instructions_spki_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    let ca_dir = dir.path().join("ca");
    let ar = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_ar"))
            .arg("ca")
            .args(["--ca-dir", ca_dir.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let help = ar(&[]);
    let cert = ca_dir.join("ca.pem");
    for needle in [
        "--cacert",
        "SSL_CERT_FILE",
        "NODE_EXTRA_CA_CERTS",
        "REQUESTS_CA_BUNDLE",
        "--ignore-certificate-errors-spki-list=",
    ] {
        assert!(help.contains(needle), "{needle} missing:\n{help}");
    }
    assert!(help.contains(cert.to_str().unwrap()));
    let spki = ar(&["--print-spki"]);
    assert_eq!(spki.trim().len(), 44, "base64 of 32 bytes: {spki}");
    assert!(help.contains(spki.trim()), "the same CA both times");
    let exported = dir.path().join("exported.pem");
    ar(&["--export", exported.to_str().unwrap()]);
    assert_eq!(
        std::fs::read_to_string(&exported).unwrap(),
        std::fs::read_to_string(&cert).unwrap()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(ca_dir.join("ca.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
