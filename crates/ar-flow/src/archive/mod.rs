//! The lossless archive: `flows.jsonl`, one HAR entry per line plus `_ar`.
//!
//! Each line is a complete HAR 1.2 entry (so `jq` and HAR tools can read it)
//! with an `_ar` object carrying what HAR cannot: the flow id, exact
//! microsecond times, who drove, HTTP versions verbatim, body facts (declared
//! and wire sizes, truncation, decode errors), the error kind, `None`
//! timings, and WebSocket frames. Bodies larger than the spill threshold are
//! not inlined: they go to a [`BodyStore`] under their SHA-256
//! (`bodies/<sha256 hex>` on disk), so repeated bodies cost nothing.
//!
//! [`ArchiveWriter`] appends and flushes one line per flow. [`ArchiveReader`]
//! rebuilds every flow exactly; a torn last line (a crash mid-write) comes
//! back as a warning, never an error, and so does a damaged line in the
//! middle, so `--resume` always gets every intact flow.
//!
//! ```
//! use ar_flow::archive::{ArchiveReader, ArchiveRecord, ArchiveWriter, MemoryBodyStore};
//! use ar_flow::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
//!
//! let mut response = Response::new(200, HttpVersion::Http2);
//! response.body = Body::from_decoded(Some("application/octet-stream".into()), vec![7; 100_000]);
//! let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(1_700_000_000_000_001), Client::Agent,
//!     Request::new("GET", "https://shop.test/big", HttpVersion::Http2)).with_response(response);
//!
//! let mut bodies = MemoryBodyStore::default();
//! let mut writer = ArchiveWriter::new(Vec::new());
//! writer.append(&flow, &mut bodies).unwrap();
//! let bytes = writer.into_inner();
//! assert_eq!(bodies.len(), 1); // the 100 kB body was spilled
//!
//! let mut reader = ArchiveReader::new(&bytes[..]);
//! let Some(ArchiveRecord::Flow(back)) = reader.next_record(&bodies).unwrap() else { panic!() };
//! assert_eq!(back, flow);
//! ```
//!
//! A directory-backed store (what `ar` uses) is a few lines in the caller:
//!
//! ```no_run
//! use std::{fs, io, path::PathBuf};
//! use ar_flow::archive::BodyStore;
//!
//! struct DirBodyStore(PathBuf);
//! impl BodyStore for DirBodyStore {
//!     fn put(&mut self, sha256_hex: &str, bytes: &[u8]) -> io::Result<()> {
//!         let path = self.0.join(sha256_hex);
//!         if path.exists() { return Ok(()); } // content-addressed: already there
//!         let tmp = self.0.join(format!("{sha256_hex}.tmp"));
//!         fs::write(&tmp, bytes)?;
//!         fs::rename(tmp, path)
//!     }
//!     fn get(&self, sha256_hex: &str) -> io::Result<Vec<u8>> {
//!         fs::read(self.0.join(sha256_hex))
//!     }
//! }
//! ```

mod encode;
mod json_num;
mod json_out;
mod line;

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

use crate::{Error, Flow};

/// The content address of a body: lowercase hex SHA-256 of its bytes.
pub fn body_hash(bytes: &[u8]) -> String {
    line::sha256_hex(bytes)
}

/// Where spilled bodies live, addressed by the SHA-256 of their bytes.
pub trait BodyStore {
    /// Stores `bytes` under `sha256_hex` (a no-op when already present).
    fn put(&mut self, sha256_hex: &str, bytes: &[u8]) -> io::Result<()>;
    /// The bytes stored under `sha256_hex` (`NotFound` when absent).
    fn get(&self, sha256_hex: &str) -> io::Result<Vec<u8>>;
}

/// A [`BodyStore`] in memory, for tests and short-lived tools.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryBodyStore {
    bodies: BTreeMap<String, Vec<u8>>,
}

impl MemoryBodyStore {
    /// Number of distinct bodies stored.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }
    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }
}

impl BodyStore for MemoryBodyStore {
    fn put(&mut self, sha256_hex: &str, bytes: &[u8]) -> io::Result<()> {
        self.bodies
            .entry(sha256_hex.to_string())
            .or_insert_with(|| bytes.to_vec());
        Ok(())
    }
    fn get(&self, sha256_hex: &str) -> io::Result<Vec<u8>> {
        self.bodies
            .get(sha256_hex)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no body {sha256_hex}")))
    }
}

/// Default spill threshold: bodies above 64 KiB go to the body store.
pub const DEFAULT_SPILL_THRESHOLD: usize = 64 * 1024;

/// Line buffers larger than this are released after the line is written.
const KEEP_BUFFER_BYTES: usize = 1 << 20;

/// Appends flows to an archive, one flushed line each.
///
/// Each line is encoded straight from the flow into a buffer the writer
/// keeps, so appending a small flow costs a handful of allocations.
pub struct ArchiveWriter<W: Write> {
    out: W,
    threshold: usize,
    written: u64,
    /// The line being written, reused across appends.
    line: Vec<u8>,
    scratch: encode::Scratch,
}

