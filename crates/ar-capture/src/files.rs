//! Writing the CA's files: private directory, owner-only key, synced to disk.

use std::path::Path;

use crate::CaptureError;

pub(crate) fn read(path: &Path) -> Result<String, CaptureError> {
    std::fs::read_to_string(path).map_err(|source| CaptureError::CaIo {
        path: path.to_path_buf(),
        source,
    })
}

pub(crate) fn create_private_dir(dir: &Path) -> Result<(), CaptureError> {
    let io = |source| CaptureError::CaIo {
        path: dir.to_path_buf(),
        source,
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(io)
}

pub(crate) fn write_file(path: &Path, bytes: &[u8], mode: u32) -> Result<(), CaptureError> {
    use std::io::Write as _;
    let io = |source| CaptureError::CaIo {
        path: path.to_path_buf(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path).map_err(io)?;
    file.write_all(bytes).map_err(io)?;
    file.sync_all().map_err(io)
}
