//! `/take` and `/done` typed at a real terminal: `ar` runs on the slave side
//! of a pseudo-terminal (piped stdin is not read while a turn runs, a
//! terminal is), the mock LLM's agent asks for a human, the user takes the
//! browser, opens a page, and gives it back; the summary counts what their
//! browsing added, the agent is told, and the flows made meanwhile are
//! marked as the user's in `flows.jsonl`.

use std::fs::File;
use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ar_mock_llm::{MockLlm, Reply};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use serde_json::json;

use super::scope::name_endpoints;
use super::shop::Shop;

/// The master side of a pseudo-terminal, with everything the child printed.
pub(crate) struct Terminal {
    master: File,
    output: Arc<Mutex<String>>,
}

impl Terminal {
    /// Opens a pty; returns it and its slave side (the child's stdio).
    pub(crate) fn open() -> (Self, File) {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name.to_str().unwrap())
            .unwrap();
        let master = File::from(master);
        let output = Arc::new(Mutex::new(String::new()));
        let mut reader = master.try_clone().unwrap();
        let mut answer = master.try_clone().unwrap();
        let sink = Arc::clone(&output);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            // EIO once the child and every slave handle are gone.
            while let Ok(n @ 1..) = reader.read(&mut buffer) {
                let text = String::from_utf8_lossy(&buffer[..n]);
                // A line editor may ask where the cursor is: top left.
                if text.contains("\x1b[6n") {
                    let _ = answer.write_all(b"\x1b[1;1R");
                }
                sink.lock().unwrap().push_str(&text);
            }
        });
        (Self { master, output }, slave)
    }

    pub(crate) fn text(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Waits until the output (after `from` bytes) contains `needle`; returns where it ends.
    pub(crate) fn wait_for(&self, needle: &str, from: usize) -> usize {
        let start = Instant::now();
        loop {
            let text = self.text();
            if let Some(at) = text.get(from..).and_then(|t| t.find(needle)) {
                return from + at + needle.len();
            }
            assert!(
                start.elapsed() < Duration::from_secs(90),
                "no {needle:?} on the terminal:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub(crate) fn type_line(&mut self, line: &str) {
        self.master.write_all(line.as_bytes()).unwrap();
        self.master.write_all(b"\n").unwrap();
    }
}

#[test]
fn take_and_done_at_a_terminal_hand_the_browser_over_and_back() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.respond_with(name_endpoints);
    mock.push_all([
        Reply::tool(
            "h1",
            "ask_human",
            json!({"reason": "please open a product page for me"}),
        ),
        Reply::text("I can see the product pages now.\nINTENT COVERED"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (mut terminal, slave) = Terminal::open();
    let mut command = shop.ar_with_llm(&out, &mock, &[]);
    command
        .env("TERM", "dumb")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    let mut child = command.spawn().unwrap();
    // The parent's slave handles went to the child (and were dropped with `command`).
    drop(command);

    let at = terminal.wait_for("opened", 0);
    terminal.type_line("map the product pages");
    let at = terminal.wait_for("the agent asks for your help", at);
    terminal.type_line("/take");
    let at = terminal.wait_for("the browser is yours", at);
    terminal.type_line("/open /products/102");
    // The page's API calls reach the archive.
    let flows = out.join("flows.jsonl");
    let start = Instant::now();
    while !std::fs::read_to_string(&flows)
        .unwrap_or_default()
        .contains("/api/products/102")
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "/open did not load the page:\n{}",
            terminal.text()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    terminal.type_line("/done");
    let at = terminal.wait_for("thanks: your browsing added ", at);
    let summary = terminal.text()[at..].lines().next().unwrap().to_owned();
    let added: u64 = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {summary:?}"));
    assert!(added > 0, "the user's flows were counted: {summary}");
    assert!(summary.contains("the agent carries on"), "{summary}");
    let at = terminal.wait_for("the agent reports the intent covered", at);
    terminal.type_line("/quit");
    terminal.wait_for("session.json in", at);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("ar did not exit on /quit:\n{}", terminal.text());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{}", terminal.text());

    // The agent was told what the user's browsing added.
    let told = mock.requests().iter().any(|r| {
        r.body
            .contains("The user used the browser and gave it back")
    });
    assert!(told, "{}", terminal.text());

    // Every flow of the page the user opened is theirs.
    let archive = std::fs::read_to_string(&flows).unwrap();
    let theirs: Vec<&str> = archive
        .lines()
        .filter(|l| l.contains("/api/products/102"))
        .collect();
    assert!(!theirs.is_empty());
    for line in theirs {
        let flow: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(flow["_ar"]["client"], "human", "{line}");
    }
}

#[test]
fn take_pauses_a_running_turn_and_done_resumes_it_with_a_summary() {
    let shop = Shop::start();
    let mock = MockLlm::start_in_thread();
    mock.respond_with(name_endpoints);
    mock.push_all([
        // The model is mid-answer (the stream stalls) when the user takes over.
        Reply::text("Let me look at the catalogue first, then the product pages.").stall_after(3),
        Reply::text("Your product page shows the detail endpoint.\nINTENT COVERED"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (mut terminal, slave) = Terminal::open();
    let mut command = shop.ar_with_llm(&out, &mock, &[]);
    command
        .env("TERM", "dumb")
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    let mut child = command.spawn().unwrap();
    drop(command);

    let at = terminal.wait_for("opened", 0);
    terminal.type_line("map the product pages");
    let at = terminal.wait_for("intent: map the product pages", at);
    let start = Instant::now();
    while mock.request_count() == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{}",
            terminal.text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Typed while the turn runs: read at once because stdin is a terminal.
    terminal.type_line("/take");
    let at = terminal.wait_for("agent stopped:", at);
    terminal.type_line("/open /products/103");
    let at = terminal.wait_for("done: open:", at);
    let flows = out.join("flows.jsonl");
    assert!(
        std::fs::read_to_string(&flows)
            .unwrap()
            .contains("/api/products/103"),
        "{}",
        terminal.text()
    );
    terminal.type_line("/done");
    let at = terminal.wait_for("thanks: your browsing added ", at);
    let summary = terminal.text()[at..].lines().next().unwrap().to_owned();
    let added: u64 = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {summary:?}"));
    assert!(added > 0, "{summary}");
    let at = terminal.wait_for("the agent reports the intent covered", at);
    terminal.type_line("/quit");
    terminal.wait_for("session.json in", at);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("ar did not exit on /quit:\n{}", terminal.text());
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    // The resumed turn opened with the summary of the user's browsing.
    let requests = mock.requests();
    let resumed = requests
        .iter()
        .find(|r| {
            r.body
                .contains("The user used the browser and gave it back")
        })
        .unwrap_or_else(|| panic!("the agent was not told:\n{}", terminal.text()));
    assert!(
        resumed
            .body
            .contains(&format!("their browsing added {added} flows")),
        "{}",
        resumed.body
    );
    let archive = std::fs::read_to_string(&flows).unwrap();
    for line in archive.lines().filter(|l| l.contains("/api/products/103")) {
        let flow: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(flow["_ar"]["client"], "human", "{line}");
    }
}
