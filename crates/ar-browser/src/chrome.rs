//! [`ChromeBrowser`]: Chromium driven through chromedriver with fantoccini.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ar_agent::browser::{BrowserError, Ref};
use fantoccini::elements::{Element, ElementRef};
use fantoccini::error::{CmdError, ErrorStatus};
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use tempfile::TempDir;

use super::errors::map_error;
use super::launch::{
    BrowserConfig, LaunchError, capabilities, find_binary, has_display, session_error,
};
use super::network::{DrainPerformanceLog, NetworkTracker};
use super::process::{DriverProcess, millis};
use super::refs::RefTable;

/// Chromium names tried on PATH, in order.
const CHROMIUM_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];
/// The longest session creation may take (Chromium's first start on a slow disk).
const SESSION_TIMEOUT: Duration = Duration::from_secs(60);

/// A Chromium session. Dropping it ends chromedriver and Chromium (process
/// group kill) and deletes the throwaway profile; [`ChromeBrowser::close`]
/// does it gracefully (a persistent `--profile` gets its cookies flushed).
#[derive(Debug)]
pub struct ChromeBrowser {
    pub(super) client: Client,
    pub(super) refs: Mutex<RefTable<Element>>,
    pub(super) network: Arc<tokio::sync::Mutex<NetworkTracker>>,
    /// Drains the network log in the background (see [`spawn_drainer`]).
    _drainer: AbortOnDrop,
    pub(super) command_timeout: Duration,
    #[allow(
        dead_code,
        reason = "for tests and for token accounting; the session does not need it"
    )]
    user_data_dir: PathBuf,
    // Field order is drop order: the driver (and Chromium) die before the
    // temp dir holding the profile and the log is removed.
    driver: Option<DriverProcess>,
    _work_dir: TempDir,
}

