//! The archive on disk: `DIR/flows.jsonl` (one HAR entry per line, in
//! ar-store's archive format) and `DIR/bodies/<sha256>` for large bodies.
//!
//! Lines are appended and flushed one flow at a time, so a crash loses at
//! most the line being written (which the reader reports and skips).
//! Bodies are written to a temp file and renamed, so a body file is whole
//! or absent; being content-addressed, a repeated body is stored once.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use ar_flow::archive::{ArchiveReader, ArchiveRecord, ArchiveWriter, BodyStore};
use ar_flow::har::{HarCreator, HarWriter};
use ar_store::Flow;

/// File name of the flow log inside an output directory.
pub const FLOWS_FILE: &str = "flows.jsonl";
/// Directory of spilled bodies inside an output directory.
pub const BODIES_DIR: &str = "bodies";

/// Spilled bodies as files named by their SHA-256.
#[derive(Debug, Clone)]
pub struct DirBodyStore {
    dir: PathBuf,
}

impl BodyStore for DirBodyStore {
    fn put(&mut self, sha256_hex: &str, bytes: &[u8]) -> io::Result<()> {
        let path = self.dir.join(sha256_hex);
        if path.exists() {
            return Ok(()); // content-addressed: the same bytes are already there
        }
        let tmp = self
            .dir
            .join(format!(".{sha256_hex}.tmp-{}", std::process::id()));
        fs::write(&tmp, bytes)?;
        fs::rename(&tmp, &path)
    }

    fn get(&self, sha256_hex: &str) -> io::Result<Vec<u8>> {
        fs::read(self.dir.join(sha256_hex))
    }
}

/// `flows.jsonl` behind a buffer whose `flush` is deferred: the archive
/// writer flushes after every line, and under load that is one `write`
/// system call per flow. Lines are instead written out by
/// [`ArchiveDir::flush`], which the caller runs whenever it has no more
/// flows waiting (so at low rates every flow is still written at once).
struct Deferred(Arc<Mutex<io::BufWriter<File>>>);

impl Deferred {
    fn lock(&self) -> std::sync::MutexGuard<'_, io::BufWriter<File>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl io::Write for Deferred {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.lock().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.lock().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An output directory's archive, open for appending.
pub struct ArchiveDir {
    path: PathBuf,
    writer: ArchiveWriter<Deferred>,
    /// The buffer inside `writer`, for [`ArchiveDir::flush`].
    buffer: Deferred,
    /// A second handle on `flows.jsonl`, for `sync_data` (the writer owns the first).
    sync_handle: File,
    bodies: DirBodyStore,
}

impl ArchiveDir {
    /// Opens (creating as needed) `dir/flows.jsonl` for appending and `dir/bodies/`.
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        let bodies = dir.join(BODIES_DIR);
        fs::create_dir_all(&bodies)
            .with_context(|| format!("cannot create {}", bodies.display()))?;
        let path = dir.join(FLOWS_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        let sync_handle = file
            .try_clone()
            .with_context(|| format!("cannot open {}", path.display()))?;
        let buffer = Arc::new(Mutex::new(io::BufWriter::with_capacity(256 * 1024, file)));
        let writer = ArchiveWriter::new(Deferred(Arc::clone(&buffer)));
        Ok(Self {
            path,
            writer,
            buffer: Deferred(buffer),
            sync_handle,
            bodies: DirBodyStore { dir: bodies },
        })
    }

    /// Appends one flow to the buffer; [`ArchiveDir::flush`] writes it out.
    pub fn append(&mut self, flow: &Flow) -> anyhow::Result<()> {
        self.writer
            .append(flow, &mut self.bodies)
            .with_context(|| format!("cannot append to {}", self.path.display()))
    }

    /// Writes buffered lines to the file (call when no more flows are waiting).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        use std::io::Write as _;
        self.buffer
            .lock()
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    /// Flows appended through this handle.
    pub fn written(&self) -> u64 {
        self.writer.written()
    }

    /// Writes buffered lines and forces the file's data to disk (on exit).
    pub fn sync(&mut self) -> anyhow::Result<()> {
        self.flush()?;
        self.sync_handle
            .sync_data()
            .with_context(|| format!("cannot flush {}", self.path.display()))
    }

