//! The real browser: headless Chromium through chromedriver against pages a
//! tiny local HTTP server serves. Each test starts one browser (about a
//! second) and checks several behaviours with it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ar_agent::browser::{Browser, BrowserError, DialogAction, Scroll, Wait, diff};
use ar_browser::{BrowserConfig, ChromeBrowser, LaunchError};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

const HOME: &str = r#"<!doctype html>
<html><head><title>Test Shop</title><style>.gone { display: none }</style></head>
<body>
<header><nav aria-label="Main"><a href="/">Home</a> <a href="/products?page=2">Next page</a></nav></header>
<main>
<h1>Products</h1>
<p>Welcome to the <b>test</b> shop.</p>
<div class="gone"><a href="/secret">Secret link</a> display none text</div>
<div style="visibility:hidden"><button>Invisible button</button></div>
<div hidden>hidden attribute text</div>
<div aria-hidden="true">aria hidden text</div>
<input type="hidden" name="csrf" value="tok">
<ul><li><a href="/p/1">Widget</a> $9.99</li><li>Plain item</li></ul>
<form action="/submit" method="post">
  <label for="email">Email</label><input id="email" name="email" type="email" required>
  <label>Full name <input name="name"></label>
  <input name="q" placeholder="Search products">
  <input name="code" aria-label="Promo code">
  <span id="cl">Country</span>
  <select name="country" aria-labelledby="cl"><option value="fr">France</option><option value="de">Germany</option></select>
  <textarea name="note" title="Note for the seller"></textarea>
  <label><input type="checkbox" name="news"> Newsletter</label>
  <label style="cursor:pointer"><input type="checkbox" name="dark" style="display:none"> Dark mode</label>
  <button type="submit">Save</button>
</form>
<form action="/search" method="post">
  <input name="a" aria-label="First"><input name="b" aria-label="Second">
</form>
<a href="/tab" target="_blank">Open tab</a>
<button onclick="document.getElementById('victim').remove()">Remove victim</button>
<button id="victim">Victim</button>
<button onclick="alert('Are you sure?'); document.title = 'Warned'">Warn me</button>
<button onclick="fetch('/api/slow').then(r => r.text()).then(t => { document.getElementById('out').textContent = t })">Load more</button>
<button onclick="fetch('/api/hang')">Hang</button>
<button onclick="new Worker('/worker.js').onmessage = (m) => { document.getElementById('bg').textContent = m.data }">Start worker</button>
<button onclick="fetch('/api/stream').then(r => r.body.getReader().read()).then(() => { document.getElementById('bg').textContent = 'First chunk' })">Stream</button>
<div id="out"></div>
<div id="bg"></div>
<div style="cursor:pointer" onclick="this.textContent = 'Added!'">Add to cart</div>
<div style="position:relative"><button onclick="document.title = 'Covered clicked'">Covered</button>
<div style="position:absolute; inset:0; background:rgba(0,0,0,0.1)"></div></div>
<img alt="Shop logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<shadow-card></shadow-card>
<script>
customElements.define('shadow-card', class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({ mode: 'open' }).innerHTML = '<button>Shadow button</button>';
  }
});
</script>
</main></body></html>"#;

/// A field kept the way component frameworks keep one (React's value
/// tracking): its state changes only on input events that change what the
/// page last wrote into it, and every re-render (here on blur and change)
/// writes the state back.
const KEPT: &str = r#"<!doctype html>
<html><head><title>Kept</title></head><body>
<label>Name <input id="kept"></label> <output id="state">state=</output>
<script>
const el = document.getElementById('kept'), out = document.getElementById('state');
const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
let state = '', tracked = '';
Object.defineProperty(el, 'value', {
  get() { return native.get.call(this); },
  set(v) { tracked = String(v); native.set.call(this, v); },
});
el.addEventListener('input', () => {
  const v = native.get.call(el);
  if (v === tracked) return;
  tracked = v; state = v; out.textContent = 'state=' + state;
});
const render = () => { el.value = state; };
el.addEventListener('blur', render);
el.addEventListener('change', render);
</script></body></html>"#;

