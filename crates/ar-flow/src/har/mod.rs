//! HAR 1.2 import and export.
//!
//! Import streams: entries are parsed one at a time from any `Read`, so a
//! 200 MB HAR is never held as a whole tree. Files from Chrome and Firefox
//! DevTools, mitmproxy, Charles and Proxyman import (see the quirks listed
//! in the tests and fixtures). A malformed entry yields an error naming the
//! entry index and field (`entry 17: request.url: missing`); the caller
//! chooses [`ImportMode::Strict`] (stop there) or [`ImportMode::Lenient`]
//! (skip it, keep the good entries, collect the errors).
//!
//! Lenient mode also reads what HAR 1.2 requires and other exporters leave
//! out (load-test tools, Fiddler, hand-written files): an entry without
//! `startedDateTime` takes the previous entry's time, one without a response
//! keeps its request side. Every repair and skip is counted by its
//! [`EntryIssue`], so a summary can say what the spec stands on.
//!
//! ```
//! use ar_flow::har::{import_har, ImportOptions};
//!
//! let har = br#"{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[
//!   {"startedDateTime":"2024-05-01T10:00:00.000Z","time":5,
//!    "request":{"method":"GET","url":"https://shop.test/api/cart","httpVersion":"HTTP/1.1","headers":[]},
//!    "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],
//!                "content":{"size":2,"mimeType":"application/json","text":"[]"}},
//!    "timings":{"send":0,"wait":5,"receive":0}},
//!   {"startedDateTime":"2024-05-01T10:00:01.000Z","request":{"method":"GET"},"response":{"status":200}}
//! ]}}"#;
//! let imported = import_har(&har[..], &ImportOptions::lenient()).unwrap();
//! assert_eq!(imported.flows.len(), 1);
//! assert_eq!(imported.skipped[0].to_string(), "entry 1: request.url: missing");
//! assert!(import_har(&har[..], &ImportOptions::strict()).is_err());
//!
//! // A load-test export: no time, no response.
//! let har = br#"{"log":{"entries":[{"request":{"method":"POST","url":"https://shop.test/login"}}]}}"#;
//! let imported = import_har(&har[..], &ImportOptions::lenient()).unwrap();
//! assert!(imported.flows[0].response.is_none());
//! let issues: Vec<String> = imported.issues.keys().map(ToString::to_string).collect();
//! assert_eq!(issues, [
//!     "without startedDateTime: time of the previous entry used",
//!     "without a response: request side documented",
//! ]);
//! assert_eq!(
//!     import_har(&har[..], &ImportOptions::strict()).unwrap_err().to_string(),
//!     "entry 0: startedDateTime: missing",
//! );
//! ```

mod base64_body;
mod export;
mod import;
mod long_text;
mod stream;
mod time;

use std::collections::BTreeMap;
use std::fmt;
use std::io::{Read, Write};

use crate::{Error, Flow, FlowId, Timestamp};

use export::keep_exact;
pub(crate) use export::{entry_value, server_ip};
pub(crate) use import::{Ctx, Flavor, entry_to_flow};
use import::{Leniency, read_entry};
pub(crate) use time::write_iso8601;

/// The `timings` member (a HAR custom field) naming the required phases
/// (`send`, `wait`, `receive`) that ar exported as 0 because it never timed
/// them; the importer reads those as unknown again.
const UNTIMED: &str = "_ar_untimed";

/// What to do with a malformed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImportMode {
    /// Fail on the first malformed entry.
    Strict,
    /// Repair what other exporters leave out (a start time, a response),
    /// skip entries that cannot be read, keep the rest, and report both.
    #[default]
    Lenient,
}

/// Options for [`import_har`] and [`stream_har`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Strict or lenient.
    pub mode: ImportMode,
    /// The id of the first imported flow; later flows count up from it
    /// (pass the next free id when importing several files into one session).
    pub first_id: u64,
    /// Errors kept in [`HarSummary::skipped`]; more are only counted.
    pub max_errors: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            mode: ImportMode::Lenient,
            first_id: 1,
            max_errors: 1000,
        }
    }
}

