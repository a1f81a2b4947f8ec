//! Starting Chromium through chromedriver: finding the binaries, the
//! capabilities (proxy, CA pin, profile, quiet flags), and turning every way
//! this can fail into a message that says how to fix it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fantoccini::error::NewSessionError;
use serde_json::{Value, json};

/// The apt command that installs what `ar` drives.
pub(crate) const INSTALL_HINT: &str = "sudo apt-get install chromium chromium-driver";

/// Flags that keep Chromium from phoning home on a closed network and from
/// asking questions on first start.
const QUIET_ARGS: &[&str] = &[
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--disable-default-apps",
    "--disable-search-engine-choice-screen",
    "--no-pings",
    "--metrics-recording-only",
    "--safebrowsing-disable-auto-update",
    "--password-store=basic",
    "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,\
AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,\
PrivacySandboxSettings4,SafeBrowsingEnhancedProtection,SignInProfileCreation",
];

/// How to start the browser.
#[derive(Debug, Clone)]
pub struct BrowserConfig {
    /// No window (CI, servers); headed otherwise so a human can watch and `/take`.
    pub headless: bool,
    /// The capture proxy, `127.0.0.1:PORT`.
    pub proxy: Option<String>,
    /// Base64 SHA-256 SPKI hashes of CAs Chromium must trust (the proxy's CA).
    pub spki_hashes: Vec<String>,
    /// A persistent user data dir (`--profile`); a throwaway temp dir otherwise.
    pub profile: Option<PathBuf>,
    /// Use this WebDriver server instead of starting chromedriver.
    pub webdriver: Option<String>,
    /// The Chromium binary; searched on PATH when not given.
    pub chromium: Option<PathBuf>,
    /// The chromedriver binary; searched on PATH when not given.
    pub chromedriver: Option<PathBuf>,
    /// Window size in CSS pixels.
    pub window: (u32, u32),
    /// More Chromium flags (e.g. `--host-resolver-rules=...`).
    pub extra_args: Vec<String>,
    /// Upper bound for one WebDriver command (a hung browser must not hang `ar`).
    pub command_timeout: Duration,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            headless: false,
            proxy: None,
            spki_hashes: Vec::new(),
            profile: None,
            webdriver: None,
            chromium: None,
            chromedriver: None,
            window: (1280, 900),
            extra_args: Vec::new(),
            command_timeout: Duration::from_secs(45),
        }
    }
}

/// Why the browser could not be started.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(
        "chromedriver not found ({looked_for}): install it with `{INSTALL_HINT}`, or pass --webdriver URL"
    )]
    ChromedriverMissing { looked_for: String },
    #[error("Chromium not found ({looked_for}): install it with `{INSTALL_HINT}`")]
    ChromiumMissing { looked_for: String },
    #[error("cannot start chromedriver at {}: install it with `{INSTALL_HINT}`", path.display())]
    ChromedriverStart {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("chromedriver exited at start ({status}); its log says:\n{log}")]
    ChromedriverExited { status: String, log: String },
    #[error("chromedriver did not start listening within {after_ms} ms; its log says:\n{log}")]
    ChromedriverNotReady { after_ms: u64, log: String },
    #[error(
        "Chromium and chromedriver versions do not match ({detail}): install both from one \
         source, e.g. `{INSTALL_HINT}`"
    )]
    VersionMismatch { detail: String },
    #[error("headed Chromium needs a display ({detail}): run with --headless, or set DISPLAY")]
    NoDisplay { detail: String },
    #[error("the profile {dir} is in use by another Chromium: close it, or use another --profile")]
    ProfileInUse { dir: String },
    #[error("cannot reach the WebDriver server at {url}: {reason}")]
    WebdriverUnreachable { url: String, reason: String },
    #[error("chromedriver could not start Chromium: {reason}")]
    SessionNotCreated { reason: String },
    #[error("starting the browser timed out after {after_ms} ms")]
    Timeout { after_ms: u64 },
    #[error("cannot {what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

/// The binary at `given`, or the first of `names` on PATH.
pub(crate) fn find_binary(given: Option<&Path>, names: &[&str]) -> Result<PathBuf, String> {
    if let Some(path) = given {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(path.display().to_string())
        };
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path_var) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(format!("{} on PATH", names.join(", ")))
}

/// Whether a headed browser has somewhere to draw (X11 or Wayland).
pub(crate) fn has_display(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|k| var(k).is_some_and(|v| !v.is_empty()))
}

/// Chromium flags for this config; `user_data_dir` is the profile in use.
pub(crate) fn chromium_args(config: &BrowserConfig, user_data_dir: &Path) -> Vec<String> {
    let mut args: Vec<String> = QUIET_ARGS.iter().map(|&a| a.to_owned()).collect();
    if config.headless {
        args.extend(["--headless=new", "--disable-gpu"].map(str::to_owned));
    }
    // Chromium as root (containers, CI) refuses to start with its sandbox.
    args.push("--no-sandbox".to_owned());
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    args.push(format!(
        "--window-size={},{}",
        config.window.0, config.window.1
    ));
    if let Some(proxy) = &config.proxy {
        args.push(format!("--proxy-server=http://{proxy}"));
        // Without this Chromium skips the proxy for loopback targets.
        args.push("--proxy-bypass-list=<-loopback>".to_owned());
    }
    if !config.spki_hashes.is_empty() {
        args.push(format!(
            "--ignore-certificate-errors-spki-list={}",
            config.spki_hashes.join(",")
        ));
    }
    args.extend(config.extra_args.iter().cloned());
    args
}