/// What the server saw: `METHOD /path body`.
type Seen = Arc<Mutex<Vec<String>>>;

/// A one-file HTTP/1.1 server on 127.0.0.1:0 (`Connection: close`).
async fn serve() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                let (head, body_start) = loop {
                    let Ok(n) = stream.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break (String::from_utf8_lossy(&buf[..i]).into_owned(), i + 4);
                    }
                };
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap_or(0))
                    })
                    .unwrap_or(0);
                while buf.len() < body_start + length {
                    let Ok(n) = stream.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let body = String::from_utf8_lossy(&buf[body_start..]).into_owned();
                let mut request_line = head.lines().next().unwrap_or_default().split(' ');
                let (method, path) = (
                    request_line.next().unwrap_or_default(),
                    request_line.next().unwrap_or_default(),
                );
                log.lock()
                    .unwrap()
                    .push(format!("{method} {path} {body}").trim_end().to_owned());
                let cookie = head.lines().find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("cookie")
                        .then(|| value.trim().to_owned())
                });
                if let Some(cookie) = cookie {
                    log.lock().unwrap().push(format!("cookie {path} {cookie}"));
                }
                let set_cookie = if path == "/set-cookie" {
                    "set-cookie: ar_test=kept; Max-Age=3600; Path=/\r\n"
                } else {
                    ""
                };
                if path == "/api/stream" {
                    // A head and one chunk, then nothing for longer than any wait.
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n";
                    let _ = stream.write_all(head.as_bytes()).await;
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    return;
                }
                let content_type = if path.ends_with(".js") {
                    "text/javascript"
                } else {
                    "text/html; charset=utf-8"
                };
                let page = match path {
                    "/" => HOME.to_owned(),
                    "/kept" => KEPT.to_owned(),
                    "/worker.js" => "postMessage('Worker ready');".to_owned(),
                    "/api/slow" => {
                        tokio::time::sleep(Duration::from_millis(800)).await;
                        "Loaded 3 items".to_owned()
                    }
                    "/api/hang" => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        String::new()
                    }
                    "/submit" | "/search" => "<title>Thanks</title><h1>Thanks</h1>".to_owned(),
                    "/tab" => {
                        "<title>New tab</title><button onclick=\"window.close()\">Close me</button>"
                            .to_owned()
                    }
                    other => format!(
                        "<title>Page {other}</title><h1>Page {other}</h1><a href=\"/\">Home</a>"
                    ),
                };
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\n{set_cookie}content-length: {}\r\nconnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    (base, seen)
}

async fn headless() -> ChromeBrowser {
    let config = BrowserConfig {
        headless: true,
        ..BrowserConfig::default()
    };
    ChromeBrowser::launch(&config)
        .await
        .expect("chromium + chromedriver start (apt-get install chromium chromium-driver)")
}

fn find<'a>(
    snapshot: &'a ar_agent::browser::Snapshot,
    role: &str,
    name: &str,
) -> &'a ar_agent::browser::ElementInfo {
    snapshot
        .elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{snapshot}"))
}

/// Whether a process exists and is not a zombie waiting to be reaped.
fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Processes still mentioning `needle` after at most `within`.
fn processes_left(needle: &str, within: Duration) -> Vec<String> {
    crate::settled(
        within,
        || processes_mentioning(needle),
        |left| !left.is_empty(),
    )
}

