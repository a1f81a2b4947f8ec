//! The live web view in real Chromium: an `ar` session on the fixture shop
//! serves its page; a second, plain headless Chromium (no proxy) opens it
//! and watches flows arrive while the session's browser loads shop pages,
//! opens one flow, and a client without the token is turned away.
//! Each test saves a screenshot under `target/tmp/`.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::time::{Duration, Instant};

use ar_agent::browser::{Browser, Snapshot};

use super::shop::{Shop, lines_of, wait_bounded, wait_for};
use ar_browser::{BrowserConfig, ChromeBrowser};

/// A running `ar` session with its stdin open for commands.
struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    seen: String,
    /// The page's URL, token included.
    ui: String,
}

impl Running {
    fn start(shop: &Shop, out: &std::path::Path) -> Self {
        let mut command = shop.ar(&[]);
        command.arg("--out").arg(out).stdin(Stdio::piped());
        let mut child = command.spawn().expect("ar starts");
        let stdin = child.stdin.take().unwrap();
        let lines = lines_of(&mut child);
        let mut seen = String::new();
        wait_for(&lines, "  ui       http://127.0.0.1:", &mut seen);
        let ui = seen
            .lines()
            .find_map(|l| l.trim().strip_prefix("ui"))
            .map(|u| u.trim().to_owned())
            .unwrap();
        // The session's own browser has opened the target by now.
        wait_for(&lines, "  opened", &mut seen);
        Self {
            child,
            stdin,
            lines,
            seen,
            ui,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    fn wait_for(&mut self, needle: &str) {
        wait_for(&self.lines, needle, &mut self.seen);
    }

    /// `host:port` of the page.
    fn authority(&self) -> String {
        self.ui
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .to_owned()
    }

    fn token(&self) -> String {
        self.ui.split("token=").nth(1).unwrap().to_owned()
    }

    fn quit(mut self) {
        self.send("/quit");
        drop(self.stdin);
        let status = wait_bounded(&mut self.child, Duration::from_secs(60));
        assert!(status.success(), "ar failed:\n{}", self.seen);
    }
}

/// Sends one GET by hand (any `Host`) and returns the whole answer.
fn raw_get(authority: &str, host: &str, target: &str) -> String {
    raw(authority, host, "GET", target)
}

/// Sends one bodiless HTTP/1.1 request by hand and returns the whole answer
/// (an event stream: what came within ten seconds).
pub(crate) fn raw(authority: &str, host: &str, method: &str, target: &str) -> String {
    raw_with_body(authority, host, method, target, "")
}

/// Sends one HTTP/1.1 request with `body` by hand and returns the whole answer.
pub(crate) fn raw_with_body(
    authority: &str,
    host: &str,
    method: &str,
    target: &str,
    body: &str,
) -> String {
    let mut stream = TcpStream::connect(authority).unwrap();
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    // An SSE answer never ends: what came within the timeout is enough.
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// Snapshots until `found` holds (bounded), returning that snapshot.
async fn until(browser: &ChromeBrowser, what: &str, found: impl Fn(&Snapshot) -> bool) -> Snapshot {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let snapshot = browser.snapshot().await.expect("snapshot");
        if found(&snapshot) {
            return snapshot;
        }
        assert!(
            Instant::now() < deadline,
            "the page never showed {what}; it showed:\n{}",
            snapshot.outline()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The fixture shop and a running session on it, writing to a fresh directory.
fn session() -> (Shop, tempfile::TempDir, Running) {
    let shop = Shop::start();
    let out = tempfile::tempdir().unwrap();
    let ar = Running::start(&shop, out.path());
    (shop, out, ar)
}

/// A plain headless Chromium (no proxy) to look at the page with.
async fn viewer() -> ChromeBrowser {
    let config = BrowserConfig {
        headless: true,
        window: (1400, 900),
        ..BrowserConfig::default()
    };
    ChromeBrowser::launch(&config)
        .await
        .expect("chromium + chromedriver start (apt-get install chromium chromium-driver)")
}

/// The page's outline once it shows `text`.
async fn shows(browser: &ChromeBrowser, text: &str) -> String {
    until(browser, text, |s| s.outline().contains(text))
        .await
        .outline()
}

/// Opens the tab `name` and returns the outline once it shows `text`.
async fn show_tab(browser: &ChromeBrowser, name: &str, text: &str) -> String {
    click_named(browser, name, |n| n == name).await;
    shows(browser, text).await
}

/// Waits for an element whose name passes `wanted`, clicks it (again, when
/// the rows still arriving redrew it first) and returns its name.
async fn click_named(browser: &ChromeBrowser, what: &str, wanted: impl Fn(&str) -> bool) -> String {
    for _ in 0..5 {
        let snapshot = until(browser, what, |s| {
            s.elements.iter().any(|e| wanted(&e.name))
        })
        .await;
        let element = snapshot.elements.iter().find(|e| wanted(&e.name)).unwrap();
        match browser.click(element.reference).await {
            Ok(()) => return element.name.clone(),
            Err(error) => eprintln!("clicking {what} again: {error}"),
        }
    }
    panic!("cannot click {what}");
}

fn screenshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"))
}

/// Saves what the page shows as `target/tmp/<name>.png`, then closes the browser.
async fn screenshot_and_close(browser: ChromeBrowser, name: &str) {
    browser.screenshot(&screenshot_path(name)).await.unwrap();
    browser.close().await;
}

#[test]
fn flows_appear_live_and_a_flow_opens_with_its_body() {
    let (shop, _out, mut ar) = session();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let product = shop.url("/products/101");
    runtime.block_on(async {
        let browser = viewer().await;
        browser.navigate(&ar.ui).await.expect("the page loads");
        until(&browser, "the stream connected", |s| {
            s.outline().contains("live")
        })
        .await;
        let before = browser.snapshot().await.unwrap().outline();
        assert!(!before.contains("/api/products/101"), "{before}");

        // The session's browser loads a product page; the open page, never
        // reloaded, lists the API call it made.
        ar.send(&format!("/open {product}"));
        // Opening it shows the response body (pretty JSON) and the endpoint it joined.
        let row = click_named(&browser, "the product's API call", |name| {
            name.contains("/api/products/101")
        })
        .await;
        assert!(row.contains("GET") && row.contains("200"), "{row}");
        let detail = until(&browser, "the flow's body", |s| {
            s.outline().contains("The Aurora Backpack is built to last")
        })
        .await;
        let text = detail.outline();
        assert!(text.contains(r#""category": "bags""#), "{text}");
        assert!(!text.contains("text: null"), "{text}");
        assert!(text.contains("text: Endpoint:"), "{text}");
        assert!(text.contains("/api/products/{productId}\" [ref="), "{text}");
        assert!(text.contains("application/json"), "{text}");
        browser
            .screenshot(&screenshot_path("web-flow-detail"))
            .await
            .unwrap();

        // The endpoint it joined, with the templating evidence.
        show_tab(&browser, "Endpoints", "endpoints").await;
        click_named(&browser, "the endpoint", |n| {
            n == "/api/products/{productId}"
        })
        .await;
        let text = shows(&browser, "Why this template").await;
        assert!(text.contains("productId"), "{text}");
        assert!(text.contains("$.category string"), "{text}");

        // The spec, rendered, with its downloads.
        let text = show_tab(&browser, "Spec", "/api/products/{productId}").await;
        assert!(text.contains("Download openapi.yaml"), "{text}");
        assert!(text.contains("since this page was opened"), "{text}");

        // The session: who drives and the counters.
        let text = show_tab(&browser, "Session", "endpoints").await;
        assert!(
            text.contains("human") && text.contains("in scope"),
            "{text}"
        );
        browser.close().await;
    });
    ar.quit();
}

#[test]
fn requests_without_the_token_or_from_a_foreign_host_get_403_and_are_logged() {
    let (_shop, _out, mut ar) = session();
    let authority = ar.authority();
    let token = ar.token();

    for target in ["/", "/api/flows", "/api/events", "/openapi.yaml"] {
        let answer = raw_get(&authority, &authority, target);
        assert!(answer.starts_with("HTTP/1.1 403"), "{target}: {answer}");
        assert!(!answer.contains("access-control-allow"), "{answer}");
    }
    let wrong = raw_get(&authority, &authority, "/api/flows?token=0123");
    assert!(wrong.starts_with("HTTP/1.1 403"), "{wrong}");
    // DNS rebinding: the right token under a foreign name is refused too.
    let rebound = raw_get(
        &authority,
        "attacker.test",
        &format!("/api/flows?token={token}"),
    );
    assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    let page = raw_get(&authority, &authority, &format!("/api/flows?token={token}"));
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("\"total\":"), "{page}");
    ar.wait_for("web view: refused GET /api/flows");
    // The log names what was refused, never a token, right or wrong.
    for line in ar.seen.lines().filter(|l| l.contains("refused")) {
        assert!(!line.contains(&token) && !line.contains("0123"), "{line}");
    }

    // What a person sees who opens the address without its token.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let browser = viewer().await;
        browser
            .navigate(&format!("http://{authority}/"))
            .await
            .unwrap();
        let snapshot = browser.snapshot().await.unwrap();
        assert!(
            snapshot.outline().contains("forbidden"),
            "{}",
            snapshot.outline()
        );
        screenshot_and_close(browser, "web-forbidden").await;
    });
    ar.quit();
}

#[test]
fn a_correction_rewrites_the_spec_and_stays_with_the_session() {
    let (shop, out, mut ar) = session();
    let product = shop.url("/products/101");
    let spec_file = out.path().join("openapi.yaml");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let browser = viewer().await;
        ar.send(&format!("/open {product}"));
        ar.wait_for("/api/products/{productId}");
        browser.navigate(&ar.ui).await.expect("the page loads");
        show_tab(&browser, "Endpoints", "endpoints").await;
        click_named(&browser, "the endpoint", |n| {
            n == "/api/products/{productId}"
        })
        .await;
        // `101` is no id but a name here: the user makes it a literal.
        click_named(&browser, "make it a literal", |n| {
            n == r#"Make "{productId}" a literal"#
        })
        .await;
        let done = until(&browser, "the correction's answer", |s| {
            s.outline().contains("re-documented")
        })
        .await;
        assert!(
            done.outline().contains("/api/products/101"),
            "{}",
            done.outline()
        );
        screenshot_and_close(browser, "web-correction").await;
    });
    // The spec on disk says so at once, without waiting for an exit.
    let spec = std::fs::read_to_string(&spec_file).unwrap();
    assert!(spec.contains("/api/products/101:"), "{spec}");
    assert!(!spec.contains("/api/products/{productId}:"), "{spec}");
    ar.quit();
    let manifest = std::fs::read_to_string(out.path().join("session.json")).unwrap();
    assert!(manifest.contains("/api/products/101"), "{manifest}");

    // `ar import` of the directory applies the correction too.
    let imported = imported_spec(out.path());
    assert!(imported.contains("/api/products/101:"), "{imported}");
}

/// `ar import` of `dir` into a fresh directory: its `openapi.yaml`.
fn imported_spec(dir: &std::path::Path) -> String {
    let again = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_ar"))
        .arg("import")
        .arg(dir)
        .arg("--out")
        .arg(again.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read_to_string(again.path().join("openapi.yaml")).unwrap()
}

/// Opens the endpoint `template` on the Endpoints tab.
async fn open_endpoint(browser: &ChromeBrowser, template: &str) {
    show_tab(browser, "Endpoints", "endpoints").await;
    click_named(browser, template, |n| n == template).await;
    shows(browser, "Correct the template").await;
}

/// Waits for the page to say a correction was applied, and returns its outline.
async fn corrected(browser: &ChromeBrowser, done_before: usize) -> String {
    until(browser, "the correction's answer", |s| {
        s.outline().matches("re-documented").count() > done_before
    })
    .await
    .outline()
}

#[test]
fn a_split_and_a_merge_rewrite_the_spec_and_the_flows_follow_their_endpoint() {
    let (shop, out, mut ar) = session();
    let spec_file = out.path().join("openapi.yaml");
    ar.send(&format!("/open {}", shop.url("/products/101")));
    ar.wait_for("/api/products/{productId}");
    ar.send(&format!("/open {}", shop.url("/products/102")));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let browser = viewer().await;
        browser.navigate(&ar.ui).await.expect("the page loads");
        // Both products were fetched before the split.
        shows(&browser, "/api/products/102").await;

        // Split: product 101 gets an endpoint of its own.
        open_endpoint(&browser, "/api/products/{productId}").await;
        let snapshot = until(&browser, "the split form", |s| {
            s.elements
                .iter()
                .any(|e| e.name == r#"Value of "{productId}" to split off"#)
        })
        .await;
        let value = snapshot
            .elements
            .iter()
            .find(|e| e.name == r#"Value of "{productId}" to split off"#)
            .unwrap();
        // Picked among the values the flows had.
        browser.select(value.reference, "101").await.unwrap();
        click_named(&browser, "split off", |n| {
            n == r#"Split a value off "{productId}""#
        })
        .await;
        let done = corrected(&browser, 0).await;
        assert!(done.contains("/api/products/101"), "{done}");
        let spec = std::fs::read_to_string(&spec_file).unwrap();
        assert!(spec.contains("/api/products/101:"), "{spec}");
        assert!(spec.contains("/api/products/{productId}:"), "{spec}");

        // The flow captured into `{productId}` now shows the endpoint it is in.
        click_named(&browser, "Flows", |n| n == "Flows").await;
        click_named(&browser, "the product's API call", |n| {
            n.contains("/api/products/101") && n.contains("GET")
        })
        .await;
        let endpoint = format!("GET shop.test:{}/api/products/101", shop.port());
        until(&browser, "the flow's endpoint now", |s| {
            s.elements.iter().any(|e| e.name == endpoint)
        })
        .await;
        browser
            .screenshot(&screenshot_path("web-split"))
            .await
            .unwrap();

        // Merge: 101 goes back under `{productId}`, the template the user writes.
        open_endpoint(&browser, "/api/products/101").await;
        let form = until(&browser, "the merge form", |s| {
            s.elements.iter().any(|e| e.name == "Merge with")
        })
        .await;
        let pick = form
            .elements
            .iter()
            .find(|e| e.name == "Merge with")
            .unwrap();
        browser
            .select(pick.reference, "GET /api/products/{productId}")
            .await
            .unwrap();
        let template = form
            .elements
            .iter()
            .find(|e| e.name == "Merged template")
            .unwrap();
        browser
            .type_text(template.reference, "/api/products/{productId}", false)
            .await
            .unwrap();
        click_named(&browser, "merge", |n| n == "Merge the two endpoints").await;
        corrected(&browser, 0).await;
        screenshot_and_close(browser, "web-merge").await;
    });
    let spec = std::fs::read_to_string(&spec_file).unwrap();
    assert!(spec.contains("/api/products/{productId}:"), "{spec}");
    assert!(!spec.contains("/api/products/101:"), "{spec}");
    ar.quit();
    // Kept with the session: `ar import` of the directory merges too.
    let manifest = std::fs::read_to_string(out.path().join("session.json")).unwrap();
    assert!(manifest.contains("/api/products/101"), "{manifest}");
    let imported = imported_spec(out.path());
    assert!(
        imported.contains("/api/products/{productId}:"),
        "{imported}"
    );
    assert!(!imported.contains("/api/products/101:"), "{imported}");
}

#[test]
fn an_edited_request_replayed_through_the_proxy_is_a_replay_flow() {
    let (shop, out, mut ar) = session();
    ar.send(&format!("/open {}", shop.url("/products/101")));
    ar.wait_for("/api/products/{productId}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let browser = viewer().await;
        browser.navigate(&ar.ui).await.expect("the page loads");
        click_named(&browser, "the product's API call", |n| {
            n.contains("/api/products/101")
        })
        .await;
        click_named(&browser, "Edit and replay", |n| n == "Edit and replay").await;
        let form = until(&browser, "the replay form", |s| {
            s.elements.iter().any(|e| e.name == "Replay URL")
        })
        .await;
        let url = form
            .elements
            .iter()
            .find(|e| e.name == "Replay URL")
            .unwrap();
        browser
            .type_text(url.reference, &shop.url("/api/products/102"), false)
            .await
            .unwrap();
        click_named(&browser, "Send", |n| n == "Send through ar's proxy").await;
        let sent = until(&browser, "the replay's answer", |s| {
            s.outline().contains("replayed GET")
        })
        .await;
        assert!(sent.outline().contains(": 200 OK"), "{}", sent.outline());
        // The answer was captured: a new row, stamped replay, without a reload.
        let listed = until(&browser, "the replayed flow", |s| {
            s.elements
                .iter()
                .any(|e| e.name.contains("/api/products/102") && e.name.contains("replay"))
        })
        .await;
        assert!(listed.outline().contains("/api/products/101"));
        screenshot_and_close(browser, "web-replay").await;
    });
    ar.quit();
    let (replayed, archive) = super::shop::replayed_flows(out.path());
    assert_eq!(replayed.len(), 1, "{archive}");
    assert!(
        replayed[0]["request"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/api/products/102")
    );
    assert_eq!(replayed[0]["response"]["status"], 200);
    assert!(!archive.contains("x-ar-replay"), "the mark is not archived");
}

/// Flows in the archive the benchmark opens.
const BENCH_FLOWS: u64 = 100_000;

/// Appends `count` synthetic flows (20 endpoints on the shop's host, small
/// JSON answers, ids after `first`) to `dir/flows.jsonl`.
fn append_synthetic_flows(dir: &std::path::Path, host: &str, first: u64, count: u64) {
    use ar_flow::archive::{ArchiveWriter, MemoryBodyStore};
    use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("flows.jsonl"))
        .unwrap();
    let mut writer = ArchiveWriter::new(std::io::BufWriter::new(file));
    let mut bodies = MemoryBodyStore::default();
    for i in 0..count {
        let id = first + i;
        let url = format!("https://{host}/api/things{}/{}", i % 20, i);
        let mut response = Response::new(if i % 50 == 0 { 404 } else { 200 }, HttpVersion::Http2);
        response.body = Body::from_decoded(
            Some("application/json".into()),
            format!(r#"{{"id":{i},"name":"thing {i}","tags":["a","b"]}}"#).into_bytes(),
        );
        let mut flow = Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(1_700_000_000_000_000 + i as i64 * 1000),
            Client::Explorer,
            Request::new("GET", url, HttpVersion::Http2),
        )
        .with_response(response);
        flow.ended = Some(Timestamp::from_unix_micros(
            1_700_000_000_000_000 + i as i64 * 1000 + 12_000,
        ));
        writer.append(&flow, &mut bodies).unwrap();
    }
}

/// benches/notes/web-view.md: an archive of 100,000 flows resumed,
/// then the page opened in Chromium: time to the first rows drawn and to
/// a filtered list, as the page itself says them (its status line), and
/// the server's answer to one filtered page of rows.
/// `cargo test --release -p ar-cli --test it web::bench -- --ignored --nocapture`
#[test]
#[ignore = "a benchmark: a minute on two cores"]
fn bench_first_rows_and_filter_at_100k_flows() {
    let shop = Shop::start();
    let out = tempfile::tempdir().unwrap();
    // A real session first (session.json, the shop's own flows), then 100k more.
    let ar = Running::start(&shop, out.path());
    ar.quit();
    let host = format!("shop.test:{}", shop.port());
    append_synthetic_flows(out.path(), &host, 1_000, BENCH_FLOWS);

    let started = Instant::now();
    let mut command = shop.ar(&[]);
    command
        .arg("--resume")
        .arg(out.path())
        .stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let lines = lines_of(&mut child);
    let mut seen = String::new();
    // Re-documenting 100,000 flows takes longer than `wait_for`'s minute in a debug build.
    while !seen.contains("  ui       http://127.0.0.1:") {
        assert!(started.elapsed() < Duration::from_secs(900), "{seen}");
        if let Ok(line) = lines.recv_timeout(Duration::from_secs(1)) {
            seen.push_str(&line);
            seen.push('\n');
        }
    }
    let resumed = started.elapsed();
    let ui = seen
        .lines()
        .find_map(|l| l.trim().strip_prefix("ui"))
        .map(|u| u.trim().to_owned())
        .unwrap();
    wait_for(&lines, "  opened", &mut seen);
    let ar = Running {
        child,
        stdin,
        lines,
        seen,
        ui,
    };

    let authority = ar.authority();
    let token = ar.token();
    let api = Instant::now();
    let answer = raw_get(
        &authority,
        &authority,
        &format!("/api/flows?token={token}&q=things7&status=404&offset=0&limit=100"),
    );
    let api = api.elapsed();
    assert!(answer.contains(r#""total":"#), "{answer}");
    let text_only = Instant::now();
    let answer = raw_get(
        &authority,
        &authority,
        &format!("/api/flows?token={token}&q=things7/&offset=0&limit=100"),
    );
    let text_only = text_only.elapsed();
    assert!(answer.contains(r#""total":5000"#), "{answer}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (first, filtered) = runtime.block_on(async {
        let browser = viewer().await;
        browser.navigate(&ar.ui).await.unwrap();
        let painted = until(&browser, "the first rows", |s| {
            s.outline().contains("first rows in")
        })
        .await;
        let first = between(&painted.outline(), "first rows in ", " ms");
        assert!(painted.outline().contains("100,"), "{}", painted.outline());
        let filter = painted
            .elements
            .iter()
            .find(|e| e.name == "Filter text")
            .unwrap();
        browser
            .type_text(filter.reference, "things7/", false)
            .await
            .unwrap();
        let done = until(&browser, "the filtered rows", |s| {
            s.outline().contains("filtered in")
        })
        .await;
        let filtered = between(&done.outline(), "filtered in ", " ms");
        screenshot_and_close(browser, "web-100k-filtered").await;
        (first, filtered)
    });
    println!(
        "resume of {BENCH_FLOWS} flows to the page's URL: {:.1} s; /api/flows page filtered by \
         text and status: {} ms, by text alone: {} ms; first rows drawn: {first} ms after navigation; \
         filtered list drawn: {filtered} ms after the filter applied",
        resumed.as_secs_f64(),
        api.as_millis(),
        text_only.as_millis()
    );
    ar.quit();
}

/// The number between `before` and `after` in `text`.
fn between(text: &str, before: &str, after: &str) -> u64 {
    let rest = text.split(before).nth(1).unwrap();
    rest.split(after).next().unwrap().trim().parse().unwrap()
}
