//! Streaming over a HAR file: one entry in memory at a time.
//!
//! `serde_json` drives a visitor down `log.entries`; each element is
//! deserialized alone into a `serde_json::Value` and handed to a callback,
//! so a 200 MB HAR costs one entry's worth of tree plus the read buffer.
//! Invalid UTF-8 (some tools write Latin-1 bodies verbatim) is replaced by
//! U+FFFD on the way in, and a leading byte-order mark is dropped. Body texts
//! of many MB bypass the JSON reader ([`super::long_text`]).

use std::cell::RefCell;
use std::fmt;
use std::io::{self, Read};
use std::rc::Rc;

use serde::de::{
    DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::Value;

use super::long_text::{LongTexts, Spills};
use crate::Error;

/// Facts about the file gathered while streaming.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct FileFacts {
    pub(crate) creator: Option<String>,
    pub(crate) entries: usize,
    pub(crate) saw_entries: bool,
}

type Callback<'a> = dyn FnMut(usize, Value) -> Result<(), Error> + 'a;

struct State<'a, 'b> {
    on_entry: &'a mut Callback<'b>,
    spills: Rc<RefCell<Spills>>,
    facts: FileFacts,
    abort: Option<Error>,
}

/// Streams the entries of a HAR file to `on_entry(index, entry)`. An error
/// returned by the callback stops the stream and is returned as is.
pub(crate) fn stream_entries<R: Read>(
    reader: R,
    on_entry: &mut Callback<'_>,
) -> Result<(FileFacts, u64), Error> {
    let mut lossy = LossyUtf8::new(reader);
    let spills = Rc::new(RefCell::new(Spills::default()));
    let mut state = State {
        on_entry,
        spills: Rc::clone(&spills),
        facts: FileFacts::default(),
        abort: None,
    };
    let result = {
        let mut de = serde_json::Deserializer::from_reader(io::BufReader::with_capacity(
            1 << 16,
            LongTexts::new(&mut lossy, spills),
        ));
        (&mut de).deserialize_map(FileVisitor(&mut state))
    };
    if let Some(error) = state.abort.take() {
        return Err(error);
    }
    if let Err(e) = result {
        use serde_json::error::Category;
        return Err(match e.classify() {
            Category::Io => Error::io("reading HAR", io::Error::other(e.to_string())),
            Category::Data => Error::NotHar(e.to_string()),
            Category::Syntax | Category::Eof => Error::HarSyntax {
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            },
        });
    }
    if !state.facts.saw_entries {
        return Err(Error::NotHar("no `log.entries` array".into()));
    }
    Ok((state.facts, lossy.replaced))
}

fn strip_position(message: &str) -> String {
    message
        .split(" at line ")
        .next()
        .unwrap_or(message)
        .to_string()
}

struct FileVisitor<'s, 'a, 'b>(&'s mut State<'a, 'b>);

impl<'de> Visitor<'de> for FileVisitor<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a HAR object with `log.entries`")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "log" {
                map.next_value_seed(LogSeed(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct LogSeed<'s, 'a, 'b>(&'s mut State<'a, 'b>);

impl<'de> DeserializeSeed<'de> for LogSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LogSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a `log` object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "entries" => map.next_value_seed(EntriesSeed(&mut *self.0))?,
                "creator" => {
                    let creator: Value = map.next_value()?;
                    let name = creator
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown");
                    let version = creator.get("version").and_then(Value::as_str).unwrap_or("");
                    self.0.facts.creator = Some(format!("{name} {version}").trim().to_string());
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct EntriesSeed<'s, 'a, 'b>(&'s mut State<'a, 'b>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an `entries` array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.facts.saw_entries = true;
        let mut index = 0;
        while let Some(mut entry) = seq.next_element::<Value>()? {
            let resolved = (self.0.spills.borrow_mut().resolve(&mut entry)).map_err(|problem| {
                Error::HarEntry {
                    index,
                    field: "text".into(),
                    problem,
                }
            });
            if let Err(error) = resolved.and_then(|()| (self.0.on_entry)(index, entry)) {
                self.0.abort = Some(error);
                return Err(A::Error::custom("stopped by the entry handler"));
            }
            index += 1;
            self.0.facts.entries = index;
        }
        Ok(())
    }
}

/// A reader that replaces invalid UTF-8 with U+FFFD and drops a leading BOM.
pub(crate) struct LossyUtf8<R> {
    inner: R,
    scratch: Vec<u8>,
    out: Vec<u8>,
    pos: usize,
    carry: Vec<u8>,
    eof: bool,
    started: bool,
    /// Invalid sequences replaced so far.
    pub(crate) replaced: u64,
}

