//! `ar proxy --reverse` as a user runs it: a real `ar` process in front of
//! the fixture shop over HTTPS, curl and Python's urllib talking plain
//! HTTP to it as clients that cannot use a proxy, SIGTERM to stop.

use std::path::Path;
use std::process::Command;

use crate::proxy::RunningProxy;
use crate::shop::Shop;

/// Requests a client of the shop's API makes, in order.
pub(crate) const PATHS: [&str; 6] = [
    "/api/products?page=2",
    "/api/products/101",
    "/api/products/102",
    "/api/users/1",
    "/api/users/2",
    "/api/categories",
];

/// `ar proxy` writing to `out`, reaching the shop (its CA trusted, its hosts
/// mapped, nothing else dialed), with `extra` flags (the web view runs
/// unless they say `--no-ui`).
pub(crate) fn proxy_to(shop: &Shop, out: &Path, extra: &[&str]) -> RunningProxy {
    let mut args = vec![
        "--out".to_owned(),
        out.display().to_string(),
        "--ca-dir".to_owned(),
        shop.ca_dir.path().display().to_string(),
        "--upstream-ca".to_owned(),
        shop.ca_file().display().to_string(),
        "--offline".to_owned(),
    ];
    for entry in shop.resolve_entries() {
        args.extend(["--resolve".to_owned(), entry]);
    }
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    RunningProxy::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// What `curl ARGS... URL` wrote to stdout; it must succeed.
pub(crate) fn curl(args: &[&str], url: &str) -> Vec<u8> {
    let output = Command::new("curl")
        .args(["-sS", "--fail", "--max-time", "20"])
        .args(args)
        .arg(url)
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .env_remove("HTTPS_PROXY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "curl {url}: {}",
        crate::text(&output.stderr)
    );
    output.stdout
}

/// What the shop answers curl at `path` with no proxy in between.
pub(crate) fn direct(shop: &Shop, path: &str) -> Vec<u8> {
    let resolve = format!("shop.test:{}:127.0.0.1", shop.port());
    let ca = shop.ca_file().display().to_string();
    curl(&["--resolve", &resolve, "--cacert", &ca], &shop.url(path))
}

/// What Python's urllib reads at `url`, with no proxy settings.
fn python_get(url: &str) -> Vec<u8> {
    let script = "import sys, urllib.request\n\
                  sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())";
    let output = Command::new("python3")
        .args(["-c", script, url])
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "python {url}: {}",
        crate::text(&output.stderr)
    );
    output.stdout
}

