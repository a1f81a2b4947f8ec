//! `ar` first on PATH must not break C builds: archiver-style calls reach
//! the binutils archiver, our own calls stay ours.

use crate::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory holding a symlink named `ar` to the binary under test, put
/// first on PATH the way `cargo install` does with `~/.cargo/bin`.
struct ArFirstOnPath {
    dir: tempfile::TempDir,
    path: String,
}

impl ArFirstOnPath {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ar"), bin.join("ar")).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Self { dir, path }
    }

    fn work(&self) -> &Path {
        self.dir.path()
    }

    /// Runs a shell command line in the work dir with our `ar` first on PATH.
    fn sh(&self, line: &str) -> Output {
        Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(self.work())
            .env("PATH", &self.path)
            .output()
            .unwrap()
    }
}

fn have_binutils() -> bool {
    Path::new("/usr/bin/ar").exists() && Command::new("cc").arg("--version").output().is_ok()
}

#[test]
fn c_static_library_builds_through_our_ar() {
    if !have_binutils() {
        panic!("this test needs binutils and a C compiler (apt-get install -y binutils gcc)");
    }
    let env = ArFirstOnPath::new();
    std::fs::write(
        env.work().join("foo.c"),
        "int answer(void) { return 42; }\n",
    )
    .unwrap();
    std::fs::write(
        env.work().join("main.c"),
        "#include <stdio.h>\nint answer(void);\nint main(void) { printf(\"%d\\n\", answer()); return 0; }\n",
    )
    .unwrap();

    let which = env.sh("command -v ar");
    assert_eq!(
        PathBuf::from(text(&which.stdout).trim()),
        env.work().join("bin/ar"),
        "our ar must be first on PATH"
    );

    // What the `cc` crate runs: `ar cq` then `ar s`, or `ar crs` in one go.
    let build = env.sh(
        "cc -c foo.c -o foo.o && ar cq libfoo.a foo.o && ar s libfoo.a && ar crs libbar.a foo.o",
    );
    assert!(
        build.status.success(),
        "archiving failed: {}",
        text(&build.stderr)
    );

    let listing = env.sh("ar t libfoo.a");
    assert!(listing.status.success(), "{}", text(&listing.stderr));
    assert_eq!(text(&listing.stdout), "foo.o\n");

    let link = env.sh("cc main.c -L. -lfoo -o main && ./main");
    assert!(
        link.status.success(),
        "linking against the archive failed: {}",
        text(&link.stderr)
    );
    assert_eq!(text(&link.stdout), "42\n");
}

#[test]
fn archiver_exit_code_and_stderr_pass_through_unchanged() {
    let env = ArFirstOnPath::new();
    let ours = env.sh("ar t missing.a");
    // The real archiver as a build would run it: found on PATH as `ar`.
    let real = Command::new("sh")
        .args(["-c", "ar t missing.a"])
        .current_dir(env.work())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(!ours.status.success());
    assert_eq!(ours.status.code(), real.status.code());
    assert_eq!(text(&ours.stderr), text(&real.stderr));
}

#[test]
fn archiver_reads_stdin_through_the_passthrough() {
    let env = ArFirstOnPath::new();
    std::fs::write(env.work().join("a.txt"), "x").unwrap();
    // GNU ar's MRI script mode (`ar -M`) reads its commands from stdin.
    let out = env.sh("printf 'create lib.a\\naddmod a.txt\\nsave\\nend\\n' | ar -M && ar t lib.a");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a.txt\n");
}

#[test]
fn our_own_commands_are_not_passed_to_the_archiver() {
    let env = ArFirstOnPath::new();
    let help = env.sh("ar --help");
    assert!(help.status.success());
    let help = text(&help.stdout);
    assert!(help.contains("Reverse-engineer"), "{help}");
    assert!(
        help.contains("binutils archiver"),
        "--help must mention the archiver passthrough: {help}"
    );

    let version = env.sh("ar --version");
    assert_eq!(
        text(&version.stdout).trim(),
        format!("ar {}", env!("CARGO_PKG_VERSION"))
    );
}
