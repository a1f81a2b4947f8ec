//! Body texts of many MB kept out of the JSON reader (issue #31).
//!
//! `serde_json` reads every string of a stream into its scratch buffer and
//! then copies it into the `Value`, and the scratch keeps its size until the
//! file ends: a HAR with a 256 MiB body held its 341 MiB base64 text twice.
//! [`LongTexts`] sits before the reader and watches the JSON for the value of
//! a `"text"` key (where HAR puts bodies). When one grows past
//! [`SPILL_BYTES`], it goes into a [`Spills`] slot and the reader sees a
//! short placeholder instead; [`Spills::resolve`] puts the text back into the
//! entry (its escapes decoded in place) before the entry is read, and the body
//! is then decoded inside the text's buffer.
//!
//! The buffer is sized once from the `size` the same object declared before
//! `text` (browsers write it first): growing it by doubling would leave the
//! smaller buffers behind, which an allocator such as mimalloc does not give
//! back to the system at once. Without a size it grows as usual.

use std::cell::RefCell;
use std::io::{self, Read};
use std::rc::Rc;

use serde_json::Value;

use super::stream::{Batches, read_batches};

/// A `"text"` value longer than this is kept out of the JSON reader.
pub(crate) const SPILL_BYTES: usize = 1 << 20;

/// The largest `size` taken as a hint for a text's buffer: a declared size is
/// only reserved (address space, not memory), but a hostile one is not
/// reserved beyond this.
const MAX_HINT_BYTES: u64 = 16 << 30;

/// What the reader sees for spilled text number N: `\u0000ar-spill:N`.
const PLACEHOLDER: &str = "\u{0}ar-spill:";

/// Texts taken out of the stream, by slot, until their entry is read.
#[derive(Debug, Default)]
pub(crate) struct Spills {
    slots: Vec<Vec<u8>>,
}

impl Spills {
    /// Puts spilled texts back into `entry` (`request.postData.text`,
    /// `response.content.text`), then forgets every slot: a text spilled
    /// anywhere else is not read.
    pub(crate) fn resolve(&mut self, entry: &mut Value) -> Result<(), String> {
        for (side, part) in [("request", "postData"), ("response", "content")] {
            let Some(Value::String(text)) = entry
                .get_mut(side)
                .and_then(|v| v.get_mut(part))
                .and_then(|v| v.get_mut("text"))
            else {
                continue;
            };
            let Some(slot) = (text.strip_prefix(PLACEHOLDER))
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| self.slots.get_mut(n))
            else {
                continue;
            };
            *text = text_of(std::mem::take(slot))?;
        }
        self.slots.clear();
        Ok(())
    }
}

/// The string a JSON string's inside stands for, escapes decoded in place.
fn text_of(mut bytes: Vec<u8>) -> Result<String, String> {
    unescape_in_place(&mut bytes)?;
    String::from_utf8(bytes).map_err(|e| format!("invalid UTF-8 in a long text: {e}"))
}

/// Decodes JSON string escapes in `bytes` in place (an escape is never
/// shorter than what it stands for).
fn unescape_in_place(bytes: &mut Vec<u8>) -> Result<(), String> {
    let Some(first) = bytes.iter().position(|b| *b == b'\\' || *b < 0x20) else {
        return Ok(());
    };
    let (mut read, mut write) = (first, first);
    while read < bytes.len() {
        let b = bytes[read];
        if b < 0x20 {
            return Err(format!("control character {b:#04x} in a long text"));
        }
        if b != b'\\' {
            bytes[write] = b;
            (read, write) = (read + 1, write + 1);
            continue;
        }
        let escape = *bytes.get(read + 1).ok_or("a long text ends in `\\`")?;
        let (c, used) = match escape {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => unicode_escape(&bytes[read..])?,
            other => return Err(format!("invalid escape `\\{}`", other as char)),
        };
        write += c.encode_utf8(&mut bytes[write..write + c.len_utf8()]).len();
        read += used;
    }
    bytes.truncate(write);
    Ok(())
}