    /// The path of `flows.jsonl`.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The session's pipeline archives through this; each flow is written out
/// at once (the session's rate is a browser's, not a load test's).
impl crate::pipeline::Archive for ArchiveDir {
    fn append(&mut self, flow: &Flow) -> anyhow::Result<()> {
        ArchiveDir::append(self, flow)?;
        self.flush()
    }
}

/// Calls `each` for every intact flow in `dir/flows.jsonl`, streaming (a
/// missing file reads as empty); returns a warning per skipped line (a torn
/// last line after a crash, a damaged line).
pub fn read_flows(
    dir: &Path,
    each: impl FnMut(Flow) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<String>> {
    let path = dir.join(FLOWS_FILE);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut warnings = Vec::new();
    stream_archive(file, &path, each, |warning| {
        warnings.push(warning);
        Ok(())
    })?;
    Ok(warnings)
}

/// Reads an archive, `flows.jsonl` from `reader` (named `path` in messages,
/// its spilled bodies in `bodies/` beside it), one line at a time: `each`
/// gets every intact flow, `skipped` a warning per line left out (a torn
/// last line after a crash, a damaged line, a missing body), naming the
/// file. Either stops the read by returning an error.
pub fn stream_archive(
    reader: impl io::Read,
    path: &Path,
    mut each: impl FnMut(Flow) -> anyhow::Result<()>,
    mut skipped: impl FnMut(String) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let bodies = DirBodyStore {
        dir: path.parent().unwrap_or(Path::new(".")).join(BODIES_DIR),
    };
    let mut reader = ArchiveReader::new(BufReader::with_capacity(1 << 16, reader));
    while let Some(record) = reader
        .next_record(&bodies)
        .with_context(|| format!("cannot read {}", path.display()))?
    {
        match record {
            ArchiveRecord::Flow(flow) => each(flow)?,
            ArchiveRecord::Skipped(warning) => skipped(format!("{}: {warning}", path.display()))?,
        }
    }
    Ok(())
}

/// Streams the whole archive into `dir/<file>` as one HAR 1.2 document
/// (atomically); returns the number of entries.
pub fn export_har(dir: &Path, file: &str) -> anyhow::Result<u64> {
    crate::files::write_atomic_with(&dir.join(file), |out| {
        let mut har = HarWriter::new(out, &HarCreator::default())?;
        let mut entries = 0u64;
        read_flows(dir, |flow| {
            har.write(&flow)?;
            entries += 1;
            Ok(())
        })?;
        har.finish()?;
        Ok(entries)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::{Body, Client, FlowId, HttpVersion, Request, Response, Timestamp};

    fn flow(id: u64, body: Vec<u8>) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body = Body::from_decoded(Some("application/octet-stream".into()), body);
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(1_700_000_000_000_000),
            Client::Human,
            Request::new("GET", "https://shop.test/x", HttpVersion::Http11),
        )
        .with_response(response)
    }

    #[test]
    fn flows_round_trip_and_large_bodies_are_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![42u8; 200_000];
        {
            let mut archive = ArchiveDir::open(dir.path()).unwrap();
            archive.append(&flow(1, b"small".to_vec())).unwrap();
            archive.append(&flow(2, big.clone())).unwrap();
            archive.append(&flow(3, big.clone())).unwrap();
            archive.sync().unwrap();
            assert_eq!(archive.written(), 3);
        }
        // Reopening appends rather than truncating.
        let mut again = ArchiveDir::open(dir.path()).unwrap();
        again.append(&flow(4, Vec::new())).unwrap();
        again.flush().unwrap();
        let mut flows = Vec::new();
        let warnings = read_flows(dir.path(), |f| {
            flows.push(f);
            Ok(())
        })
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let ids: Vec<u64> = flows.iter().map(|f| f.id.0).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        assert_eq!(flows[2].response.as_ref().unwrap().body.bytes, big);
        let spilled = fs::read_dir(dir.path().join(BODIES_DIR)).unwrap().count();
        assert_eq!(spilled, 1, "one file for two identical large bodies");
    }

    #[test]
    fn the_archive_exports_as_one_har_and_a_missing_one_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_flows(dir.path(), |_| unreachable!())
                .unwrap()
                .is_empty()
        );
        let mut archive = ArchiveDir::open(dir.path()).unwrap();
        archive.append(&flow(1, b"a".to_vec())).unwrap();
        archive.append(&flow(2, vec![7; 100_000])).unwrap();
        archive.sync().unwrap();
        assert_eq!(export_har(dir.path(), "capture.har").unwrap(), 2);
        let har: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join("capture.har")).unwrap())
                .unwrap();
        assert_eq!(har["log"]["entries"].as_array().unwrap().len(), 2);
    }
}