/// The archived flows of `out`, as JSON.
pub(crate) fn archived(out: &Path) -> Vec<serde_json::Value> {
    let archive = std::fs::read_to_string(out.join("flows.jsonl")).unwrap();
    archive
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn curl_and_python_get_the_origins_answers_and_the_flows_are_the_origins() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let origin = shop.url("");
    let proxy = proxy_to(
        &shop,
        &out,
        &["--reverse", &origin, "--scope", "shop.test", "--no-ui"],
    );
    let base = format!("http://{}", proxy.addr());
    let banner = proxy.wait_for("base URL");
    assert_eq!(
        banner.split_whitespace().collect::<Vec<_>>(),
        ["base", "URL", &base, "for", &origin],
        "{banner}"
    );
    let paths = &PATHS[..3];
    for path in paths {
        let expected = direct(&shop, path);
        assert_eq!(
            crate::text(&curl(&[], &format!("{base}{path}"))),
            crate::text(&expected)
        );
        assert_eq!(
            crate::text(&python_get(&format!("{base}{path}"))),
            crate::text(&expected)
        );
        // A line per flow, curl's and Python's, under the origin's URL.
        let line = format!("{origin}{}", path.split('?').next().unwrap());
        proxy.wait_for(&line);
        proxy.wait_for(&line);
    }
    // Server-sent events stream through as the origin sends them.
    let events = "/api/events?topic=orders";
    let expected = direct(&shop, events);
    assert!(
        crate::text(&expected).contains("event: done"),
        "{}",
        crate::text(&expected)
    );
    assert_eq!(
        crate::text(&curl(&["--no-buffer"], &format!("{base}{events}"))),
        crate::text(&expected)
    );
    proxy.wait_for(&format!("{origin}/api/events"));
    let (rest, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    assert!(
        rest.iter().any(|l| l.contains("archived 7 flows")),
        "{rest:?}"
    );
    let flows = archived(&out);
    let urls: Vec<&str> = (flows.iter())
        .map(|f| f["request"]["url"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (paths.iter())
        .flat_map(|path| [shop.url(path), shop.url(path)])
        .chain([shop.url(events)])
        .collect();
    assert_eq!(urls, expected);
    for flow in &flows {
        let host = (flow["request"]["headers"].as_array().unwrap().iter())
            .find(|h| h["name"] == "host")
            .unwrap_or_else(|| panic!("{flow}"));
        assert_eq!(
            host["value"],
            format!("shop.test:{}", shop.port()),
            "{flow}"
        );
        assert_eq!(flow["response"]["status"], 200, "{flow}");
    }
}

#[test]
fn https_on_the_same_port_with_ar_s_certificate_reaches_the_origin() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let origin = shop.url("");
    let proxy = proxy_to(&shop, &out, &["--reverse", &origin, "--no-ui"]);
    let port = proxy.addr().rsplit_once(':').unwrap().1.to_owned();
    // The banner says where and what to trust: curl's line names ar's CA.
    let line = proxy.wait_for("curl --cacert");
    let words: Vec<&str> = line.split_whitespace().collect();
    let base = format!("https://{}", proxy.addr());
    assert_eq!(words[3], format!("{base}/"), "{line}");
    let ca = words[2];
    let path = PATHS[1];
    let expected = crate::text(&direct(&shop, path));
    // By address (no SNI: the certificate is for 127.0.0.1) over HTTP/2 and
    // HTTP/1.1, and by name.
    let localhost = format!("https://localhost:{port}");
    for (args, base) in [
        (["--http2", "--cacert", ca], &base),
        (["--http1.1", "--cacert", ca], &base),
        (["--http2", "--cacert", ca], &localhost),
    ] {
        let mut args = args.to_vec();
        args.extend(["-w", " %{http_version}"]);
        let answer = crate::text(&curl(&args, &format!("{base}{path}")));
        let version = if args[0] == "--http2" { "2" } else { "1.1" };
        assert_eq!(answer, format!("{expected} {version}"), "{args:?} {base}");
    }
    // Without ar's CA the client refuses the certificate: nothing is sent.
    let refused = Command::new("curl")
        .args(["-sS", "--max-time", "20"])
        .arg(format!("{base}{path}"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    let flows = archived(&out);
    let urls: Vec<&str> = (flows.iter())
        .map(|f| f["request"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls, [shop.url(path).as_str(); 3]);
}

#[test]
fn the_same_traffic_forward_and_reverse_makes_the_same_spec() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let scope = ["--scope", "shop.test", "--no-ui"];

    let forward_out = dir.path().join("forward");
    let forward = proxy_to(&shop, &forward_out, &scope);
    let via = format!("http://{}", forward.addr());
    let ar_ca = shop.ca_dir.path().join("ca.pem").display().to_string();
    for path in PATHS {
        curl(&["--proxy", &via, "--cacert", &ar_ca], &shop.url(path));
        forward.wait_for(&shop.url(path.split('?').next().unwrap()));
    }
    let (_, status) = forward.stop();
    assert!(status.success(), "exit status {status}");

    let reverse_out = dir.path().join("reverse");
    let origin = shop.url("");
    let mut args = scope.to_vec();
    args.extend(["--reverse", &origin]);
    let reverse = proxy_to(&shop, &reverse_out, &args);
    let base = format!("http://{}", reverse.addr());
    for path in PATHS {
        curl(&[], &format!("{base}{path}"));
        reverse.wait_for(&shop.url(path.split('?').next().unwrap()));
    }
    let (_, status) = reverse.stop();
    assert!(status.success(), "exit status {status}");

    let spec = |out: &Path| std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    let (forward, reverse) = (spec(&forward_out), spec(&reverse_out));
    assert!(forward.contains("/users/{userId}:"), "{forward}");
    assert!(forward.contains(&origin), "{forward}");
    assert_eq!(forward, reverse);
}

#[test]
fn the_web_view_shows_a_reverse_flow_under_its_origin_and_replays_it() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let origin = shop.url("");
    let proxy = proxy_to(&shop, &out, &["--reverse", &origin, "--scope", "shop.test"]);
    let (authority, token) = proxy.ui();
    let (authority, token) = (authority.as_str(), token.as_str());
    curl(&[], &format!("http://{}/api/users/1", proxy.addr()));
    proxy.wait_for(&shop.url("/api/users/1"));

    let get = |target: &str| crate::web::raw(authority, authority, "GET", target);
    let listed = crate::settled(
        std::time::Duration::from_secs(10),
        || get(&format!("/api/flows?token={token}&q=users")),
        |answer| !answer.contains(r#""total":1"#),
    );
    assert!(listed.contains(&shop.url("/api/users/1")), "{listed}");
    let body = listed.split("\r\n\r\n").nth(1).unwrap();
    let rows: serde_json::Value = serde_json::from_str(body).unwrap();
    // Replayed through the proxy's forward side (CONNECT), as in forward mode.
    let edited = serde_json::json!({
        "from": rows["rows"][0]["id"],
        "method": "GET",
        "url": shop.url("/api/users/2"),
        "headers": [["accept", "application/json"]],
    });
    let replayed = crate::web::raw_with_body(
        authority,
        authority,
        "POST",
        &format!("/api/replay?token={token}"),
        &edited.to_string(),
    );
    assert!(replayed.contains(r#""ok":true"#), "{replayed}");
    proxy.wait_for(&shop.url("/api/users/2"));
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    let (replays, archive) = crate::shop::replayed_flows(&out);
    assert_eq!(replays.len(), 1, "{archive}");
    assert_eq!(replays[0]["request"]["url"], shop.url("/api/users/2"));
    assert_eq!(replays[0]["response"]["status"], 200);
}

#[test]
fn an_origin_that_does_not_answer_is_a_502_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (out, ca) = (dir.path().join("out"), dir.path().join("ca"));
    let proxy = RunningProxy::start(&[
        "--out",
        out.to_str().unwrap(),
        "--ca-dir",
        ca.to_str().unwrap(),
        "--offline",
        "--no-ui",
        "--reverse",
        &origin,
    ]);
    let output = Command::new("curl")
        .args(["-sS", "--max-time", "20", "--include"])
        .arg(format!("http://{}/v1/users", proxy.addr()))
        .output()
        .unwrap();
    let answer = crate::text(&output.stdout);
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
    let named = origin.trim_start_matches("http://");
    assert!(
        answer.contains(&format!("connecting to {named}")),
        "{answer}"
    );
    let line = proxy.wait_for("/v1/users");
    assert!(
        line.starts_with(&format!("err connect GET {origin}/v1/users")),
        "{line}"
    );
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
}

#[test]
fn a_bad_reverse_value_is_refused_naming_the_flag_and_its_form() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for bad in ["api.example.com", "https://api.example.com/v1", "/api"] {
        let output = crate::ar_run(&["proxy", "--out", out.to_str().unwrap(), "--reverse", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
        let stderr = crate::text(&output.stderr);
        assert!(stderr.contains("--reverse"), "{stderr}");
        assert!(
            stderr.contains("[/PREFIX=]http(s)://HOST[:PORT]"),
            "{stderr}"
        );
    }
    let output = crate::ar_run(&["proxy", "--out", out.to_str().unwrap(), "--rewrite-urls"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(crate::text(&output.stderr).contains("--reverse"));
    assert!(!out.exists(), "nothing was started");
}
