//! `ar proxy --upstream-proxy` as a user runs it: its credentials stay out
//! of everything `ar` prints and writes. (squid as a real upstream is in
//! ar-capture's interop tests.)

use std::process::Command;

use crate::proxy::RunningProxy;

#[test]
fn the_upstream_proxys_password_is_never_printed_or_archived() {
    let dir = tempfile::tempdir().unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = closed.local_addr().unwrap();
    drop(closed);
    let (out, ca) = (dir.path().join("out"), dir.path().join("ca"));
    let url = format!("http://me:hunter2@{upstream}");
    let proxy = RunningProxy::start(&[
        "--out",
        out.to_str().unwrap(),
        "--ca-dir",
        ca.to_str().unwrap(),
        "--no-ui",
        "--upstream-proxy",
        &url,
        "--no-upstream-proxy",
        "intranet.test",
    ]);
    let banner = proxy.wait_for("  upstream ");
    assert_eq!(
        banner.trim(),
        format!(
            "upstream http://me:****@{upstream} (direct: loopback, --resolve'd hosts, intranet.test)"
        )
    );
    let output = Command::new("curl")
        .args(["-sS", "--max-time", "20", "--include", "--proxy"])
        .arg(format!("http://{}", proxy.addr()))
        .arg("http://api.example.test/v1/users?key=1")
        .output()
        .unwrap();
    let answer = crate::text(&output.stdout);
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
    assert!(
        answer.contains(&format!(
            "through the upstream proxy {upstream} to api.example.test:80"
        )),
        "{answer}"
    );
    proxy.wait_for("/v1/users");
    let (rest, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    // Basic base64 of "me:hunter2", as it would go to the upstream.
    for secret in ["hunter2", "bWU6aHVudGVyMg"] {
        assert!(!answer.contains(secret), "{answer}");
        assert!(!rest.iter().any(|l| l.contains(secret)), "{rest:?}");
        for file in ["flows.jsonl", "openapi.yaml", "API.md"] {
            let text = std::fs::read_to_string(out.join(file)).unwrap();
            assert!(!text.contains(secret), "{file}: {text}");
        }
    }
}

#[test]
fn a_bad_upstream_proxy_is_refused_naming_the_flag_without_its_password() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let output = crate::ar_run(&[
        "proxy",
        "--out",
        out.to_str().unwrap(),
        "--upstream-proxy",
        "https://me:hunter2@proxy.corp",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = crate::text(&output.stderr);
    assert!(stderr.contains("--upstream-proxy"), "{stderr}");
    assert!(
        stderr.contains("http://[USER:PASSWORD@]HOST:PORT"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    let output = crate::ar_run(&[
        "proxy",
        "--out",
        out.to_str().unwrap(),
        "--no-upstream-proxy",
        "intranet.test",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(crate::text(&output.stderr).contains("--upstream-proxy"));
}
