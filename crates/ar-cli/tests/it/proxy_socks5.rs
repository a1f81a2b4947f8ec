//! `ar proxy --socks5` as a user runs it: a real `ar` process in front of
//! the fixture shop over HTTPS, curl as a SOCKS5 client (by name, and with
//! addresses it resolved itself), a login, SIGTERM to stop.

use std::process::Command;

use crate::proxy_reverse::{PATHS, archived, curl, direct, proxy_to};
use crate::shop::Shop;

#[test]
fn curl_through_socks5_gets_the_shops_answers_and_makes_the_spec_forward_makes() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let scope = ["--scope", "shop.test", "--no-ui"];
    let ar_ca = shop.ca_dir.path().join("ca.pem").display().to_string();
    let resolve = format!("shop.test:{}:127.0.0.1", shop.port());

    let socks_out = dir.path().join("socks5");
    let proxy = proxy_to(&shop, &socks_out, &[&["--socks5"][..], &scope].concat());
    let addr = proxy.addr().to_owned();
    let banner = proxy.wait_for("ALL_PROXY=socks5h://");
    assert_eq!(banner.trim(), format!("export ALL_PROXY=socks5h://{addr}"));
    for (i, path) in PATHS.iter().enumerate() {
        // By name (the proxy resolves it), and to the address curl resolved.
        let client: &[&str] = if i % 2 == 0 {
            &["--socks5-hostname", &addr]
        } else {
            &["--socks5", &addr, "--resolve", &resolve]
        };
        let answer = curl(&[client, &["--cacert", &ar_ca]].concat(), &shop.url(path));
        assert_eq!(crate::text(&answer), crate::text(&direct(&shop, path)));
        proxy.wait_for(&shop.url(path.split('?').next().unwrap()));
    }
    let (_, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    let flows = archived(&socks_out);
    let urls: Vec<&str> = (flows.iter())
        .map(|f| f["request"]["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls, PATHS.map(|path| shop.url(path)));

    let forward_out = dir.path().join("forward");
    let forward = proxy_to(&shop, &forward_out, &scope);
    let via = format!("http://{}", forward.addr());
    for path in PATHS {
        curl(&["--proxy", &via, "--cacert", &ar_ca], &shop.url(path));
        forward.wait_for(&shop.url(path.split('?').next().unwrap()));
    }
    let (_, status) = forward.stop();
    assert!(status.success(), "exit status {status}");
    let spec = |out: &std::path::Path| std::fs::read_to_string(out.join("openapi.yaml")).unwrap();
    let (socks, forward) = (spec(&socks_out), spec(&forward_out));
    assert!(socks.contains("/users/{userId}:"), "{socks}");
    assert_eq!(socks, forward);
}

#[test]
fn a_socks5_login_is_asked_for_and_its_password_never_printed_or_archived() {
    let shop = Shop::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let proxy = proxy_to(&shop, &out, &["--socks5-auth", "me:hunter2", "--no-ui"]);
    let addr = proxy.addr().to_owned();
    let banner = proxy.wait_for("ALL_PROXY=");
    assert_eq!(
        banner.trim(),
        format!("export ALL_PROXY=socks5h://me:PASSWORD@{addr}")
    );
    let ar_ca = shop.ca_dir.path().join("ca.pem").display().to_string();
    let url = shop.url("/api/users/1");
    let wrong = Command::new("curl")
        .args(["-sS", "--max-time", "20", "--socks5-hostname", &addr])
        .args(["--proxy-user", "me:wrong", "--cacert", &ar_ca, &url])
        .output()
        .unwrap();
    assert!(!wrong.status.success(), "a wrong password got in");
    let login = format!("socks5h://me:hunter2@{addr}");
    let answer = curl(&["--proxy", &login, "--cacert", &ar_ca], &url);
    assert_eq!(
        crate::text(&answer),
        crate::text(&direct(&shop, "/api/users/1"))
    );
    proxy.wait_for(&url);
    let (rest, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    assert!(!rest.iter().any(|l| l.contains("hunter2")), "{rest:?}");
    for file in ["flows.jsonl", "openapi.yaml", "API.md"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(!text.contains("hunter2"), "{file}: {text}");
    }
    // A bad value is refused naming the flag, not repeating the value.
    let output = crate::ar_run(&[
        "proxy",
        "--out",
        out.to_str().unwrap(),
        "--socks5-auth",
        "hunter2",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = crate::text(&output.stderr);
    assert!(stderr.contains("--socks5-auth"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
}