impl ImportOptions {
    /// Fail on the first malformed entry.
    pub fn strict() -> Self {
        Self {
            mode: ImportMode::Strict,
            ..Self::default()
        }
    }
    /// Repair what other exporters leave out, skip malformed entries and collect their errors.
    pub fn lenient() -> Self {
        Self::default()
    }
    /// Number flows from `first_id`.
    pub fn with_first_id(mut self, first_id: u64) -> Self {
        self.first_id = first_id;
        self
    }
}

/// Why an entry was not taken as written: what was repaired, or why it was skipped.
///
/// Displayed to follow a count of entries: "3 entries without a response:
/// request side documented".
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum EntryIssue {
    /// No `startedDateTime` (lenient mode): the previous entry's time, or the
    /// epoch for the first, stands in, so the flows keep the file's order.
    NoStartTime,
    /// No response (none, `null`, status 0, or in lenient mode no status):
    /// the flow holds the request side only.
    NoResponse,
    /// Skipped (lenient mode): this field could not be read. A dotted path
    /// without array indices (`request.headers[].name`), so that one bad
    /// field counts once however many entries share it.
    Malformed(String),
}

impl EntryIssue {
    /// The issue of an entry skipped for `error` (an [`Error::HarEntry`]).
    fn skipped(error: &Error) -> Self {
        let field = match error {
            Error::HarEntry { field, .. } => field.as_str(),
            _ => "entry",
        };
        let mut path = String::with_capacity(field.len());
        let mut in_index = false;
        for c in field.chars() {
            match c {
                '[' => in_index = true,
                ']' => {
                    in_index = false;
                    path.push_str("[]");
                }
                _ if in_index => {}
                _ => path.push(c),
            }
        }
        Self::Malformed(path)
    }
}

impl fmt::Display for EntryIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoStartTime => {
                f.write_str("without startedDateTime: time of the previous entry used")
            }
            Self::NoResponse => f.write_str("without a response: request side documented"),
            Self::Malformed(field) if field == "entry" => {
                f.write_str("that is not a JSON object: skipped")
            }
            Self::Malformed(field) => write!(f, "with a malformed {field}: skipped"),
        }
    }
}

/// What a streamed import saw.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct HarSummary {
    /// `log.creator` as `name version`, when present.
    pub creator: Option<String>,
    /// Entries in the file.
    pub entries: usize,
    /// Entries turned into flows.
    pub imported: usize,
    /// Errors of skipped entries (lenient mode), at most `max_errors`.
    pub skipped: Vec<Error>,
    /// Entries skipped in all (may exceed `skipped.len()`).
    pub skipped_count: usize,
    /// Entries repaired or skipped, counted by why (every skipped entry is
    /// counted here, its error kept in `skipped` only up to `max_errors`).
    pub issues: BTreeMap<EntryIssue, usize>,
    /// Invalid UTF-8 sequences replaced by U+FFFD.
    pub replaced_invalid_utf8: u64,
}

/// An imported HAR held in memory.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct HarImport {
    /// The flows, in file order.
    pub flows: Vec<Flow>,
    /// Errors of skipped entries (lenient mode).
    pub skipped: Vec<Error>,
    /// Entries repaired or skipped, counted by why.
    pub issues: BTreeMap<EntryIssue, usize>,
    /// `log.creator` as `name version`, when present.
    pub creator: Option<String>,
    /// Invalid UTF-8 sequences replaced by U+FFFD.
    pub replaced_invalid_utf8: u64,
}

