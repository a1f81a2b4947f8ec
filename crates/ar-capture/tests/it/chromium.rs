//! A real browser: headless Chromium through the proxy to a made-up host,
//! as an HTTP proxy and as a SOCKS5 one.
//! Chromium sends `CONNECT shop.test:PORT` unresolved (SOCKS5 too) (the proxy's
//! `resolve` maps it to the loopback origin) and accepts the intercepted
//! certificate only because the served chain contains the CA named by
//! `--ignore-certificate-errors-spki-list`.
//!
//! Also the launcher and the DevTools client the interop matrix
//! (`origins/`) drives Chromium with.

use std::path::Path;
use std::time::{Duration, Instant};

use futures_util::{SinkExt as _, StreamExt as _};
use tokio_tungstenite::tungstenite::Message;

use ar_capture::Socks5;

use crate::support::*;

pub(crate) fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|bin| {
            std::process::Command::new(bin)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Headless `browser` with its profile in `profile`, trusting the CA whose
/// key hashes to `spki` (base64 SHA-256), and without the background
/// services a flag can turn off (Chromium still makes some requests of its
/// own: proxies in tests are offline).
pub(crate) fn command(browser: &str, profile: &Path, spki: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(browser);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--ignore-certificate-errors-spki-list={spki}"))
        .kill_on_drop(true);
    command
}

#[tokio::test]
async fn headless_chromium_loads_a_made_up_https_host_through_the_proxy() {
    let Some(browser) = chromium() else {
        eprintln!("chromium is not installed: skipping the browser test");
        return;
    };
    let test_ca = TestCa::new();
    let origin = origin(Some(
        test_ca.server_config(&["shop.test"], &[b"h2", b"http/1.1"]),
    ))
    .await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("shop.test", port, origin.addr.ip())
            .socks5(Socks5::Open)
    })
    .await;
    // As an HTTP proxy (CONNECT), then as a SOCKS5 one, on the same port:
    // either way Chromium hands the proxy the name, not an address.
    for scheme in ["http", "socks5"] {
        let profile = tempfile::tempdir().unwrap();
        let output = command(browser, profile.path(), &h.ca.spki_sha256_base64())
            .arg(format!("--proxy-server={scheme}://{}", h.addr()))
            .arg("--dump-dom")
            .arg(format!("https://shop.test:{port}/hello"))
            .output();
        let output = tokio::time::timeout(Duration::from_secs(60), output)
            .await
            .expect("chromium finished")
            .unwrap();
        let dom = String::from_utf8_lossy(&output.stdout);
        assert!(
            dom.contains("hello"),
            "{scheme}: page body not shown; stdout: {dom}\nstderr tail: {}",
            tail(&output.stderr)
        );
        let flow = h.flow_for("/hello").await;
        assert!(
            flow.request
                .headers
                .get("user-agent")
                .is_some_and(|ua| ua.contains("Chrome"))
        );
        assert_eq!(flow.request.url, format!("https://shop.test:{port}/hello"));
        assert_eq!(flow.response.unwrap().body.text(), Some("hello"));
    }
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines().rev().take(5).collect::<Vec<_>>().join("\n")
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A headless Chromium driven over the DevTools protocol: it opens pages
/// and evaluates scripts in them. The tests write its JSON commands by hand
/// (there is no JSON crate among ar-capture's dependencies) and read back
/// only plain string fields.
pub(crate) struct DevTools {
    socket: Socket,
    next_id: u64,
    _child: tokio::process::Child,
    _profile: tempfile::TempDir,
}

impl DevTools {
    /// Starts Chromium from [`command`] with `args` added, and connects to it.
    pub(crate) async fn launch(browser: &str, spki: &str, args: &[String]) -> Result<Self, String> {
        let profile = tempfile::tempdir().unwrap();
        let child = command(browser, profile.path(), spki)
            .arg("--remote-debugging-port=0")
            .args(args)
            .arg("about:blank")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{browser} starts: {e}"))?;
        // Chromium writes its port and the browser's WebSocket path here once it listens.
        let active = profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(30);
        let (port, path) = loop {
            let text = std::fs::read_to_string(&active).unwrap_or_default();
            if let [port, path] = text.lines().collect::<Vec<_>>()[..] {
                break (port.to_owned(), path.to_owned());
            }
            if Instant::now() > deadline {
                return Err("Chromium opened no DevTools port within 30 s".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let (socket, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}{path}"))
            .await
            .map_err(|e| format!("DevTools connection: {e}"))?;
        Ok(Self {
            socket,
            next_id: 0,
            _child: child,
            _profile: profile,
        })
    }

    /// Sends `method` with `params` (a JSON object), to the page of
    /// `session` if given, and returns the answer's text.
    async fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: &str,
    ) -> Result<String, String> {
        self.next_id += 1;
        let id = self.next_id;
        let session = session.map_or(String::new(), |s| format!(r#","sessionId":"{s}""#));
        let command = format!(r#"{{"id":{id}{session},"method":"{method}","params":{params}}}"#);
        self.socket
            .send(Message::text(command))
            .await
            .map_err(|e| format!("DevTools send: {e}"))?;
        let start = format!(r#"{{"id":{id},"#);
        while let Some(message) = self.socket.next().await {
            let message = message.map_err(|e| format!("DevTools: {e}"))?;
            if let Message::Text(text) = message
                && text.starts_with(&start)
            {
                return if text.contains(r#""error":"#) {
                    Err(format!("{method}: {text}"))
                } else {
                    Ok(text.to_string())
                };
            }
        }
        Err("DevTools closed".into())
    }

    /// Opens `url` in a new tab, waits until it has loaded, evaluates
    /// `script` there (awaiting the promise it returns) and closes the tab.
    /// The script's result must be a string; only strings without quotes
    /// or backslashes come back whole.
    pub(crate) async fn evaluate_at(&mut self, url: &str, script: &str) -> Result<String, String> {
        let target = self
            .call(
                None,
                "Target.createTarget",
                &format!(r#"{{"url":{}}}"#, json_string(url)),
            )
            .await?;
        let target = string_field(&target, "targetId")?;
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                &format!(r#"{{"targetId":"{target}","flatten":true}}"#),
            )
            .await?;
        let session = string_field(&attached, "sessionId")?;
        let loaded = format!(
            "location.href === {} && document.readyState === 'complete' ? 'yes' : 'no'",
            json_string(url)
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        // Until the navigation commits, scripts run in the first about:blank.
        while self.evaluate(&session, &loaded).await.as_deref() != Ok("yes") {
            if Instant::now() > deadline {
                return Err(format!("{url} did not load within 20 s"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let result = self.evaluate(&session, script).await;
        let _ = self
            .call(
                None,
                "Target.closeTarget",
                &format!(r#"{{"targetId":"{target}"}}"#),
            )
            .await;
        result
    }

    async fn evaluate(&mut self, session: &str, script: &str) -> Result<String, String> {
        let params = format!(
            r#"{{"expression":{},"awaitPromise":true,"returnByValue":true}}"#,
            json_string(script)
        );
        let answer = self
            .call(Some(session), "Runtime.evaluate", &params)
            .await?;
        if answer.contains(r#""exceptionDetails":"#) {
            return Err(format!("the script threw: {answer}"));
        }
        string_field(&answer, "value")
    }
}

/// The value of the first `"key":"..."` in a DevTools message (the values
/// read here hold no escapes).
fn string_field(message: &str, key: &str) -> Result<String, String> {
    let start = format!(r#""{key}":""#);
    message
        .split_once(&start)
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(value, _)| value.to_owned())
        .ok_or_else(|| format!("no {key} in {message}"))
}
