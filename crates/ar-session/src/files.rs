//! Atomic output files: a reader (an editor, a validator, `cat`) never sees
//! half a file, and a crash leaves the previous version. Every document `ar`
//! writes goes through here: temp file in the same directory, flushed,
//! made world-readable like any ordinary output, then renamed over the old one.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context as _;

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic_with(path, |out| Ok(out.write_all(bytes)?))
}

/// Streams a file into place atomically: `fill` writes the content (for
/// documents too big to build in memory first, like `capture.har`).
pub fn write_atomic_with<T>(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    let mut out = BufWriter::new(temp);
    let value = fill(&mut out).with_context(|| format!("cannot write {}", path.display()))?;
    let temp = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot write {}", path.display()))?;
    temp.as_file()
        .sync_all()
        .and_then(|()| readable(temp.as_file()))
        .with_context(|| format!("cannot flush {}", path.display()))?;
    temp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(value)
}

/// Temp files are created private (0600); outputs are ordinary files (0644).
#[cfg(unix)]
fn readable(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn readable(_file: &File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("openapi.yaml");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["openapi.yaml"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o644
            );
        }
    }

    #[test]
    fn a_failed_fill_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("capture.har");
        write_atomic(&path, b"old").unwrap();
        let error = write_atomic_with::<()>(&path, |out| {
            out.write_all(b"half")?;
            anyhow::bail!("disk full")
        })
        .unwrap_err();
        assert!(format!("{error:#}").contains("disk full"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_fails_clearly() {
        let error = write_atomic(Path::new("/nonexistent-ar-dir/x.yaml"), b"x").unwrap_err();
        assert!(
            format!("{error:#}").contains("/nonexistent-ar-dir"),
            "{error:#}"
        );
    }
}