impl<W: Write> ArchiveWriter<W> {
    /// A writer appending to `out` (open the file in append mode).
    pub fn new(out: W) -> Self {
        Self {
            out,
            threshold: DEFAULT_SPILL_THRESHOLD,
            written: 0,
            line: Vec::new(),
            scratch: encode::Scratch::default(),
        }
    }

    /// Bodies longer than `bytes` are spilled to the body store.
    pub fn with_spill_threshold(mut self, bytes: usize) -> Self {
        self.threshold = bytes;
        self
    }

    /// Writes one flow as one line and flushes.
    pub fn append(&mut self, flow: &Flow, bodies: &mut dyn BodyStore) -> Result<(), Error> {
        self.line.clear();
        encode::encode_into(
            flow,
            bodies,
            self.threshold,
            &mut self.scratch,
            &mut self.line,
        )?;
        self.line.push(b'\n');
        let context = || format!("appending flow {} to the archive", flow.id.0);
        self.out
            .write_all(&self.line)
            .map_err(|e| Error::io(context(), e))?;
        self.out.flush().map_err(|e| Error::io(context(), e))?;
        self.written += 1;
        if self.line.capacity() > KEEP_BUFFER_BYTES {
            // One huge inlined body (a high spill threshold) must not pin its
            // buffers for the rest of the session.
            self.line = Vec::new();
            self.scratch = encode::Scratch::default();
        }
        Ok(())
    }

    /// Lines written by this writer.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A line that did not yield a flow; reading goes on.
#[derive(Debug)]
#[non_exhaustive]
pub enum ArchiveWarning {
    /// The last line has no newline and does not parse: a write was cut short.
    TornLastLine {
        /// 1-based line number.
        line: u64,
        /// Bytes in the torn line.
        bytes: usize,
    },
    /// A complete line that could not be decoded (or whose spilled body is missing).
    BadLine {
        /// What went wrong (names the line).
        error: Error,
    },
}

impl std::fmt::Display for ArchiveWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TornLastLine { line, bytes } => write!(
                f,
                "archive line {line}: skipped a torn last line ({bytes} bytes; a write was interrupted)"
            ),
            Self::BadLine { error } => write!(f, "{error} (line skipped)"),
        }
    }
}

/// One item read from an archive.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "records are consumed one at a time; boxing would cost an allocation per flow"
)]
pub enum ArchiveRecord {
    /// A rebuilt flow.
    Flow(Flow),
    /// A skipped line.
    Skipped(ArchiveWarning),
}

/// Reads an archive line by line.
pub struct ArchiveReader<R: BufRead> {
    input: R,
    line: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> ArchiveReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> Self {
        Self {
            input,
            line: 0,
            buf: Vec::new(),
        }
    }

    /// The next flow or warning; `Ok(None)` at the end. Only I/O fails.
    pub fn next_record(&mut self, bodies: &dyn BodyStore) -> Result<Option<ArchiveRecord>, Error> {
        loop {
            self.buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| Error::io(format!("reading archive line {}", self.line + 1), e))?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let complete = self.buf.last() == Some(&b'\n');
            let text = String::from_utf8_lossy(&self.buf);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            return Ok(Some(match line::decode(text, self.line, bodies) {
                Ok(flow) => ArchiveRecord::Flow(flow),
                Err(_) if !complete => ArchiveRecord::Skipped(ArchiveWarning::TornLastLine {
                    line: self.line,
                    bytes: n,
                }),
                Err(error) => ArchiveRecord::Skipped(ArchiveWarning::BadLine { error }),
            }));
        }
    }
}

/// Everything read from an archive.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ArchiveContents {
    /// The flows, in line order.
    pub flows: Vec<Flow>,
    /// Skipped lines.
    pub warnings: Vec<ArchiveWarning>,
}

/// Reads a whole archive; fails only on I/O errors.
pub fn read_archive<R: BufRead>(
    input: R,
    bodies: &dyn BodyStore,
) -> Result<ArchiveContents, Error> {
    let mut reader = ArchiveReader::new(input);
    let mut contents = ArchiveContents::default();
    while let Some(record) = reader.next_record(bodies)? {
        match record {
            ArchiveRecord::Flow(flow) => contents.flows.push(flow),
            ArchiveRecord::Skipped(warning) => contents.warnings.push(warning),
        }
    }
    Ok(contents)
}

