//! The session's archive on disk: `flows.jsonl` (one flushed line per flow,
//! appended, never rewritten) with large bodies in `bodies/<sha256>`; read
//! back for `--resume`, and streamed into `capture.har` on save and exit.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, BufWriter};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use ar_store::Flow;
use ar_store::archive::{ArchiveReader, ArchiveRecord, ArchiveWriter, BodyStore};
use ar_store::har::{HarCreator, HarWriter};

/// The archive file inside the output directory.
pub(crate) const FLOWS_FILE: &str = "flows.jsonl";
/// The spilled-bodies directory inside the output directory.
pub(crate) const BODIES_DIR: &str = "bodies";

/// Content-addressed bodies in a directory: a body already there costs nothing.
#[derive(Debug, Clone)]
pub(crate) struct DirBodies(PathBuf);

impl DirBodies {
    /// The `bodies/` directory of `out_dir`.
    pub(crate) fn in_dir(out_dir: &Path) -> Self {
        Self(out_dir.join(BODIES_DIR))
    }
}

impl BodyStore for DirBodies {
    fn put(&mut self, sha256_hex: &str, bytes: &[u8]) -> io::Result<()> {
        let path = self.0.join(sha256_hex);
        if path.exists() {
            return Ok(());
        }
        fs::create_dir_all(&self.0)?;
        let temp = self.0.join(format!(".{sha256_hex}.tmp"));
        fs::write(&temp, bytes)?;
        fs::rename(temp, path)
    }

    fn get(&self, sha256_hex: &str) -> io::Result<Vec<u8>> {
        fs::read(self.0.join(sha256_hex))
    }
}

/// Appends each flow to `flows.jsonl` (the pipeline's archive).
pub(crate) struct DirArchive {
    writer: ArchiveWriter<File>,
    bodies: DirBodies,
}

impl DirArchive {
    /// Opens `out_dir/flows.jsonl` for appending (created when missing).
    pub(crate) fn open(out_dir: &Path) -> anyhow::Result<Self> {
        let path = out_dir.join(FLOWS_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        Ok(Self {
            writer: ArchiveWriter::new(file),
            bodies: DirBodies::in_dir(out_dir),
        })
    }
}

impl crate::pipeline::Archive for DirArchive {
    fn append(&mut self, flow: &Flow) -> anyhow::Result<()> {
        self.writer.append(flow, &mut self.bodies)?;
        Ok(())
    }
}

/// Calls `each` for every intact flow in `out_dir/flows.jsonl` (none when
/// the file is missing); returns the warnings for skipped lines.
pub(crate) fn read_flows(
    out_dir: &Path,
    mut each: impl FnMut(Flow) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<String>> {
    let path = out_dir.join(FLOWS_FILE);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", path.display())),
    };
    let bodies = DirBodies::in_dir(out_dir);
    let mut reader = ArchiveReader::new(BufReader::new(file));
    let mut warnings = Vec::new();
    while let Some(record) = reader.next_record(&bodies)? {
        match record {
            ArchiveRecord::Flow(flow) => each(flow)?,
            ArchiveRecord::Skipped(warning) => {
                warnings.push(format!("{}: {warning}", path.display()))
            }
        }
    }
    Ok(warnings)
}

/// Streams the whole archive into `out_dir/<file>` as one HAR 1.2 document
/// (written to a temp file and renamed); returns the number of entries.
pub(crate) fn export_har(out_dir: &Path, file: &str) -> anyhow::Result<u64> {
    let path = out_dir.join(file);
    let temp = tempfile::NamedTempFile::new_in(out_dir)
        .with_context(|| format!("cannot write in {}", out_dir.display()))?;
    let mut har = HarWriter::new(BufWriter::new(temp), &HarCreator::default())?;
    let mut entries = 0u64;
    read_flows(out_dir, |flow| {
        har.write(&flow)?;
        entries += 1;
        Ok(())
    })?;
    let temp = har.finish()?.into_inner().map_err(|e| e.into_error())?;
    super::manifest::readable(temp.as_file())?;
    temp.persist(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Archive as _;
    use ar_store::{Body, Client, FlowId, HttpVersion, Request, Response, Timestamp};

    fn flow(id: u64, size: usize) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body = Body::from_decoded(Some("application/json".into()), vec![b'7'; size]);
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(1_700_000_000_000_000),
            Client::Explorer,
            Request::new(
                "GET",
                format!("https://shop.test/api/items/{id}"),
                HttpVersion::Http11,
            ),
        )
        .with_response(response)
    }

    #[test]
    fn flows_survive_a_reopen_with_spilled_bodies_and_export_as_har() {
        let dir = tempfile::tempdir().unwrap();
        let mut archive = DirArchive::open(dir.path()).unwrap();
        archive.append(&flow(1, 10)).unwrap();
        archive.append(&flow(2, 200_000)).unwrap();
        drop(archive);
        let mut archive = DirArchive::open(dir.path()).unwrap();
        archive.append(&flow(3, 10)).unwrap();

        let mut back = Vec::new();
        let warnings = read_flows(dir.path(), |f| {
            back.push(f);
            Ok(())
        })
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back, vec![flow(1, 10), flow(2, 200_000), flow(3, 10)]);
        assert_eq!(
            fs::read_dir(dir.path().join(BODIES_DIR)).unwrap().count(),
            1
        );

        assert_eq!(export_har(dir.path(), "capture.har").unwrap(), 3);
        let har: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join("capture.har")).unwrap())
                .unwrap();
        assert_eq!(har["log"]["entries"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn a_missing_archive_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_flows(dir.path(), |_| unreachable!())
                .unwrap()
                .is_empty()
        );
    }
}