/// Streams flows from a HAR to `on_flow`, one entry in memory at a time.
///
/// Fails on I/O errors, invalid JSON (with line and column), a document that
/// is not a HAR, and in strict mode on the first malformed entry.
pub fn stream_har<R: Read>(
    reader: R,
    options: &ImportOptions,
    mut on_flow: impl FnMut(Flow),
) -> Result<HarSummary, Error> {
    let mut summary = HarSummary::default();
    let mut next_id = options.first_id;
    let mut previous_start = Timestamp::from_unix_micros(0);
    let (facts, replaced) = stream::stream_entries(reader, &mut |index, mut entry| {
        let leniency = match options.mode {
            ImportMode::Strict => Leniency::Strict,
            ImportMode::Lenient => Leniency::Lenient { previous_start },
        };
        match read_entry(&Ctx { index }, &mut entry, Flavor::Foreign, leniency) {
            Ok((mut flow, issues)) => {
                previous_start = flow.started;
                flow.id = FlowId(next_id);
                next_id += 1;
                summary.imported += 1;
                for issue in issues {
                    *summary.issues.entry(issue).or_default() += 1;
                }
                on_flow(flow);
            }
            Err(error) if options.mode == ImportMode::Strict => return Err(error),
            Err(error) => {
                summary.skipped_count += 1;
                *summary
                    .issues
                    .entry(EntryIssue::skipped(&error))
                    .or_default() += 1;
                if summary.skipped.len() < options.max_errors {
                    summary.skipped.push(error);
                }
            }
        }
        Ok(())
    })?;
    summary.creator = facts.creator;
    summary.entries = facts.entries;
    summary.replaced_invalid_utf8 = replaced;
    Ok(summary)
}

/// Imports a whole HAR into memory (flows only; the file's tree is never built).
pub fn import_har<R: Read>(reader: R, options: &ImportOptions) -> Result<HarImport, Error> {
    let mut flows = Vec::new();
    let summary = stream_har(reader, options, |flow| flows.push(flow))?;
    Ok(HarImport {
        flows,
        skipped: summary.skipped,
        issues: summary.issues,
        creator: summary.creator,
        replaced_invalid_utf8: summary.replaced_invalid_utf8,
    })
}

/// Who wrote a HAR (`log.creator`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarCreator {
    /// Tool name.
    pub name: String,
    /// Tool version.
    pub version: String,
}