/// What a writer appends after `prefix`, as text: the encoders' tests check
/// that they append and never overwrite.
#[cfg(test)]
fn written(write: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = b"prefix".to_vec();
    write(&mut out);
    String::from_utf8(out).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Body, Client, ErrorKind, FlowId, HttpVersion, Request, Response, Timestamp};

    fn flow(id: u64, body: Vec<u8>) -> Flow {
        let mut response = Response::new(201, HttpVersion::Other("h2c".into()));
        response.reason = "Created".into();
        response.headers.push("Content-Type", "application/json");
        response.body = Body {
            wire_size: Some(9),
            truncated: true,
            size: 1 << 20,
            ..Body::from_decoded(Some("application/json".into()), body)
        };
        let mut request = Request::new(
            "POST",
            "https://shop.test/api/orders?x=1&y=%20",
            HttpVersion::Http2,
        );
        request.headers.push(":authority", "shop.test");
        request.body = Body::from_decoded(None, vec![0xff, 0x00, 0x80]);
        let mut f = Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(1_700_000_000_123_457),
            Client::Explorer,
            request,
        )
        .with_response(response);
        f.ended = Some(Timestamp::from_unix_micros(1_700_000_000_200_001));
        f.timings.wait = Some(0.1 + 0.2);
        f.server_addr = Some("[::1]:8443".into());
        f
    }

    #[test]
    fn round_trips_and_spills_big_bodies_once() {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new()).with_spill_threshold(16);
        let flows = [
            flow(1, b"{\"id\":1}".to_vec()),
            flow(2, vec![b'a'; 100]),
            flow(3, vec![b'a'; 100]).with_error(ErrorKind::Reset, "reset mid-body"),
        ];
        for f in &flows {
            writer.append(f, &mut bodies).unwrap();
        }
        assert_eq!(bodies.len(), 1, "identical big bodies are stored once");
        let out = writer.into_inner();
        let contents = read_archive(&out[..], &bodies).unwrap();
        assert!(contents.warnings.is_empty(), "{:?}", contents.warnings);
        assert_eq!(contents.flows, flows);
        let first: serde_json::Value =
            serde_json::from_slice(out.split(|b| *b == b'\n').next().unwrap()).unwrap();
        assert_eq!(first["request"]["postData"]["encoding"], "base64");
        assert_eq!(first["_ar"]["client"], "explorer");
    }

    #[test]
    fn a_huge_inlined_body_does_not_pin_its_buffer() {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new()).with_spill_threshold(usize::MAX);
        writer
            .append(&flow(1, vec![0xfe; 2 << 20]), &mut bodies)
            .unwrap();
        assert!(bodies.is_empty(), "inlined, not spilled");
        assert!(writer.line.capacity() <= KEEP_BUFFER_BYTES);
        writer
            .append(&flow(2, b"{}".to_vec()), &mut bodies)
            .unwrap();
        let small = writer.line.capacity();
        writer
            .append(&flow(3, b"{}".to_vec()), &mut bodies)
            .unwrap();
        assert_eq!(
            writer.line.capacity(),
            small,
            "small lines reuse the buffer"
        );
        let contents = read_archive(&writer.into_inner()[..], &bodies).unwrap();
        assert_eq!(contents.flows.len(), 3);
        assert_eq!(
            contents.flows[0]
                .response
                .as_ref()
                .unwrap()
                .body
                .bytes
                .len(),
            2 << 20
        );
    }

    #[test]
    fn torn_and_bad_lines_are_warnings() {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new()).with_spill_threshold(16);
        writer
            .append(&flow(1, b"{}".to_vec()), &mut bodies)
            .unwrap();
        writer
            .append(&flow(2, vec![b'z'; 64]), &mut bodies)
            .unwrap();
        writer
            .append(&flow(3, b"{}".to_vec()), &mut bodies)
            .unwrap();
        let mut out = writer.into_inner();
        let full = out.clone();
        out.truncate(out.len() - 40);
        let contents = read_archive(&out[..], &bodies).unwrap();
        assert_eq!(contents.flows.len(), 2);
        assert!(matches!(
            contents.warnings[..],
            [ArchiveWarning::TornLastLine { line: 3, .. }]
        ));
        // A missing spilled body is a warning naming the hash, and later lines still load.
        let contents = read_archive(&full[..], &MemoryBodyStore::default()).unwrap();
        assert_eq!(
            contents.flows.iter().map(|f| f.id.0).collect::<Vec<_>>(),
            [1, 3]
        );
        let text = contents.warnings[0].to_string();
        assert!(
            text.starts_with("archive line 2: body ") && text.contains("no body"),
            "{text}"
        );
    }

    /// A store that fails the test if it is ever asked for a body.
    struct Untouchable;

    impl BodyStore for Untouchable {
        fn put(&mut self, _: &str, _: &[u8]) -> io::Result<()> {
            unreachable!("reading never writes")
        }
        fn get(&self, hash: &str) -> io::Result<Vec<u8>> {
            panic!("asked the body store for {hash:?}")
        }
    }

    #[test]
    fn a_spilled_body_named_by_anything_but_a_hash_is_never_fetched() {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new()).with_spill_threshold(4);
        writer
            .append(
                &flow(1, b"a body longer than four bytes".to_vec()),
                &mut bodies,
            )
            .unwrap();
        let line = String::from_utf8(writer.into_inner()).unwrap();
        let hash = bodies.bodies.keys().next().unwrap().clone();
        for forged in ["../../../dev/zero", "/etc/passwd", &hash.to_uppercase()] {
            let tampered = line.replace(&hash, forged);
            let contents = read_archive(tampered.as_bytes(), &Untouchable).unwrap();
            assert!(contents.flows.is_empty());
            let text = contents.warnings[0].to_string();
            assert!(text.contains("not a SHA-256"), "{text}");
        }
    }
}
