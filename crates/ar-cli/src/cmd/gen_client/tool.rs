//! Finding and running the generators each ecosystem trusts, at the versions
//! ar was tested with.
//!
//! A generator installed at the pinned version comes first (CI installs them:
//! `.ci/.venv`, `.ci/node`; a user may have them too), then the ecosystem's
//! runner, which fetches exactly the pinned version (`uvx`, `pipx run`,
//! `npx -y`), then an installed generator of another version, with a note,
//! since its output may differ from what ar was tested with. When none is
//! found, the error says what to install.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

/// A generator package at the version ar was tested with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pinned {
    /// The package's and its command's name.
    pub(crate) name: &'static str,
    /// The exact version `ar gen-client` asks the runners for.
    pub(crate) version: &'static str,
}

/// openapi-python-client (PyPI): a typed httpx client with attrs models.
pub(crate) const OPENAPI_PYTHON_CLIENT: Pinned = Pinned {
    name: "openapi-python-client",
    version: "0.29.1",
};

/// openapi-typescript (npm): the spec's paths and schemas as TypeScript types.
pub(crate) const OPENAPI_TYPESCRIPT: Pinned = Pinned {
    name: "openapi-typescript",
    version: "7.13.0",
};

/// openapi-fetch (npm): the typed `fetch` client over openapi-typescript's types;
/// the generated package depends on it.
pub(crate) const OPENAPI_FETCH: Pinned = Pinned {
    name: "openapi-fetch",
    version: "0.17.0",
};

/// A way to run a generator: a program and the arguments that come before the
/// generator's own.
#[derive(Debug, Clone)]
pub(crate) struct Tool {
    program: PathBuf,
    prefix: Vec<String>,
    /// How it was found, for the summary ("openapi-python-client 0.29.1 (uvx)").
    pub(crate) how: String,
    /// Set when the version differs from the pinned one.
    pub(crate) note: Option<String>,
}

impl Tool {
    /// Runs the generator with `args` in `cwd` and returns what it printed
    /// (stdout, then stderr); fails with that text when it exits unsuccessfully.
    pub(crate) fn run(&self, args: &[OsString], cwd: &Path) -> anyhow::Result<String> {
        let mut command = Command::new(&self.program);
        command.args(&self.prefix).args(args).current_dir(cwd);
        // Tools a generator calls (openapi-python-client formats with ruff)
        // live beside it when it is installed in a virtualenv.
        if let Some(dir) = self.program.parent().filter(|d| !d.as_os_str().is_empty()) {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let joined = std::env::join_paths(
                std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&path)),
            )
            .context("PATH holds a directory name that cannot be joined")?;
            command.env("PATH", joined);
        }
        let output = command
            .output()
            .with_context(|| format!("cannot run {}", self.program.display()))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if !output.status.success() {
            bail!(
                "{} failed ({}):\n{}",
                self.how,
                output.status,
                text.trim_end()
            );
        }
        Ok(text)
    }
}

/// An ecosystem's runner: a program that fetches and runs a package at an
/// exact version (`uvx name@1.2.3`).
struct Runner {
    program: &'static str,
    /// The arguments before the generator's own, for a pinned package.
    prefix: fn(Pinned) -> Vec<String>,
    /// How the summary says it ran ("uvx", "pipx run").
    label: &'static str,
}

/// openapi-python-client: installed at the pinned version, else `uvx`, else
/// `pipx run`, else installed at another version.
pub(crate) fn python_generator() -> anyhow::Result<Tool> {
    let pinned = OPENAPI_PYTHON_CLIENT;
    find(
        pinned,
        &[
            Runner {
                program: "uvx",
                prefix: |p| vec![format!("{}@{}", p.name, p.version)],
                label: "uvx",
            },
            Runner {
                program: "pipx",
                prefix: |p| {
                    vec![
                        "run".into(),
                        "--spec".into(),
                        format!("{}=={}", p.name, p.version),
                        p.name.into(),
                    ]
                },
                label: "pipx run",
            },
        ],
    )
    .ok_or_else(|| {
        anyhow::anyhow!(
            "the Python client needs {name} {version}, and neither it, uvx nor pipx is on PATH: \
             install uv (`pip install uv`, or https://docs.astral.sh/uv/) so ar can run \
             `uvx {name}@{version}`, or `pip install {name}=={version}`",
            name = pinned.name,
            version = pinned.version,
        )
    })
}

/// openapi-typescript: installed at the pinned version, else `npx -y`, else
/// installed at another version.
pub(crate) fn typescript_generator() -> anyhow::Result<Tool> {
    let pinned = OPENAPI_TYPESCRIPT;
    find(
        pinned,
        &[Runner {
            program: "npx",
            prefix: |p| vec!["-y".into(), format!("{}@{}", p.name, p.version)],
            label: "npx",
        }],
    )
    .ok_or_else(|| {
        anyhow::anyhow!(
            "the TypeScript client needs {name} {version}, and neither it nor npx is on PATH: \
             install Node.js with npm (`apt-get install nodejs npm`, or https://nodejs.org), \
             so ar can run `npx -y {name}@{version}`",
            name = pinned.name,
            version = pinned.version,
        )
    })
}

/// The generator installed at the pinned version, else the first runner on
/// PATH, else the generator installed at another version.
fn find(pinned: Pinned, runners: &[Runner]) -> Option<Tool> {
    let installed = on_path(pinned.name).map(|program| {
        let version = version_of(&program, "--version");
        (program, version)
    });
    if let Some((program, Some(version))) = &installed
        && version == pinned.version
    {
        return Some(direct(program, pinned, version));
    }
    for runner in runners {
        if let Some(program) = on_path(runner.program) {
            return Some(Tool {
                program,
                prefix: (runner.prefix)(pinned),
                how: format!("{} {} ({})", pinned.name, pinned.version, runner.label),
                note: None,
            });
        }
    }
    installed.map(|(program, version)| direct(&program, pinned, version.as_deref().unwrap_or("?")))
}

fn direct(program: &Path, pinned: Pinned, version: &str) -> Tool {
    let note = (version != pinned.version).then(|| {
        format!(
            "{} is {} {version}; ar was tested with {} (its output may differ)",
            program.display(),
            pinned.name,
            pinned.version
        )
    });
    Tool {
        program: program.to_path_buf(),
        prefix: Vec::new(),
        how: format!("{} {version} ({})", pinned.name, program.display()),
        note,
    }
}

/// The first executable called `name` on PATH.
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The version a program prints for `flag`: the last word of its first line,
/// without a leading `v` (`openapi-python-client version: 0.29.1`, `v7.13.0`).
fn version_of(program: &Path, flag: &str) -> Option<String> {
    let output = Command::new(program).arg(flag).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let word = text.lines().next()?.split_whitespace().last()?;
    Some(word.trim_start_matches('v').to_owned())
}