impl Default for HarCreator {
    fn default() -> Self {
        Self {
            name: "ar".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// Writes a HAR 1.2 file entry by entry, so a long capture is never held twice.
///
/// ```
/// use ar_flow::har::{HarCreator, HarWriter, import_har, ImportOptions};
/// use ar_flow::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
///
/// let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(1_700_000_000_000_000), Client::Agent,
///     Request::new("GET", "https://shop.test/api/cart?x=1", HttpVersion::Http2))
///     .with_response(Response::new(204, HttpVersion::Http2));
/// let mut writer = HarWriter::new(Vec::new(), &HarCreator::default()).unwrap();
/// writer.write(&flow).unwrap();
/// let bytes = writer.finish().unwrap();
/// let back = import_har(&bytes[..], &ImportOptions::strict()).unwrap();
/// assert_eq!(back.flows[0].request.url, flow.request.url);
/// assert_eq!(back.flows[0].status(), Some(204));
/// ```
pub struct HarWriter<W: Write> {
    out: W,
    entries: usize,
}

impl<W: Write> HarWriter<W> {
    /// Writes the HAR header.
    pub fn new(mut out: W, creator: &HarCreator) -> Result<Self, Error> {
        let creator = serde_json::json!({"name": creator.name, "version": creator.version});
        write!(
            out,
            "{{\"log\":{{\"version\":\"1.2\",\"creator\":{creator},\"pages\":[],\"entries\":["
        )
        .map_err(|e| Error::io("writing HAR", e))?;
        Ok(Self { out, entries: 0 })
    }

    /// Writes one entry (bodies inline).
    pub fn write(&mut self, flow: &Flow) -> Result<(), Error> {
        let mut entry = entry_value(flow, &mut |_, _| Ok(true), true)?;
        keep_exact(&mut entry, flow);
        if self.entries > 0 {
            self.out
                .write_all(b",\n")
                .map_err(|e| Error::io("writing HAR", e))?;
        } else {
            self.out
                .write_all(b"\n")
                .map_err(|e| Error::io("writing HAR", e))?;
        }
        serde_json::to_writer(&mut self.out, &entry)
            .map_err(|e| Error::io("writing HAR", std::io::Error::other(e)))?;
        self.entries += 1;
        Ok(())
    }

    /// Closes the document, flushes, and returns the writer.
    pub fn finish(mut self) -> Result<W, Error> {
        self.out
            .write_all(b"\n]}}\n")
            .and_then(|()| self.out.flush())
            .map_err(|e| Error::io("writing HAR", e))?;
        Ok(self.out)
    }
}

/// Writes `flows` as one HAR document to `out`.
pub fn export_har<'a, W: Write>(
    out: W,
    flows: impl IntoIterator<Item = &'a Flow>,
    creator: &HarCreator,
) -> Result<W, Error> {
    let mut writer = HarWriter::new(out, creator)?;
    for flow in flows {
        writer.write(flow)?;
    }
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenient(entries: &str) -> HarImport {
        let har = format!(r#"{{"log":{{"entries":[{entries}]}}}}"#);
        import_har(har.as_bytes(), &ImportOptions::lenient()).unwrap()
    }

    fn counts(import: &HarImport) -> Vec<(String, usize)> {
        let issues = import.issues.iter();
        issues.map(|(issue, n)| (issue.to_string(), *n)).collect()
    }

    #[test]
    fn undated_entries_take_the_previous_entrys_time_or_the_epoch() {
        let get =
            r#"{"request":{"method":"GET","url":"https://x.test/a"},"response":{"status":200}}"#;
        let dated = r#"{"startedDateTime":"2024-01-01T00:00:00Z","request":{"method":"GET","url":"https://x.test/b"},"response":{"status":200}}"#;
        let import = lenient(&[get, dated, get, get].join(","));
        let starts: Vec<i64> = import
            .flows
            .iter()
            .map(|f| f.started.unix_micros())
            .collect();
        let new_year = 1_704_067_200_000_000;
        assert_eq!(starts, [0, new_year, new_year, new_year]);
        assert_eq!(
            counts(&import),
            [(
                "without startedDateTime: time of the previous entry used".into(),
                3
            )]
        );
    }

    #[test]
    fn skipped_and_repaired_entries_are_counted_by_why() {
        let import = lenient(concat!(
            r#"{"request":{"method":"POST","url":"https://x.test/a"}},"#,
            r#"{"request":{"method":"GET","url":"https://x.test/b"},"response":{"status":0}},"#,
            r#"{"request":{"method":"GET","url":"relative"}},"#,
            r#"{"request":{"method":"GET","url":"https://x.test/c","headers":[{"value":"1"}]}},"#,
            r#"{"request":{"method":"GET","url":"https://x.test/d","headers":[{},{}]}},"#,
            r#"{"response":{"status":200}},"#,
            r#"null"#,
        ));
        assert_eq!(import.flows.len(), 2);
        assert_eq!(import.skipped.len(), 5);
        assert_eq!(
            import.skipped[1].to_string(),
            "entry 3: request.headers[0].name: missing"
        );
        assert_eq!(
            counts(&import),
            [
                (
                    "without startedDateTime: time of the previous entry used".into(),
                    2
                ),
                ("without a response: request side documented".into(), 2),
                ("that is not a JSON object: skipped".into(), 1),
                ("with a malformed request: skipped".into(), 1),
                ("with a malformed request.headers[].name: skipped".into(), 2),
                ("with a malformed request.url: skipped".into(), 1),
            ]
        );
    }

    #[test]
    fn strict_counts_request_only_flows_and_refuses_repairs() {
        let failed = r#"{"startedDateTime":"2024-01-01T00:00:00Z","request":{"method":"GET","url":"https://x.test/"},"response":{"status":0,"_error":"net::ERR_FAILED"}}"#;
        let har = format!(r#"{{"log":{{"entries":[{failed}]}}}}"#);
        let summary = stream_har(har.as_bytes(), &ImportOptions::strict(), |_| {}).unwrap();
        assert_eq!(summary.issues.get(&EntryIssue::NoResponse), Some(&1));
        let undated =
            r#"{"log":{"entries":[{"request":{"method":"GET","url":"https://x.test/"}}]}}"#;
        let error = stream_har(undated.as_bytes(), &ImportOptions::strict(), |_| {}).unwrap_err();
        assert_eq!(error.to_string(), "entry 0: startedDateTime: missing");
    }
}
