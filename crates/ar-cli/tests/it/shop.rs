//! The shared harness of the end-to-end tests: the fixture shop on loopback,
//! the `ar` command that reaches it (headless, `--offline`, the shop's CA and
//! host mappings), and line-by-line reading of a running `ar`.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use ar_fixtures::{FixtureConfig, FixtureSite, SHOP_HOST};
use ar_mock_llm::MockLlm;

/// The fixture shop on a runtime of its own, with its CA in a file.
pub(crate) struct Shop {
    pub(crate) site: FixtureSite,
    ca_file: tempfile::NamedTempFile,
    pub(crate) ca_dir: tempfile::TempDir,
    _runtime: tokio::runtime::Runtime,
}

impl Shop {
    pub(crate) fn start() -> Self {
        Self::start_with(FixtureConfig::new())
    }

    /// The shop started with `config` (a plain HTTP port, a faster stream).
    pub(crate) fn start_with(config: FixtureConfig) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let site = runtime.block_on(FixtureSite::start(config)).unwrap();
        let ca_file = tempfile::Builder::new().suffix(".pem").tempfile().unwrap();
        std::fs::write(ca_file.path(), site.ca_pem()).unwrap();
        Self {
            site,
            ca_file,
            ca_dir: tempfile::tempdir().unwrap(),
            _runtime: runtime,
        }
    }

    pub(crate) fn port(&self) -> u16 {
        self.site.addr().port()
    }

    /// The shop's CA certificate (PEM), for `--upstream-ca`.
    pub(crate) fn ca_file(&self) -> &Path {
        self.ca_file.path()
    }

    /// `--resolve` entries that send the shop's hosts to its loopback address.
    pub(crate) fn resolve_entries(&self) -> Vec<String> {
        (self.site.host_mappings().into_iter())
            .map(|(host, addr)| format!("{host}:{}:{}", self.port(), addr.ip()))
            .collect()
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("https://{SHOP_HOST}:{}{path}", self.port())
    }

    /// `ar <shop> --headless --offline ... extra`: stdin null, output piped,
    /// and no LLM settings inherited from the developer's shell.
    pub(crate) fn ar(&self, extra: &[&str]) -> Command {
        self.ar_at("/", extra)
    }

    /// [`Shop::ar`] with the page at `path` as the target.
    pub(crate) fn ar_at(&self, path: &str, extra: &[&str]) -> Command {
        self.ar_on(&self.url(path), extra)
    }

    /// [`Shop::ar`] with `url`, on any of the fixture's hosts, as the target.
    pub(crate) fn ar_on(&self, url: &str, extra: &[&str]) -> Command {
        self.ar_dialing(url, &["--offline"], extra)
    }

    /// [`Shop::ar`] reaching origins through the HTTP proxy at `upstream`
    /// (`--upstream-proxy`), not `--offline`: the shop's hosts, `--resolve`d,
    /// are still reached directly.
    pub(crate) fn ar_through(&self, upstream: &str, extra: &[&str]) -> Command {
        self.ar_dialing(&self.url("/"), &["--upstream-proxy", upstream], extra)
    }

    /// `ar URL --headless NETWORK...` with the shop's CA, `--resolve` entries and `extra`.
    fn ar_dialing(&self, url: &str, network: &[&str], extra: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ar"));
        command
            .arg(url)
            .arg("--headless")
            .args(network)
            .arg("--ca-dir")
            .arg(self.ca_dir.path())
            .arg("--upstream-ca")
            .arg(self.ca_file.path());
        for entry in self.resolve_entries() {
            command.arg("--resolve").arg(entry);
        }
        command
            .args(extra)
            .env("NO_COLOR", "1")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_BASE_URL")
            .env_remove("OPENAI_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// [`Shop::ar`] writing to `out` and talking to `mock` as Anthropic.
    pub(crate) fn ar_with_llm(&self, out: &Path, mock: &MockLlm, extra: &[&str]) -> Command {
        let mut command = self.ar(&[]);
        command
            .arg("--out")
            .arg(out)
            .args([
                "--provider",
                "anthropic",
                "--model",
                "mock-model",
                "--base-url",
            ])
            .arg(mock.base_url())
            .args(extra)
            .env("ANTHROPIC_API_KEY", "sk-ant-test-scope-key");
        command
    }
}

/// Reads a child's stdout on a thread, line by line.
pub(crate) fn lines_of(child: &mut Child) -> Receiver<String> {
    use std::io::BufRead as _;
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Waits for a line containing `needle`, collecting what was read into `seen`.
pub(crate) fn wait_for(lines: &Receiver<String>, needle: &str, seen: &mut String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) {
            seen.push_str(&line);
            seen.push('\n');
            if line.contains(needle) {
                return;
            }
        }
    }
    panic!("no line with {needle:?} within 60 s; saw:\n{seen}");
}

/// Waits for `ar` to exit on its own (see [`wait_bounded`]): whether it
/// succeeded, and its stdout then stderr.
pub(crate) fn finished(mut child: Child, limit: Duration) -> (bool, String) {
    let status = wait_bounded(&mut child, limit);
    let output = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (status.success(), text)
}

/// The flows of the archive `flows.jsonl` in `dir` that were replays.
pub(crate) fn replayed_flows(dir: &std::path::Path) -> (Vec<serde_json::Value>, String) {
    let archive = std::fs::read_to_string(dir.join("flows.jsonl")).unwrap();
    let replayed = archive
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["_ar"]["client"] == "replay")
        .collect();
    (replayed, archive)
}

/// Waits for `ar` to exit on its own, killing it (and failing) after `limit`.
/// Runs `command` to its end within `limit` and returns its stdout and
/// stderr as one log, asserting it succeeded (the log is the message).
pub(crate) fn run_to_success(command: &mut Command, limit: Duration) -> String {
    let mut child = command.spawn().expect("ar starts");
    let status = wait_bounded(&mut child, limit);
    let output = child.wait_with_output().unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(status.success(), "{log}");
    log
}

pub(crate) fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("ar did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