/// The character of `\uXXXX` (or a `\uD8XX\uDCXX` pair) at the start of
/// `at`, and how many bytes it took.
fn unicode_escape(at: &[u8]) -> Result<(char, usize), String> {
    let unit = |at: &[u8]| -> Option<u32> {
        let hex = std::str::from_utf8(at.get(2..6)?).ok()?;
        (at.starts_with(b"\\u")).then(|| u32::from_str_radix(hex, 16).ok())?
    };
    let high = unit(at).ok_or("invalid `\\u` escape in a long text")?;
    if !(0xD800..0xDC00).contains(&high) {
        return char::from_u32(high)
            .map(|c| (c, 6))
            .ok_or_else(|| "lone low surrogate in a long text".to_string());
    }
    let low = (at.get(6..))
        .and_then(unit)
        .filter(|low| (0xDC00..0xE000).contains(low))
        .ok_or("lone high surrogate in a long text")?;
    let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        .ok_or("invalid surrogate pair in a long text")?;
    Ok((c, 12))
}

/// Where the scanner is in the JSON text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Between tokens.
    Outside,
    /// Inside a string; `text_value` when it is the value of a `"text"` key.
    String { text_value: bool, escaped: bool },
}

/// A reader that passes JSON through, except the inside of a `"text"`
/// value past [`SPILL_BYTES`], which goes to [`Spills`].
pub(crate) struct LongTexts<R> {
    inner: R,
    spills: Rc<RefCell<Spills>>,
    chunk: Vec<u8>,
    out: Vec<u8>,
    pos: usize,
    at: At,
    /// The inside of the current `"text"` value, until it ends or spills.
    held: Vec<u8>,
    /// Whether the current `"text"` value is long enough to spill.
    spilling: bool,
    /// The `size` declared in the current object, if any.
    size_hint: Option<u64>,
    /// Digits of a `size` value being read.
    size_digits: Option<u64>,
    /// The last string was `"size"` (a key, if a `:` follows).
    after_size: bool,
    /// The first bytes of the current string, to tell a `"text"` key.
    probe: Vec<u8>,
    /// The last string was `"text"` (a key, if a `:` follows).
    after_text: bool,
    /// A `"text"` key and its `:` were read: the next string is its value.
    text_value_next: bool,
    eof: bool,
}

impl<R: Read> LongTexts<R> {
    pub(crate) fn new(inner: R, spills: Rc<RefCell<Spills>>) -> Self {
        Self {
            inner,
            spills,
            chunk: vec![0; 1 << 16],
            out: Vec::new(),
            pos: 0,
            at: At::Outside,
            held: Vec::new(),
            spilling: false,
            size_hint: None,
            size_digits: None,
            after_size: false,
            probe: Vec::with_capacity(5),
            after_text: false,
            text_value_next: false,
            eof: false,
        }
    }

