//! Integration tests of the `ar` binary: one test binary, one module per capability.

mod against;
mod agent;
mod archiver;
mod browser;
mod diff;
mod diff_peer;
mod explore_lock;
mod explore_workbench;
mod explore_workspace;
mod gen_client;
mod hostile;
mod import;
mod infer_schema;
mod mcp;
mod proxy;
mod proxy_reverse;
mod proxy_socks5;
mod proxy_upstream;
mod schemathesis;
mod scope;
mod session;
mod shop;
mod take;
mod web;

/// `ar ARGS...` run to its end, its output captured.
pub(crate) fn ar_run<P: AsRef<std::ffi::OsStr>>(args: &[P]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ar"))
        .args(args)
        .output()
        .expect("ar runs")
}

/// Bytes a command wrote, as text.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Probes until `busy` no longer holds for the result or `within` is up, and
/// returns the last result: for what happens asynchronously, such as a killed
/// process going away (a loaded machine takes a moment to tear down a renderer,
/// and chromedriver, under the watchdog shell rather than our child, cannot be
/// waited for) or a file a running `ar` rewrites.
pub(crate) fn settled<T>(
    within: std::time::Duration,
    mut probe: impl FnMut() -> T,
    busy: impl Fn(&T) -> bool,
) -> T {
    let deadline = std::time::Instant::now() + within;
    let mut last = probe();
    while busy(&last) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        last = probe();
    }
    last
}

/// Runs a real OpenAPI validator when one is installed.
pub(crate) fn validate_if_possible(spec: &std::path::Path) {
    let Ok(status) = std::process::Command::new("openapi-spec-validator")
        .arg(spec)
        .stdout(std::process::Stdio::null())
        .status()
    else {
        eprintln!("openapi-spec-validator not on PATH: structural checks only");
        return;
    };
    assert!(
        status.success(),
        "openapi-spec-validator rejected {}",
        spec.display()
    );
}

/// The repository's root (for the tools `.ci/run` installs there).
pub(crate) fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether `path` (a tool `.ci/run` installs) is there: under CI it must be;
/// elsewhere the test says what is missing and passes without running.
pub(crate) fn installed(path: &std::path::Path, what: &str) -> bool {
    if path.exists() {
        return true;
    }
    let message = format!(
        "{what} is not installed at {}: run `bash .ci/run` (or its install steps)",
        path.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("skipped: {message}");
    false
}