impl ChromeBrowser {
    /// Starts chromedriver (unless `config.webdriver` names one) and a Chromium session.
    pub async fn launch(config: &BrowserConfig) -> Result<Self, LaunchError> {
        let work_dir = tempfile::Builder::new()
            .prefix("ar-browser-")
            .tempdir()
            .map_err(|source| LaunchError::Io {
                what: "create a temporary directory for the browser".to_owned(),
                source,
            })?;
        let user_data_dir = match &config.profile {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|source| LaunchError::Io {
                    what: format!("create the profile directory {}", dir.display()),
                    source,
                })?;
                dir.clone()
            }
            None => work_dir.path().join("profile"),
        };
        if !config.headless && config.webdriver.is_none() && !has_display(|k| std::env::var_os(k)) {
            return Err(LaunchError::NoDisplay {
                detail: "neither DISPLAY nor WAYLAND_DISPLAY is set".to_owned(),
            });
        }
        let (driver, url, chromium) = match &config.webdriver {
            Some(url) => (None, url.clone(), config.chromium.clone()),
            None => {
                let chromedriver =
                    find_binary(config.chromedriver.as_deref(), &["chromedriver"])
                        .map_err(|looked_for| LaunchError::ChromedriverMissing { looked_for })?;
                let chromium = find_binary(config.chromium.as_deref(), CHROMIUM_NAMES)
                    .map_err(|looked_for| LaunchError::ChromiumMissing { looked_for })?;
                let driver = DriverProcess::start(&chromedriver, work_dir.path()).await?;
                let url = driver.url();
                (Some(driver), url, Some(chromium))
            }
        };
        let caps = capabilities(config, chromium.as_deref(), &user_data_dir);
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(caps);
        let connect = builder.connect(&url);
        let client = match tokio::time::timeout(SESSION_TIMEOUT, connect).await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => {
                let error = session_error(&url, error, &user_data_dir);
                tracing::debug!(
                    log = %driver.as_ref().map(DriverProcess::log_tail).unwrap_or_default(),
                    "session not created"
                );
                return Err(error);
            }
            Err(_) => {
                return Err(LaunchError::Timeout {
                    after_ms: millis(SESSION_TIMEOUT),
                });
            }
        };
        let network = Arc::new(tokio::sync::Mutex::new(NetworkTracker::default()));
        let drainer = spawn_drainer(client.clone(), Arc::clone(&network));
        Ok(Self {
            client,
            refs: Mutex::new(RefTable::new()),
            _drainer: drainer,
            network,
            command_timeout: config.command_timeout,
            user_data_dir,
            driver,
            _work_dir: work_dir,
        })
    }

    /// The Chromium profile directory in use.
    #[allow(
        dead_code,
        reason = "for tests and for token accounting; the session does not need it"
    )]
    pub fn user_data_dir(&self) -> &Path {
        &self.user_data_dir
    }

    /// The chromedriver process id, when `ar` started it.
    #[allow(
        dead_code,
        reason = "for tests and for token accounting; the session does not need it"
    )]
    pub fn driver_pid(&self) -> Option<u32> {
        self.driver.as_ref().map(DriverProcess::pid)
    }

    /// Size in bytes of the page's current DOM as HTML (what a snapshot saves an agent from reading).
    #[allow(
        dead_code,
        reason = "for tests and for token accounting; the session does not need it"
    )]
    pub async fn html_len(&self) -> Result<usize, BrowserError> {
        let script = "return document.documentElement.outerHTML.length";
        let len = self
            .run(
                "measuring the page",
                None,
                self.client.execute(script, vec![]),
            )
            .await?;
        Ok(len
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0))
    }

    /// Ends the session gracefully (Chromium flushes its profile), then
    /// stops chromedriver. Bounded: a hung browser is killed after 5 s.
    pub async fn close(mut self) {
        let client = self.client.clone();
        let _ = tokio::time::timeout(Duration::from_secs(5), client.close()).await;
        if let Some(mut driver) = self.driver.take() {
            driver.kill();
        }
    }

    /// Runs one WebDriver command with the command timeout and error mapping.
    pub(super) async fn run<T>(
        &self,
        action: &str,
        reference: Option<Ref>,
        command: impl Future<Output = Result<T, CmdError>>,
    ) -> Result<T, BrowserError> {
        match tokio::time::timeout(self.command_timeout, command).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(CmdError::Standard(wd))) if wd.error == ErrorStatus::NoSuchWindow => {
                Err(self.back_to_remaining_tab(action).await)
            }
            Ok(Err(error)) => Err(map_error(action, reference, error)),
            Err(_) => Err(BrowserError::Timeout {
                what: format!("the browser to finish {action} (it may be hung)"),
                after_ms: millis(self.command_timeout),
            }),
        }
    }

    /// The tab we drove closed itself (a popup after a login, `window.close()`):
    /// carry on in the most recent remaining tab; with none left the browser is gone.
    async fn back_to_remaining_tab(&self, action: &str) -> BrowserError {
        let windows = tokio::time::timeout(self.command_timeout, self.client.windows()).await;
        match windows {
            Ok(Ok(windows)) if !windows.is_empty() => {
                let last = windows.into_iter().last();
                if let Some(window) = last {
                    let _ = tokio::time::timeout(
                        self.command_timeout,
                        self.client.switch_to_window(window),
                    )
                    .await;
                }
                BrowserError::Driver {
                    action: action.to_owned(),
                    reason: "the tab was closed; now on the previous tab: take a new snapshot"
                        .to_owned(),
                }
            }
            _ => BrowserError::BrowserGone {
                hint: "every tab was closed; restart ar to get a new browser".to_owned(),
            },
        }
    }

    /// Follows a tab or popup that the last action opened (`target=_blank`,
    /// `window.open`), so the driver sees what a user would look at.
    pub(super) async fn follow_new_tab(
        &self,
        before: &[fantoccini::wd::WindowHandle],
    ) -> Result<(), BrowserError> {
        let after = self
            .run("listing tabs", None, self.client.windows())
            .await?;
        if let Some(new) = after.into_iter().rev().find(|w| !before.contains(w)) {
            self.run(
                "switching to the new tab",
                None,
                self.client.switch_to_window(new),
            )
            .await?;
        }
        Ok(())
    }

    /// The element behind a ref, or an error telling the caller to re-snapshot.
    pub(super) fn element(&self, reference: Ref) -> Result<Element, BrowserError> {
        let table = self.refs.lock().map_err(|_| BrowserError::Driver {
            action: "look up a ref".to_owned(),
            reason: "the ref table was poisoned by a panic".to_owned(),
        })?;
        table.get(reference).ok_or_else(|| BrowserError::NotFound {
            what: format!("ref {reference}"),
            hint: "no snapshot handed it out; take a new snapshot and use its refs".to_owned(),
        })
    }

    /// The ref of a WebDriver element id (same element → same ref).
    pub(super) fn assign_ref(&self, table: &mut RefTable<Element>, id: &str) -> Ref {
        let handle = Element::from_element_id(self.client.clone(), ElementRef::from(id.to_owned()));
        table.assign(id, handle)
    }

    /// Drains chromedriver's network events into the in-flight tracker.
    /// The tracker stays locked during the call, so drains (ours and the
    /// background one) are applied in the order chromedriver handed them out.
    pub(super) async fn drain_network(&self) -> Result<(), BrowserError> {
        let mut tracker = self.network.lock().await;
        let entries = self
            .run(
                "reading network events",
                None,
                self.client.issue_cmd(DrainPerformanceLog),
            )
            .await?;
        tracker.ingest(&entries, Instant::now());
        Ok(())
    }

    /// Polls until no request has been in flight for `quiet`.
    pub(super) async fn wait_network_idle(
        &self,
        quiet: Duration,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        let started = Instant::now();
        let mut quiet_since: Option<Instant> = None;
        loop {
            self.drain_network().await?;
            let now = Instant::now();
            let pending = self.network.lock().await.pending(now);
            if pending.is_empty() {
                let since = *quiet_since.get_or_insert(now);
                if now.duration_since(since) >= quiet {
                    return Ok(());
                }
            } else {
                quiet_since = None;
            }
            if now.duration_since(started) >= timeout {
                let mut shown: Vec<String> = pending.iter().take(3).cloned().collect();
                if pending.len() > 3 {
                    shown.push(format!("and {} more", pending.len() - 3));
                }
                return Err(BrowserError::Timeout {
                    what: format!(
                        "the network to go quiet (still loading: {})",
                        shown.join(", ")
                    ),
                    after_ms: millis(timeout),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// How often the background drainer empties chromedriver's network log.
const DRAIN_EVERY: Duration = Duration::from_secs(5);

/// Keeps chromedriver's performance log from growing while nobody calls the
/// browser (a human browsing during `/take` for an hour): every few seconds
/// its events go into the bounded tracker. Ends when the browser is gone.
fn spawn_drainer(client: Client, network: Arc<tokio::sync::Mutex<NetworkTracker>>) -> AbortOnDrop {
    AbortOnDrop(tokio::spawn(async move {
        loop {
            tokio::time::sleep(DRAIN_EVERY).await;
            let mut tracker = network.lock().await;
            let drained =
                tokio::time::timeout(DRAIN_EVERY * 2, client.issue_cmd(DrainPerformanceLog)).await;
            match drained {
                Ok(Ok(entries)) => tracker.ingest(&entries, Instant::now()),
                // A dialog blocks nothing here; anything else means the browser is going away.
                Ok(Err(CmdError::Standard(wd))) if wd.error == ErrorStatus::UnexpectedAlertOpen => {
                }
                _ => return,
            }
        }
    }))
}

/// Aborts a background task when its owner is dropped.
#[derive(Debug)]
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
