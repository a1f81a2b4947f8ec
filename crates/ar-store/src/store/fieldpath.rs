//! The key path of a scalar in a body (`$.orders[].id`), told lazily.
//!
//! A body scan reports every scalar with its path, but the provenance
//! index reads the path only for the rare value it keeps (one the index
//! does not know yet). The tape walk therefore keeps the path as steps
//! (byte ranges of keys in the body) and a path is written out only when
//! read; the serde walk, which builds the text anyway, hands it over as is.

use std::fmt;

/// One step down a body: a field (by the range of its key) or into an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// `.key`, the key being `body[start..end]` (it has no escapes).
    Key(usize, usize),
    /// `.key`, the key being `unescaped[start..end]` (it had escapes; the tape's decoded text).
    Unescaped(usize, usize),
    /// `[]`: the items of an array.
    Items,
}

/// Where a scalar sits in its body.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldPath<'p> {
    /// The path as text (the serde walk builds it as it goes).
    Text(&'p str),
    /// The steps below `$`, with the texts their ranges point into.
    Steps {
        /// The body.
        body: &'p str,
        /// Keys that had escapes, decoded one after another.
        unescaped: &'p str,
        /// The steps from the root down to the scalar.
        steps: &'p [Step],
        /// FNV-1a of the path's text, as the shape walk hashed it; 0 below the shape depth.
        hash: u64,
    },
}

impl FieldPath<'_> {
    /// A hash of the path, when the scan had one (0 otherwise): it tells
    /// fields apart cheaply, equal paths giving equal hashes.
    pub(crate) fn hash(&self) -> u64 {
        match *self {
            FieldPath::Text(_) => 0,
            FieldPath::Steps { hash, .. } => hash,
        }
    }

    /// Appends the path (`$.orders[].id`) to `out`.
    pub(crate) fn write_to(&self, out: &mut String) {
        match *self {
            FieldPath::Text(text) => out.push_str(text),
            FieldPath::Steps {
                body,
                unescaped,
                steps,
                ..
            } => {
                out.push('$');
                for step in steps {
                    let key = match *step {
                        Step::Key(start, end) => &body[start..end],
                        Step::Unescaped(start, end) => &unescaped[start..end],
                        Step::Items => {
                            out.push_str("[]");
                            continue;
                        }
                    };
                    out.push('.');
                    out.push_str(key);
                }
            }
        }
    }

    /// Whether the path is `text` (as [`FieldPath::write_to`] writes it), without writing it.
    pub(crate) fn is(&self, text: &str) -> bool {
        let FieldPath::Steps {
            body,
            unescaped,
            steps,
            ..
        } = *self
        else {
            return matches!(*self, FieldPath::Text(t) if t == text);
        };
        // Bytes, not `str::strip_prefix`: keys are a few bytes, compared in place.
        let Some(mut rest) = text.as_bytes().strip_prefix(b"$") else {
            return false;
        };
        for step in steps {
            let key = match *step {
                Step::Key(start, end) => &body.as_bytes()[start..end],
                Step::Unescaped(start, end) => &unescaped.as_bytes()[start..end],
                Step::Items => match rest {
                    [b'[', b']', r @ ..] => {
                        rest = r;
                        continue;
                    }
                    _ => return false,
                },
            };
            match rest {
                [b'.', r @ ..] if r.len() >= key.len() && r[..key.len()] == *key => {
                    rest = &r[key.len()..];
                }
                _ => return false,
            }
        }
        rest.is_empty()
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        self.write_to(&mut text);
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_write_the_same_path_as_text() {
        let body = r#"{"orders":[{"id":1}]}"#;
        let steps = [Step::Key(2, 8), Step::Items, Step::Unescaped(0, 2)];
        let path = FieldPath::Steps {
            body,
            unescaped: "id",
            steps: &steps,
            hash: 7,
        };
        assert_eq!((path.hash(), FieldPath::Text("$").hash()), (7, 0));
        assert_eq!(path.to_string(), "$.orders[].id");
        assert_eq!(FieldPath::Text("$.a").to_string(), "$.a");
        for (text, is) in [
            ("$.orders[].id", true),
            ("$.orders[].i", false),
            ("$.orders[].idx", false),
            ("$.orders.id", false),
            ("$.orders[]", false),
            ("orders[].id", false),
            ("", false),
        ] {
            assert_eq!(path.is(text), is, "{text}");
        }
        assert!(FieldPath::Text("$.a").is("$.a") && !FieldPath::Text("$.a").is("$.b"));
        let mut out = String::from("x");
        path.write_to(&mut out);
        assert_eq!(out, "x$.orders[].id");
    }
}