    fn next_batch(&mut self) -> io::Result<()> {
        self.out.clear();
        self.pos = 0;
        let n = loop {
            match self.inner.read(&mut self.chunk) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        if n == 0 {
            self.eof = true;
            // A torn file: what was held goes on, and the reader says where.
            self.out.append(&mut self.held);
            return Ok(());
        }
        for i in 0..n {
            let b = self.chunk[i];
            self.scan(b);
        }
        Ok(())
    }

    fn scan(&mut self, b: u8) {
        match self.at {
            At::Outside => {
                if let Some(n) = self.size_digits {
                    match b {
                        b'0'..=b'9' => {
                            self.size_digits = Some(n.saturating_mul(10) + u64::from(b - b'0'));
                        }
                        _ => {
                            self.size_hint = Some(n);
                            self.size_digits = None;
                        }
                    }
                }
                match b {
                    b'{' | b'}' => self.size_hint = None,
                    b'0'..=b'9' if std::mem::take(&mut self.after_size) => {
                        self.size_digits = Some(u64::from(b - b'0'));
                    }
                    b'"' => {
                        self.at = At::String {
                            text_value: self.text_value_next,
                            escaped: false,
                        };
                        self.probe.clear();
                        self.text_value_next = false;
                        self.after_text = false;
                    }
                    b':' => self.text_value_next = std::mem::take(&mut self.after_text),
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    _ => {
                        self.after_text = false;
                        self.text_value_next = false;
                        self.after_size = false;
                    }
                }
                self.out.push(b);
            }
            At::String {
                text_value,
                escaped,
            } => {
                let ends = b == b'"' && !escaped;
                if !ends {
                    self.at = At::String {
                        text_value,
                        escaped: !escaped && b == b'\\',
                    };
                    if self.probe.len() < 5 {
                        self.probe.push(b);
                    }
                }
                match (text_value, ends) {
                    (false, false) => self.out.push(b),
                    (false, true) => {
                        self.after_text = self.probe == b"text";
                        // `after_size` holds through the `:` (set when it is read).
                        self.after_size = self.probe == b"size";
                        self.at = At::Outside;
                        self.out.push(b);
                    }
                    (true, false) => self.hold(b),
                    (true, true) => {
                        if std::mem::take(&mut self.spilling) {
                            let mut spills = self.spills.borrow_mut();
                            let slot = spills.slots.len();
                            spills.slots.push(std::mem::take(&mut self.held));
                            drop(spills);
                            self.out.extend_from_slice(br"\u0000ar-spill:");
                            self.out.extend_from_slice(slot.to_string().as_bytes());
                        } else {
                            self.out.append(&mut self.held);
                        }
                        self.at = At::Outside;
                        self.out.push(b);
                    }
                }
            }
        }
    }

    /// Keeps a byte of a `"text"` value; past [`SPILL_BYTES`] the value
    /// spills, in a buffer sized for the declared `size` (as base64, the
    /// larger of its two forms) when there is one.
    fn hold(&mut self, b: u8) {
        self.held.push(b);
        if self.spilling || self.held.len() < SPILL_BYTES {
            return;
        }
        self.spilling = true;
        if let Some(size) = self.size_hint.filter(|s| *s <= MAX_HINT_BYTES) {
            let text = usize::try_from(size.div_ceil(3) * 4 + 64).unwrap_or(usize::MAX);
            let _ = self
                .held
                .try_reserve_exact(text.saturating_sub(self.held.len()));
        }
    }
}

impl<R: Read> Batches for LongTexts<R> {
    fn batch(&mut self) -> (&[u8], &mut usize, bool) {
        (&self.out, &mut self.pos, self.eof)
    }

    fn refill(&mut self) -> io::Result<()> {
        self.next_batch()
    }
}

impl<R: Read> Read for LongTexts<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_batches(self, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(json: &str) -> (Value, Rc<RefCell<Spills>>) {
        let spills = Rc::new(RefCell::new(Spills::default()));
        let reader = LongTexts::new(json.as_bytes(), Rc::clone(&spills));
        (serde_json::from_reader(reader).unwrap(), spills)
    }

    #[test]
    fn long_texts_spill_and_come_back_whole_with_escapes_decoded() {
        let long = "ab\\n\\u00e9\\ud83d\\ude00\\\"".repeat(SPILL_BYTES / 8);
        let expected = "ab\né😀\"".repeat(SPILL_BYTES / 8);
        let json = format!(
            r#"{{"response":{{"content":{{"size":1,"text":"{long}","mimeType":"text/plain"}}}},
                "request":{{"postData":{{"text" : "short \"text\""}}}},"text":"{long}"}}"#
        );
        let (mut entry, spills) = through(&json);
        assert!(
            entry["response"]["content"]["text"]
                .as_str()
                .unwrap()
                .starts_with(PLACEHOLDER)
        );
        assert_eq!(spills.borrow().slots.len(), 2);
        spills.borrow_mut().resolve(&mut entry).unwrap();
        assert_eq!(entry["response"]["content"]["text"], expected.as_str());
        assert_eq!(entry["response"]["content"]["mimeType"], "text/plain");
        assert_eq!(entry["request"]["postData"]["text"], "short \"text\"");
        assert!(
            spills.borrow().slots.is_empty(),
            "slots are dropped per entry"
        );
    }

    #[test]
    fn a_key_named_text_elsewhere_and_strings_holding_text_pass_through() {
        let (entry, spills) = through(r#"{"a":"text","b":["text",":"],"text":{"text":1}}"#);
        assert_eq!(entry["b"][0], "text");
        assert_eq!(entry["text"]["text"], 1);
        assert!(spills.borrow().slots.is_empty());
    }

    #[test]
    fn bad_escapes_in_a_spilled_text_are_errors() {
        for bad in [r"\x", r"\ud800", r"\u12", "\u{1}"] {
            let mut bytes = format!("ok{bad}").into_bytes();
            assert!(unescape_in_place(&mut bytes).is_err(), "{bad}");
        }
    }
}
