//! An incremental Server-Sent Events parser (the subset LLM APIs use).
//!
//! Bytes arrive in arbitrary chunks: an event, a line, even a UTF-8 character
//! may be split across network reads, so the parser buffers until a blank line
//! ends an event. `event:` and `data:` fields are kept (multi-line data joined
//! with `\n`); comments (`:`), `id:` and `retry:` are ignored. Both `\n` and
//! `\r\n` line ends are accepted.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, empty when absent.
    pub(crate) event: String,
    /// The `data:` lines joined with `\n`.
    pub(crate) data: String,
}

/// Largest buffered, unterminated event; a server that never ends an event
/// cannot make us grow without bound.
const MAX_PENDING: usize = 8 * 1024 * 1024;

/// Feeds bytes in, takes events out.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    /// Bytes of `buf` already known to hold no newline.
    scanned: usize,
    event: String,
    data: Option<String>,
}

/// The parser's buffer grew past its cap without an event ending.
#[derive(Debug)]
pub(crate) struct SseOverflow;

impl SseParser {
    /// Adds `chunk` and appends every event it completed to `out`.
    pub(crate) fn feed(
        &mut self,
        chunk: &[u8],
        out: &mut Vec<SseEvent>,
    ) -> Result<(), SseOverflow> {
        self.buf.extend_from_slice(chunk);
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(pos) = self.buf[from..].iter().position(|&b| b == b'\n') {
            let pos = from + pos - start;
            let mut line = &self.buf[start..start + pos];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            start += pos + 1;
            from = start;
            self.line(&line, out);
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        if self.buf.len() > MAX_PENDING {
            return Err(SseOverflow);
        }
        Ok(())
    }

    /// True when bytes of an unfinished event are buffered.
    pub(crate) fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.data.is_some()
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data,
                });
            }
            self.event.clear();
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_chunks(input: &[u8], size: usize) -> Vec<SseEvent> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for chunk in input.chunks(size) {
            p.feed(chunk, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn events_survive_any_chunking() {
        let input = "event: message_start\ndata: {\"a\":\"é\"}\n\n: ping comment\r\n\r\nevent: x\r\ndata: 1\r\ndata: 2\r\n\r\ndata: [DONE]\n\n";
        let expected = vec![
            SseEvent {
                event: "message_start".into(),
                data: "{\"a\":\"é\"}".into(),
            },
            SseEvent {
                event: "x".into(),
                data: "1\n2".into(),
            },
            SseEvent {
                event: String::new(),
                data: "[DONE]".into(),
            },
        ];
        for size in 1..input.len() {
            assert_eq!(
                parse_in_chunks(input.as_bytes(), size),
                expected,
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn unfinished_event_is_reported_as_partial() {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        p.feed(b"event: a\ndata: {\"x\"", &mut out).unwrap();
        assert!(out.is_empty());
        assert!(p.has_partial());
    }

    #[test]
    fn endless_line_is_capped() {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        let big = vec![b'x'; MAX_PENDING + 1];
        assert!(p.feed(&big, &mut out).is_err());
    }
}