/// Processes whose command line mentions `needle` (Chromium carries its profile dir).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(needle) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_outlines_the_page_and_refs_drive_it() {
    let (base, _) = serve().await;
    let browser = headless().await;
    browser.navigate(&format!("{base}/")).await.unwrap();
    let snapshot = browser.snapshot().await.unwrap();
    let text = snapshot.to_string();
    assert!(
        text.starts_with(&format!("url: {base}/\ntitle: Test Shop\n")),
        "{text}"
    );
    for expected in [
        "- heading \"Products\" [level=1]",
        "- text: Welcome to the test shop.",
        "- navigation \"Main\":",
        "[url=/products?page=2]",
        "- img \"Shop logo\"",
    ] {
        assert!(text.contains(expected), "{expected:?} missing in\n{text}");
    }
    // Names from <label for>, a wrapping label, placeholder, aria-label, aria-labelledby, title.
    for (role, name) in [
        ("textbox", "Email"),
        ("textbox", "Full name"),
        ("textbox", "Search products"),
        ("textbox", "Promo code"),
        ("combobox", "Country"),
        ("textbox", "Note for the seller"),
        ("checkbox", "Newsletter"),
        ("button", "Save"),
        ("link", "Widget"),
        ("button", "Shadow button"),
        ("clickable", "Add to cart"),
    ] {
        find(&snapshot, role, name);
    }
    let email = find(&snapshot, "textbox", "Email");
    assert_eq!(
        (email.input_type.as_deref(), email.field_name.as_deref()),
        (Some("email"), Some("email"))
    );
    assert!(email.required);
    assert_eq!(find(&snapshot, "combobox", "Country").options.len(), 2);
    // Hidden things are left out.
    for hidden in [
        "Secret link",
        "display none text",
        "Invisible button",
        "hidden attribute text",
        "aria hidden text",
        "csrf",
    ] {
        assert!(!text.contains(hidden), "{hidden:?} shown in\n{text}");
    }

    // Refs are stable across snapshots; a pointer-cursor div is clickable by ref.
    let again = browser.snapshot().await.unwrap();
    assert_eq!(again.elements, snapshot.elements);
    let add = find(&snapshot, "clickable", "Add to cart").reference;
    browser.click(add).await.unwrap();
    let after = browser.snapshot().await.unwrap();
    let change = diff(&snapshot, &after).to_string();
    assert!(
        change.contains(&format!("+   - clickable \"Added!\" [ref={add}]")),
        "{change}"
    );
    assert!(
        change.len() < text.len() / 4,
        "a diff is much smaller than the page:\n{change}"
    );

    // A button under an overlay still gets its click (script click fallback).
    let covered = find(&snapshot, "button", "Covered").reference;
    browser.click(covered).await.unwrap();
    assert_eq!(browser.page().await.unwrap().title, "Covered clicked");

    // Clicking a link navigates; back returns.
    let next = find(&snapshot, "link", "Next page").reference;
    browser.click(next).await.unwrap();
    let page = browser.page().await.unwrap();
    assert_eq!(
        (page.url.as_str(), page.title.as_str()),
        (
            format!("{base}/products?page=2").as_str(),
            "Page /products?page=2"
        )
    );
    let old = browser.click(add).await.unwrap_err();
    assert_eq!(old.code(), "stale_ref", "{old}");
    assert_eq!(browser.back().await.unwrap().url, format!("{base}/"));
    browser.scroll(Scroll::Bottom).await.unwrap();
    let shot = tempfile::NamedTempFile::new().unwrap();
    browser.screenshot(shot.path()).await.unwrap();
    assert!(std::fs::read(shot.path()).unwrap().starts_with(b"\x89PNG"));

    // Dropping the browser ends chromedriver and every Chromium process.
    let profile = browser.user_data_dir().display().to_string();
    let driver_pid = browser.driver_pid().expect("we started chromedriver");
    assert!(
        !processes_mentioning(&profile).is_empty(),
        "chromium runs with our profile"
    );
    drop(browser);
    let driver_running = crate::settled(Duration::from_secs(5), || is_running(driver_pid), |r| *r);
    assert!(!driver_running, "chromedriver outlived the browser");
    let left = processes_left(&profile, Duration::from_secs(5));
    assert!(left.is_empty(), "processes outlived the browser: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_selecting_and_submitting_reach_the_server() {
    let (base, seen) = serve().await;
    let browser = headless().await;
    browser.navigate(&format!("{base}/")).await.unwrap();
    let snapshot = browser.snapshot().await.unwrap();
    let field = |role: &str, name: &str| find(&snapshot, role, name).reference;

    browser
        .type_text(field("textbox", "Email"), "ann@shop.test", false)
        .await
        .unwrap();
    browser
        .type_text(field("textbox", "Full name"), "Ann", false)
        .await
        .unwrap();
    assert_eq!(
        browser
            .select(field("combobox", "Country"), "Germany")
            .await
            .unwrap(),
        "Germany"
    );
    let missing = browser
        .select(field("combobox", "Country"), "Spain")
        .await
        .unwrap_err();
    assert_eq!(
        missing.to_string(),
        format!(
            "option \"Spain\" in {} not found: its options are \"France\", \"Germany\"",
            field("combobox", "Country")
        )
    );
    let not_select = browser
        .select(field("button", "Save"), "x")
        .await
        .unwrap_err();
    assert_eq!(not_select.code(), "not_interactable");
    browser
        .click(field("checkbox", "Newsletter"))
        .await
        .unwrap();
    // A styled switch: the input is hidden, its label is what gets a ref and a click.
    browser.click(field("checkbox", "Dark mode")).await.unwrap();
    let filled = browser.snapshot().await.unwrap();
    let filled_text = filled.outline();
    assert!(
        filled_text.contains("- combobox \"Country\""),
        "{filled_text}"
    );
    assert!(filled_text.contains(": Germany"), "{filled_text}");
    assert!(filled_text.contains("[checked]"), "{filled_text}");
    assert!(
        filled_text.contains("[type=email] [required]: ann@shop.test"),
        "{filled_text}"
    );

    // Enter in a field of a form with a submit button submits it.
    browser
        .type_text(field("textbox", "Search products"), "blue mug", true)
        .await
        .unwrap();
    browser.wait(Wait::network_idle()).await.unwrap();
    assert_eq!(browser.page().await.unwrap().title, "Thanks");
    let posted = seen
        .lock()
        .unwrap()
        .iter()
        .find(|l| l.starts_with("POST /submit"))
        .cloned()
        .unwrap_or_default();
    for part in [
        "email=ann%40shop.test",
        "name=Ann",
        "q=blue+mug",
        "country=de",
        "news=on",
        "dark=on",
    ] {
        assert!(posted.contains(part), "{part} missing in {posted:?}");
    }

    // A form without a submit button and two fields is submitted as a form.
    browser.back().await.unwrap();
    let home = browser.snapshot().await.unwrap();
    browser
        .type_text(find(&home, "textbox", "First").reference, "1", false)
        .await
        .unwrap();
    browser
        .type_text(find(&home, "textbox", "Second").reference, "2", true)
        .await
        .unwrap();
    browser.wait(Wait::network_idle()).await.unwrap();
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|l| l == "POST /search a=1&b=2"),
        "{:?}",
        seen.lock().unwrap()
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_over_and_emptying_a_field_a_framework_keeps_reach_its_state() {
    let (base, _) = serve().await;
    let browser = headless().await;
    browser.navigate(&format!("{base}/kept")).await.unwrap();
    let snapshot = browser.snapshot().await.unwrap();
    let name = find(&snapshot, "textbox", "Name").reference;
    let state = || async {
        let outline = browser.snapshot().await.unwrap().outline();
        let line = outline
            .lines()
            .find(|l| l.contains("state="))
            .unwrap_or_default()
            .to_owned();
        line.split_once("state=")
            .map(|(_, s)| s.to_owned())
            .unwrap_or_default()
    };
    for (text, kept) in [
        ("Ada Lovelace", "Ada Lovelace"),
        // WebDriver's clear alone is not seen, the page writes the old
        // value back on blur, and the keys would go after it.
        ("explorer1", "explorer1"),
        ("", ""),
    ] {
        browser.type_text(name, text, false).await.unwrap();
        assert_eq!(state().await, kept, "after typing {text:?}");
        let field = browser.snapshot().await.unwrap();
        let value = field.element(name).and_then(|e| e.value.clone());
        assert_eq!(value.as_deref().unwrap_or_default(), kept);
    }
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_refs_dialogs_and_network_waits_fail_loudly() {
    let (base, _) = serve().await;
    let browser = headless().await;
    browser.navigate(&format!("{base}/")).await.unwrap();
    let snapshot = browser.snapshot().await.unwrap();
    let victim = find(&snapshot, "button", "Victim").reference;

    browser
        .click(find(&snapshot, "button", "Remove victim").reference)
        .await
        .unwrap();
    let error = browser.click(victim).await.unwrap_err();
    assert!(
        matches!(error, BrowserError::StaleRef { reference } if reference == victim),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!("ref {victim} is stale: the element is gone from the page; take a new snapshot")
    );
    let unknown = browser.click("e9999".parse().unwrap()).await.unwrap_err();
    assert_eq!(unknown.code(), "not_found", "{unknown}");

    // An alert blocks the page until it is handled.
    browser
        .click(find(&snapshot, "button", "Warn me").reference)
        .await
        .unwrap();
    let blocked = browser.snapshot().await.unwrap_err();
    assert!(
        matches!(&blocked, BrowserError::DialogOpen { text } if text == "Are you sure?"),
        "{blocked}"
    );
    assert_eq!(
        browser.handle_dialog(DialogAction::Dismiss).await.unwrap(),
        "Are you sure?"
    );
    assert_eq!(
        browser
            .handle_dialog(DialogAction::Dismiss)
            .await
            .unwrap_err()
            .code(),
        "no_dialog"
    );
    assert_eq!(browser.snapshot().await.unwrap().title, "Warned");

    // A worker's script and a stream that went quiet after its first chunk
    // are not "loading": Chromium never reports their end to the page.
    for (button, shown) in [("Start worker", "Worker ready"), ("Stream", "First chunk")] {
        browser
            .click(find(&snapshot, "button", button).reference)
            .await
            .unwrap();
        browser
            .wait(Wait::NetworkIdle {
                quiet: Duration::from_millis(300),
                timeout: Duration::from_secs(5),
            })
            .await
            .unwrap_or_else(|e| panic!("after {button:?}: {e}"));
        let outline = browser.snapshot().await.unwrap().outline();
        assert!(outline.contains(&format!("- text: {shown}")), "{outline}");
    }

    // Waiting for network quiet waits for the slow fetch; a hung request times out by name.
    browser
        .click(find(&snapshot, "button", "Load more").reference)
        .await
        .unwrap();
    browser
        .wait(Wait::NetworkIdle {
            quiet: Duration::from_millis(300),
            timeout: Duration::from_secs(10),
        })
        .await
        .unwrap();
    assert!(
        browser
            .snapshot()
            .await
            .unwrap()
            .outline()
            .contains("- text: Loaded 3 items")
    );
    browser
        .click(find(&snapshot, "button", "Hang").reference)
        .await
        .unwrap();
    let hung = browser
        .wait(Wait::NetworkIdle {
            quiet: Duration::from_millis(300),
            timeout: Duration::from_secs(1),
        })
        .await
        .unwrap_err();
    assert!(matches!(hung, BrowserError::Timeout { .. }), "{hung}");
    assert!(
        hung.to_string()
            .contains(&format!("still loading: {base}/api/hang")),
        "{hung}"
    );

    // A link that opens a tab is followed into it; a tab that closes itself hands back.
    browser
        .click(find(&snapshot, "link", "Open tab").reference)
        .await
        .unwrap();
    assert_eq!(browser.page().await.unwrap().title, "New tab");
    let tab = browser.snapshot().await.unwrap();
    browser
        .click(find(&tab, "button", "Close me").reference)
        .await
        .unwrap();
    let closed_tab = browser.page().await.unwrap_err();
    assert!(
        closed_tab.to_string().contains("the tab was closed"),
        "{closed_tab}"
    );
    assert_eq!(browser.page().await.unwrap().title, "Warned");

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let bad = browser
        .navigate(&format!("http://{closed}/"))
        .await
        .unwrap_err();
    assert!(
        matches!(&bad, BrowserError::NavigationFailed { reason, .. } if reason.contains("ERR_CONNECTION_REFUSED")),
        "{bad}"
    );
    assert_eq!(
        browser.press("Hyper").await.unwrap_err().code(),
        "invalid_argument"
    );
    browser.press("Tab").await.unwrap();
    browser.close().await;
}

#[tokio::test]
async fn missing_or_broken_chromedriver_says_how_to_fix_it() {
    let missing = BrowserConfig {
        headless: true,
        chromedriver: Some("/nonexistent/chromedriver".into()),
        ..BrowserConfig::default()
    };
    let error = ChromeBrowser::launch(&missing).await.unwrap_err();
    assert!(
        matches!(error, LaunchError::ChromedriverMissing { .. }),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "chromedriver not found (/nonexistent/chromedriver): install it with `sudo apt-get install chromium chromium-driver`, or pass --webdriver URL"
    );

    // A binary that is not chromedriver exits at once: reported, not waited on forever.
    let broken = BrowserConfig {
        headless: true,
        chromedriver: Some("/bin/false".into()),
        ..BrowserConfig::default()
    };
    let error = ChromeBrowser::launch(&broken).await.unwrap_err();
    assert!(
        matches!(error, LaunchError::ChromedriverExited { .. }),
        "{error}"
    );

    let unreachable = BrowserConfig {
        headless: true,
        webdriver: Some("http://127.0.0.1:9".into()),
        ..BrowserConfig::default()
    };
    let error = ChromeBrowser::launch(&unreachable).await.unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("cannot reach the WebDriver server at http://127.0.0.1:9"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_browser_or_driver_is_reported_not_waited_on() {
    let (base, _) = serve().await;
    let browser = headless().await;
    browser.navigate(&format!("{base}/")).await.unwrap();

    // Chromium dies (OOM killer, crash): the next action says so.
    let profile = browser.user_data_dir().display().to_string();
    for line in processes_mentioning(&profile) {
        if let Some(pid) = line.split(':').next().and_then(|p| p.parse::<i32>().ok()) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
    let error = browser.snapshot().await.unwrap_err();
    assert!(error.is_fatal(), "{error}");
    assert!(error.to_string().contains("restart ar"), "{error}");

    // chromedriver dies too: still an error, not a hang.
    let driver = browser.driver_pid().unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &driver.to_string()])
        .status();
    let error = tokio::time::timeout(Duration::from_secs(20), browser.page())
        .await
        .expect("no hang")
        .unwrap_err();
    assert_eq!(error.code(), "browser_gone", "{error}");
}

/// Snapshot size against the page's HTML on local copies of real pages (the
/// Rust docs shipped with the toolchain) and on the fixture shop. A
/// measurement, not a check: run with `--ignored --nocapture`, figures go to
/// `benches/notes/agent-tool-results.md`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement; prints a table"]
async fn snapshot_sizes() {
    let mut rows = Vec::new();
    let browser = headless().await;
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .unwrap();
    let docs =
        PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim()).join("share/doc/rust/html");
    if docs.is_dir() {
        for page in [
            "book/ch04-01-what-is-ownership.html",
            "std/index.html",
            "std/collections/struct.HashMap.html",
            "std/vec/struct.Vec.html",
        ] {
            let url = format!("file://{}", docs.join(page).display());
            rows.push(measure(&browser, &url, page).await);
        }
    }
    #[cfg(feature = "demo")]
    {
        let site = ar_fixtures::FixtureSite::start(ar_fixtures::FixtureConfig::new())
            .await
            .unwrap();
        let config = BrowserConfig {
            headless: true,
            spki_hashes: vec![site.ca_spki_sha256().to_owned()],
            extra_args: vec![format!(
                "--host-resolver-rules={}",
                site.chromium_host_rules()
            )],
            ..BrowserConfig::default()
        };
        let shop = ChromeBrowser::launch(&config).await.unwrap();
        shop.navigate(&site.url()).await.unwrap();
        shop.wait(Wait::network_idle()).await.unwrap();
        let home = shop.snapshot().await.unwrap();
        let mut urls = vec![home.url.clone()];
        for link in home.elements.iter().filter(|e| e.role == "link") {
            if let Some(href) = &link.href
                && href.starts_with(&site.url())
                && !urls.contains(href)
                && urls.len() < 6
            {
                urls.push(href.clone());
            }
        }
        for url in urls {
            rows.push(measure(&shop, &url, &format!("fixture {url}")).await);
        }
        shop.close().await;
    }
    println!("| page | HTML bytes | snapshot bytes | ~tokens (bytes/4) | lines | refs |");
    println!("|---|---:|---:|---:|---:|---:|");
    for row in rows {
        println!("{row}");
    }
    browser.close().await;
}

async fn measure(browser: &ChromeBrowser, url: &str, label: &str) -> String {
    browser.navigate(url).await.unwrap();
    let _ = browser.wait(Wait::network_idle()).await;
    let html = browser.html_len().await.unwrap();
    let snapshot = browser.snapshot().await.unwrap();
    let bytes = snapshot.text_len();
    if let Some(dir) = std::env::var_os("AR_SNAPSHOT_DUMP") {
        let name: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        std::fs::write(
            PathBuf::from(dir).join(format!("{name}.txt")),
            snapshot.to_string(),
        )
        .unwrap();
    }
    format!(
        "| {label} | {html} | {bytes} | {} | {} | {} |",
        bytes / 4,
        snapshot.lines.len(),
        snapshot.elements.len()
    )
}

/// The child half of `chromium_dies_with_a_killed_ar`: holds a browser until killed.
#[tokio::test]
#[ignore = "helper process for chromium_dies_with_a_killed_ar"]
async fn hold_a_browser_until_killed() {
    if std::env::var_os("AR_BROWSER_HOLD").is_none() {
        return;
    }
    let browser = headless().await;
    println!("profile={}", browser.user_data_dir().display());
    tokio::time::sleep(Duration::from_secs(120)).await;
}

#[test]
fn chromium_dies_with_a_killed_ar() {
    use std::io::BufRead as _;
    // This test binary plays `ar`: it starts a browser, then is SIGKILLed (no Drop runs).
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "browser::hold_a_browser_until_killed",
            "--ignored",
            "--nocapture",
        ])
        .env("AR_BROWSER_HOLD", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(profile) = line.strip_prefix("profile=") {
                let _ = tx.send(profile.to_owned());
            }
        }
    });
    let profile = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the child started a browser");
    assert!(!processes_mentioning(&profile).is_empty(), "chromium runs");
    child.kill().unwrap();
    child.wait().unwrap();
    // The watchdog checks once a second.
    let left = processes_left(&profile, Duration::from_secs(10));
    assert!(left.is_empty(), "chromium outlived a killed ar: {left:?}");
    // The killed child could not remove its temp dir.
    if let Some(work_dir) = PathBuf::from(&profile).parent() {
        let _ = std::fs::remove_dir_all(work_dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_keeps_cookies_across_runs() {
    let (base, seen) = serve().await;
    let profile = tempfile::tempdir().unwrap();
    let config = BrowserConfig {
        headless: true,
        profile: Some(profile.path().to_owned()),
        ..BrowserConfig::default()
    };
    let first = ChromeBrowser::launch(&config).await.unwrap();
    first.navigate(&format!("{base}/set-cookie")).await.unwrap();
    first.close().await;

    let second = ChromeBrowser::launch(&config).await.unwrap();
    second.navigate(&format!("{base}/again")).await.unwrap();
    second.close().await;
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().any(|l| l == "cookie /again ar_test=kept"),
        "{seen:?}"
    );
}