impl<R: Read> LossyUtf8<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            scratch: vec![0; 1 << 16],
            out: Vec::new(),
            pos: 0,
            carry: Vec::new(),
            eof: false,
            started: false,
            replaced: 0,
        }
    }

    fn next_batch(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        let n = loop {
            match self.inner.read(&mut self.scratch) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            self.eof = true;
            if !self.carry.is_empty() {
                self.carry.clear();
                self.replaced += 1;
                self.out.extend_from_slice("\u{FFFD}".as_bytes());
            }
            return Ok(());
        }
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(&self.scratch[..n]);
        let mut rest: &[u8] = &data;
        if !self.started {
            if rest.len() < 3 && !self.eof && rest.starts_with(&[0xEF][..rest.len().min(1)]) {
                self.carry = rest.to_vec();
                return Ok(());
            }
            self.started = true;
            rest = rest.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(rest);
        }
        loop {
            match std::str::from_utf8(rest) {
                Ok(_) => {
                    self.out.extend_from_slice(rest);
                    break;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    self.out.extend_from_slice(&rest[..valid]);
                    match e.error_len() {
                        Some(len) => {
                            self.out.extend_from_slice("\u{FFFD}".as_bytes());
                            self.replaced += 1;
                            rest = &rest[valid + len..];
                        }
                        None => {
                            self.carry = rest[valid..].to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl<R: Read> Batches for LossyUtf8<R> {
    fn batch(&mut self) -> (&[u8], &mut usize, bool) {
        (&self.out, &mut self.pos, self.eof)
    }

    fn refill(&mut self) -> io::Result<()> {
        self.next_batch()
    }
}

impl<R: Read> Read for LossyUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_batches(self, buf)
    }
}

/// A reader that makes its output in batches: `batch` is the last one, the
/// position read up to in it and whether the input has ended; `refill`
/// makes the next.
pub(super) trait Batches {
    fn batch(&mut self) -> (&[u8], &mut usize, bool);
    fn refill(&mut self) -> io::Result<()>;
}

/// `Read::read` for a [`Batches`] reader.
pub(super) fn read_batches(reader: &mut impl Batches, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        let (out, pos, eof) = reader.batch();
        if *pos < out.len() {
            let n = buf.len().min(out.len() - *pos);
            buf[..n].copy_from_slice(&out[*pos..*pos + n]);
            *pos += n;
            return Ok(n);
        }
        if eof {
            return Ok(0);
        }
        reader.refill()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns one byte per call, to split every sequence.
    struct Dribble<'a>(&'a [u8]);
    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.split_first() {
                Some((b, rest)) if !buf.is_empty() => {
                    buf[0] = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn lossy_reader_replaces_bad_bytes_and_keeps_split_sequences() {
        let input = b"\xEF\xBB\xBFcaf\xC3\xA9 \xE9t\xE9 \xF0\x9F\x98\x80 end\xC3";
        let mut out = String::new();
        let mut reader = LossyUtf8::new(Dribble(input));
        reader.read_to_string(&mut out).unwrap();
        assert_eq!(out, "café \u{FFFD}t\u{FFFD} 😀 end\u{FFFD}");
        assert_eq!(reader.replaced, 3);
    }

    #[test]
    fn streams_entries_one_by_one() {
        let har = br#"{"x":[1,{"a":2}],"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[{"n":1},{"n":2}],"pages":[]}}"#;
        let mut seen = Vec::new();
        let (facts, _) = stream_entries(&har[..], &mut |i, v| {
            seen.push((i, v["n"].as_i64().unwrap()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(0, 1), (1, 2)]);
        assert_eq!(facts.creator.as_deref(), Some("WebInspector 537.36"));
    }

    #[test]
    fn reports_syntax_errors_with_position_and_non_har() {
        let err = stream_entries(
            &b"{\"log\":{\"entries\":[{\"n\":1},\n{\"n\":]}}"[..],
            &mut |_, _| Ok(()),
        )
        .unwrap_err();
        assert!(matches!(err, Error::HarSyntax { line: 2, .. }), "{err}");
        let err = stream_entries(&b"[1,2]"[..], &mut |_, _| Ok(())).unwrap_err();
        assert!(matches!(err, Error::NotHar(_)), "{err}");
        let err = stream_entries(&b"{\"log\":{}}"[..], &mut |_, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("log.entries"), "{err}");
    }
}
