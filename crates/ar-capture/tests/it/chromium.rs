//! A real browser: headless Chromium through the proxy to a made-up host.
//! Chromium sends `CONNECT shop.test:PORT` unresolved (the proxy's
//! `resolve` maps it to the loopback origin) and accepts the intercepted
//! certificate only because the served chain contains the CA named by
//! `--ignore-certificate-errors-spki-list`.

use crate::support::*;

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|bin| {
            std::process::Command::new(bin)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
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
    })
    .await;
    let profile = tempfile::tempdir().unwrap();
    let output = tokio::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--proxy-server=http://{}", h.addr()))
        .arg(format!(
            "--ignore-certificate-errors-spki-list={}",
            h.ca.spki_sha256_base64()
        ))
        .arg("--dump-dom")
        .arg(format!("https://shop.test:{port}/hello"))
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(60), output)
        .await
        .expect("chromium finished")
        .unwrap();
    let dom = String::from_utf8_lossy(&output.stdout);
    assert!(
        dom.contains("hello"),
        "page body not shown; stdout: {dom}\nstderr tail: {}",
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

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines().rev().take(5).collect::<Vec<_>>().join("\n")
}
