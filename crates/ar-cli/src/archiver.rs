//! `ar` is also the name of the binutils archiver that every C build runs
//! (`cc` crate: `ar crs libfoo.a foo.o`). When our binary sits first on
//! PATH, an archiver-style call must reach the real archiver unchanged, or
//! we would break every build on the machine. This module recognises such a
//! call and replaces the process with the next `ar` on PATH.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Environment variable listing the `ar` binaries already tried in this
/// chain of passthroughs, so two copies of us on PATH cannot loop.
const VISITED_VAR: &str = "AR_AUTO_REVERSE_PASSTHROUGH";

/// Archiver operation letters: POSIX `dmpqrtx`, plus GNU's `s` (run ranlib)
/// and `M` (read an MRI script from stdin).
const OPERATIONS: &str = "dmpqrstxM";
/// Archiver modifier letters accepted by POSIX and GNU `ar`.
const MODIFIERS: &str = "abcDfilNoOPsSTuUvV";

/// Whether `args` (without the program name) is an archiver invocation
/// rather than one of ours; `ours` are our subcommand names, which always win.
pub(crate) fn is_archiver_call(args: &[OsString], ours: &[&str]) -> bool {
    let Some(first) = args.first().and_then(|a| a.to_str()) else {
        return false;
    };
    if ours.contains(&first) {
        return false;
    }
    // GNU ar options that only an archiver takes, and response files (`ar @cmds`).
    if first == "--plugin"
        || first.starts_with("--plugin=")
        || first.starts_with("--target")
        || first.starts_with("--output")
        || first.starts_with('@')
    {
        return true;
    }
    is_key(first)
}

/// POSIX key syntax: an optional `-`, then letters that are operations or
/// modifiers, with at least one operation letter (`rcs`, `crs`, `cq`, `-t`, `x`).
fn is_key(word: &str) -> bool {
    let letters = word.strip_prefix('-').unwrap_or(word);
    if letters.is_empty() || letters.starts_with('-') {
        return false;
    }
    letters
        .chars()
        .all(|c| OPERATIONS.contains(c) || MODIFIERS.contains(c))
        && letters.chars().any(|c| OPERATIONS.contains(c))
}

/// Replaces this process with the next archiver on PATH. Only returns when
/// that is impossible, with the message to print.
pub(crate) fn exec_next_archiver(args: &[OsString]) -> String {
    let me = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let mut visited: Vec<PathBuf> = std::env::var_os(VISITED_VAR)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    visited.extend(me);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(archiver) = next_archiver(&path, &visited) else {
        return format!(
            "ar: `ar {}` is an archiver command, and this `ar` is auto-reverse, not the binutils archiver.\n\
             No other `ar` was found on PATH or at /usr/bin/ar. Install one (Debian/Ubuntu: apt-get install binutils),\n\
             or put its directory before this one on PATH.",
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        );
    };
    visited.push(archiver.clone());
    let chain = std::env::join_paths(&visited).unwrap_or_default();
    exec(&archiver, args, &chain)
}

#[cfg(unix)]
fn exec(archiver: &Path, args: &[OsString], chain: &OsStr) -> String {
    use std::os::unix::process::CommandExt as _;
    let error = std::process::Command::new(archiver)
        .arg0("ar")
        .args(args)
        .env(VISITED_VAR, chain)
        .exec();
    format!(
        "ar: could not run the archiver {}: {error}",
        archiver.display()
    )
}

#[cfg(not(unix))]
fn exec(archiver: &Path, args: &[OsString], chain: &OsStr) -> String {
    match std::process::Command::new(archiver)
        .args(args)
        .env(VISITED_VAR, chain)
        .status()
    {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(error) => format!(
            "ar: could not run the archiver {}: {error}",
            archiver.display()
        ),
    }
}

/// The first `ar` on `path` that is not in `visited` (by canonical path), else `/usr/bin/ar`.
fn next_archiver(path: &OsStr, visited: &[PathBuf]) -> Option<PathBuf> {
    let is_new = |candidate: &Path| {
        candidate
            .canonicalize()
            .map(|real| is_executable(&real) && !visited.contains(&real))
            .unwrap_or(false)
    };
    std::env::split_paths(path)
        .map(|dir| dir.join("ar"))
        .chain(std::iter::once(PathBuf::from("/usr/bin/ar")))
        .find(|candidate| is_new(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> bool {
        let ours = crate::cli::subcommand_names();
        let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
        is_archiver_call(&args.iter().map(OsString::from).collect::<Vec<_>>(), &ours)
    }

    #[test]
    fn archiver_keys_are_recognised() {
        for key in [
            "-M", "rcs", "crs", "cq", "t", "x", "-t", "s", "ru", "-rcsD", "qc", "tv", "d", "p", "m",
        ] {
            assert!(call(&[key, "libfoo.a"]), "{key} should be an archiver call");
        }
        assert!(call(&["--plugin", "/usr/lib/lto.so", "rcs", "lib.a"]));
        assert!(call(&["@args.txt"]));
    }

    #[test]
    fn our_own_invocations_are_not_archiver_calls() {
        for args in [
            &["https://example.test"][..],
            &["example.test"],
            &["import", "a.har"],
            &["proxy", "--out", "x"],
            &["ca", "--print-spki"],
            &["infer-schema"],
            &["demo"],
            &["help", "proxy"],
            &["--help"],
            &["--version"],
            &["-h"],
            &["-V"],
            &[],
            &["--headless", "https://shop.test"],
            &["localhost:8080"],
        ] {
            assert!(!call(args), "{args:?} should be ours");
        }
    }

    #[test]
    fn visited_archivers_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("a");
        let second = dir.path().join("b");
        for d in [&first, &second] {
            std::fs::create_dir(d).unwrap();
            let bin = d.join("ar");
            std::fs::write(&bin, "#!/bin/sh\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let path = std::env::join_paths([&first, &second]).unwrap();
        let visited = vec![first.join("ar").canonicalize().unwrap()];
        assert_eq!(next_archiver(&path, &visited), Some(second.join("ar")));
    }

    #[test]
    fn no_archiver_left_is_reported_as_none() {
        let mut visited = Vec::new();
        if let Ok(real) = Path::new("/usr/bin/ar").canonicalize() {
            visited.push(real);
        }
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(next_archiver(empty.path().as_os_str(), &visited), None);
    }
}
