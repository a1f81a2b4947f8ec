//! The chromedriver child process, in its own process group so that it and
//! the Chromium it starts can be ended together: they never outlive `ar`.

use std::fs::File;
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use super::LaunchError;

/// How long chromedriver gets to print its port.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts of chromedriver before giving up, when it exits because the port
/// it picked was taken: with `--port=0` it takes a free port on one address
/// family and then binds the same number on the other, which another
/// process may hold ("IPv4 port not available. Exiting...").
const MAX_STARTS: usize = 3;

/// Runs chromedriver (`$2`) in the background and watches `ar` (pid `$1`):
/// when `ar` is gone, even by SIGKILL, or chromedriver exits, the whole
/// process group (this shell, chromedriver, Chromium) is killed within a
/// second. This stands in for `PR_SET_PDEATHSIG`, which needs `unsafe`.
const WATCHDOG: &str = r#""$2" --port=0 &
driver=$!
echo "ar: chromedriver pid $driver"
while kill -0 "$1" 2>/dev/null && kill -0 "$driver" 2>/dev/null; do sleep 1; done
kill -KILL 0"#;

/// A running chromedriver (under a watchdog shell); dropping it kills its
/// whole process group (chromedriver, Chromium and Chromium's helpers).
#[derive(Debug)]
pub(crate) struct DriverProcess {
    /// The watchdog shell, leader of the process group.
    child: Child,
    port: u16,
    driver_pid: u32,
    log_path: PathBuf,
}

impl DriverProcess {
    /// Starts `chromedriver --port=0` (it picks a free port and prints it)
    /// under the watchdog, logging to `log_dir/chromedriver.log`, and waits
    /// (bounded) until it listens; started again when its port was taken.
    pub(crate) async fn start(chromedriver: &Path, log_dir: &Path) -> Result<Self, LaunchError> {
        let log_path = log_dir.join("chromedriver.log");
        let mut starts = 1;
        loop {
            let mut process = Self {
                child: spawn(chromedriver, &log_path)?,
                port: 0,
                driver_pid: 0,
                log_path: log_path.clone(),
            };
            match process.wait_for_port().await {
                Ok((port, pid)) => {
                    (process.port, process.driver_pid) = (port, pid);
                    return Ok(process);
                }
                Err(LaunchError::ChromedriverExited { log, .. })
                    if starts < MAX_STARTS && log.contains("port not available") =>
                {
                    starts += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The chromedriver process id.
    #[allow(
        dead_code,
        reason = "for tests: the crash test kills chromedriver by pid"
    )]
    pub(crate) fn pid(&self) -> u32 {
        self.driver_pid
    }

    /// The WebDriver URL of this chromedriver.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The last lines chromedriver wrote (for error messages).
    pub(crate) fn log_tail(&self) -> String {
        log_tail(&self.log_path)
    }

    async fn wait_for_port(&mut self) -> Result<(u16, u32), LaunchError> {
        let started = Instant::now();
        loop {
            let log = std::fs::read_to_string(&self.log_path).unwrap_or_default();
            if let (Some(port), Some(pid)) = (parse_port(&log), parse_pid(&log)) {
                return Ok((port, pid));
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(LaunchError::ChromedriverExited {
                    status: status.to_string(),
                    log: log_tail(&self.log_path),
                });
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(LaunchError::ChromedriverNotReady {
                    after_ms: millis(START_TIMEOUT),
                    log: log_tail(&self.log_path),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Ends the process group: SIGTERM, a short grace period, then SIGKILL for
    /// anything left (Chromium helpers included), and reaps chromedriver.
    pub(crate) fn kill(&mut self) {
        let group = Pid::from_child(&self.child);
        let _ = kill_process_group(group, Signal::TERM);
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Chromium's children may still be in the group after chromedriver is gone.
        let _ = kill_process_group(group, Signal::KILL);
        let _ = self.child.wait();
    }
}

impl Drop for DriverProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs chromedriver under the watchdog, in a process group of its own,
/// its output going to a fresh `log_path`.
fn spawn(chromedriver: &Path, log_path: &Path) -> Result<Child, LaunchError> {
    let log = File::create(log_path).map_err(|source| LaunchError::Io {
        what: format!("create {}", log_path.display()),
        source,
    })?;
    let log_err = log.try_clone().map_err(|source| LaunchError::Io {
        what: "duplicate the chromedriver log handle".to_owned(),
        source,
    })?;
    Command::new("sh")
        .args(["-c", WATCHDOG, "ar-chromedriver"])
        .arg(std::process::id().to_string())
        .arg(chromedriver)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0)
        .spawn()
        .map_err(|source| LaunchError::ChromedriverStart {
            path: chromedriver.to_path_buf(),
            source,
        })
}

fn parse_pid(log: &str) -> Option<u32> {
    let rest = log.split("ar: chromedriver pid ").nth(1)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn parse_port(log: &str) -> Option<u16> {
    let rest = log.split("started successfully on port ").nth(1)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn log_tail(path: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut file) = File::open(path) {
        let _ = file.read_to_string(&mut text);
    }
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_is_read_from_the_startup_banner() {
        let log = "Starting ChromeDriver 156.0 on port 0\nOnly local connections are allowed.\n\
                   ChromeDriver was started successfully on port 40975.\n";
        assert_eq!(parse_port(log), Some(40975));
        assert_eq!(parse_pid("ar: chromedriver pid 4242\nStarting"), Some(4242));
        assert_eq!(parse_port("Starting ChromeDriver"), None);
    }

    /// A stand-in chromedriver: an executable `dir/chromedriver` running `body`.
    fn driver_script(dir: &Path, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let script = dir.join("chromedriver");
        std::fs::write(&script, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    /// A stand-in chromedriver whose first start finds its port taken (as a
    /// real one sometimes does under `--port=0`), and whose second listens.
    fn flaky_driver(dir: &Path) -> PathBuf {
        let tried = dir.join("tried");
        driver_script(
            dir,
            &format!(
                "if [ ! -e {tried} ]; then touch {tried}; \
                 echo 'bind() failed: Address already in use (98)'; \
                 echo 'IPv4 port not available. Exiting...'; exit 1; fi\n\
                 echo 'ChromeDriver was started successfully on port 40975.'\nsleep 30\n",
                tried = tried.display()
            ),
        )
    }

    #[tokio::test]
    async fn a_driver_whose_port_was_taken_is_started_again() {
        let dir = tempfile::tempdir().unwrap();
        let driver = DriverProcess::start(&flaky_driver(dir.path()), dir.path())
            .await
            .expect("the second start listens");
        assert_eq!(driver.url(), "http://127.0.0.1:40975");
        assert!(!driver.log_tail().contains("port not available"));
    }

    #[tokio::test]
    async fn a_driver_that_exits_for_another_reason_is_reported_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let script = driver_script(dir.path(), "echo 'cannot find Chrome binary'\nexit 1\n");
        let error = DriverProcess::start(&script, dir.path()).await.unwrap_err();
        assert!(
            matches!(&error, LaunchError::ChromedriverExited { log, .. } if log.contains("cannot find Chrome binary")),
            "{error}"
        );
    }
}