/// W3C capabilities for chromedriver.
pub(crate) fn capabilities(
    config: &BrowserConfig,
    chromium: Option<&Path>,
    user_data_dir: &Path,
) -> serde_json::Map<String, Value> {
    let mut chrome_options = json!({
        "args": chromium_args(config, user_data_dir),
        // Network events for "wait until the network is quiet" (see network.rs).
        "perfLoggingPrefs": { "enableNetwork": true, "enablePage": false },
        "excludeSwitches": ["enable-automation"],
    });
    if let (Some(binary), Some(options)) = (chromium, chrome_options.as_object_mut()) {
        options.insert("binary".to_owned(), json!(binary.display().to_string()));
    }
    let caps = json!({
        "browserName": "chrome",
        // Dialogs stay open and commands report them, so the driver decides.
        "unhandledPromptBehavior": "ignore",
        "pageLoadStrategy": "normal",
        "timeouts": { "pageLoad": 30_000, "script": 15_000, "implicit": 0 },
        "goog:loggingPrefs": { "performance": "ALL" },
        "goog:chromeOptions": chrome_options,
    });
    match caps {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

/// Turns a failed session creation into the error that says how to fix it.
pub(crate) fn session_error(url: &str, error: NewSessionError, profile: &Path) -> LaunchError {
    match error {
        NewSessionError::SessionNotCreated(wd) => {
            let message = wd.message.to_string();
            let first = message.lines().next().unwrap_or_default().to_owned();
            if message.contains("only supports Chrome version")
                || message.contains("This version of ChromeDriver")
            {
                LaunchError::VersionMismatch { detail: first }
            } else if message.contains("Missing X server") || message.contains("$DISPLAY") {
                LaunchError::NoDisplay { detail: first }
            } else if message.contains("user data directory is already in use") {
                LaunchError::ProfileInUse {
                    dir: profile.display().to_string(),
                }
            } else if message.contains("cannot find Chrome binary")
                || message.contains("no chrome binary")
            {
                LaunchError::ChromiumMissing { looked_for: first }
            } else {
                LaunchError::SessionNotCreated { reason: first }
            }
        }
        NewSessionError::Failed(e) => unreachable_error(url, &e),
        NewSessionError::FailedC(e) => unreachable_error(url, &e),
        NewSessionError::Lost(e) => unreachable_error(url, &e),
        NewSessionError::BadWebdriverUrl(e) => unreachable_error(url, &e),
        other => LaunchError::SessionNotCreated {
            reason: other.to_string(),
        },
    }
}

fn unreachable_error(url: &str, error: &dyn std::fmt::Display) -> LaunchError {
    LaunchError::WebdriverUnreachable {
        url: url.to_owned(),
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_and_ca_pin_reach_chromium() {
        let config = BrowserConfig {
            headless: true,
            proxy: Some("127.0.0.1:8080".to_owned()),
            spki_hashes: vec!["abc=".to_owned()],
            ..BrowserConfig::default()
        };
        let args = chromium_args(&config, Path::new("/tmp/p"));
        for expected in [
            "--headless=new",
            "--proxy-server=http://127.0.0.1:8080",
            "--proxy-bypass-list=<-loopback>",
            "--ignore-certificate-errors-spki-list=abc=",
            "--user-data-dir=/tmp/p",
            "--disable-background-networking",
        ] {
            assert!(
                args.iter().any(|a| a == expected),
                "{expected} missing: {args:?}"
            );
        }
    }

    #[test]
    fn headed_by_default_and_no_proxy_without_one() {
        let args = chromium_args(&BrowserConfig::default(), Path::new("/tmp/p"));
        assert!(!args.iter().any(|a| a.starts_with("--headless")));
        assert!(!args.iter().any(|a| a.starts_with("--proxy")));
    }

    #[test]
    fn headed_needs_a_display() {
        assert!(!has_display(|_| None));
        assert!(!has_display(|_| Some("".into())));
        assert!(has_display(
            |k| (k == "WAYLAND_DISPLAY").then(|| "wayland-0".into())
        ));
    }

    #[test]
    fn version_mismatch_is_recognised_from_chromedriver_words() {
        let wd = fantoccini::error::WebDriver::new(
            fantoccini::error::ErrorStatus::SessionNotCreated,
            "session not created: This version of ChromeDriver only supports Chrome version 114\n\
             Current browser version is 116.0.5845.96 with binary path /usr/bin/chromium",
        );
        let error = session_error(
            "http://127.0.0.1:1",
            NewSessionError::SessionNotCreated(wd),
            Path::new("/tmp/p"),
        );
        assert!(
            matches!(error, LaunchError::VersionMismatch { .. }),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains("apt-get install chromium chromium-driver"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_given_binary_is_reported_by_path() {
        let error = find_binary(Some(Path::new("/nonexistent/chromedriver")), &["x"]).unwrap_err();
        assert_eq!(error, "/nonexistent/chromedriver");
    }
}
