//! [`SchemaBuilder`]: adds samples one at a time.

use std::io::Read;

use serde_json::Value;

use crate::error::Error;
use crate::scan::Scanner;
use crate::schema::Schema;
use crate::tape::Tape;

/// Adds samples to a schema one by one, from parsed values or straight from JSON bytes.
///
/// The byte paths ([`SchemaBuilder::add_json_slice`], [`SchemaBuilder::add_json_stream`],
/// [`SchemaBuilder::add_reader`]) never build a `serde_json::Value`: they infer while scanning,
/// which is faster than parsing, handles any nesting depth, and keeps integers of any length as
/// integers. A document that fails to parse adds nothing; documents before it stay added.
///
/// ```
/// let mut builder = ar_schema::SchemaBuilder::new();
/// builder.add_json_stream(b"{\"id\": 1}\n{\"id\": 2, \"tag\": \"x\"}\n")?;
/// builder.add_reader(&b"{\"id\": 3} {\"id\": 4}"[..])?;
/// builder.add_value(&serde_json::json!({"id": 5}));
/// let schema = builder.finish();
/// assert_eq!(schema.samples(), 5);
/// // In all five objects: required (see [`crate::limits::REQUIRED_MIN_OBJECTS`]).
/// assert_eq!(schema.to_json_schema()["required"], serde_json::json!(["id"]));
/// # Ok::<(), ar_schema::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SchemaBuilder {
    schema: Schema,
}

impl SchemaBuilder {
    /// A builder with no samples.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one parsed sample.
    pub fn add_value(&mut self, value: &Value) {
        crate::value::add(&mut self.schema.root, value, 0);
    }

    /// Adds the one JSON document in `bytes` (surrounding whitespace and a UTF-8 BOM allowed).
    pub fn add_json_slice(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.document(&mut Scanner::new(bytes), bytes, true)
    }

    /// Adds the document on `tape`, which was [read](Tape::read) from `body`: the schema
    /// [`SchemaBuilder::add_json_slice`] would build from `body`, without reading its text
    /// again (the tape was read once for every use of the body).
    ///
    /// ```
    /// use ar_schema::{SchemaBuilder, Tape};
    /// let body = br#"[{"id": 1}, {"id": 2.5}]"#;
    /// let mut tape = Tape::new();
    /// tape.read(body)?;
    /// let mut builder = SchemaBuilder::new();
    /// builder.add_tape(&tape, body);
    /// assert_eq!(builder.finish().to_openapi()["items"]["properties"]["id"]["type"], "number");
    /// # Ok::<(), ar_schema::Error>(())
    /// ```
    ///
    /// # Panics
    ///
    /// When the tape holds no document read from a body of `body`'s length (it was not read,
    /// its read failed, or it was read from another body).
    pub fn add_tape(&mut self, tape: &Tape, body: &[u8]) {
        assert!(
            tape.holds(body.len()),
            "add_tape: the tape holds no document read from this {}-byte body",
            body.len()
        );
        crate::tape::add(&mut self.schema.root, tape, body);
    }

    /// Adds every JSON document in `bytes`: JSON Lines, or documents separated by any
    /// whitespace. Returns how many were added. Stops at the first invalid document, with an
    /// error naming its line; the documents before it stay added.
    pub fn add_json_stream(&mut self, bytes: &[u8]) -> Result<u64, Error> {
        let mut scanner = Scanner::new(bytes);
        let mut added = 0;
        // Where to go back to if a document fails: a copy of the schema and the offset of the
        // first document added after it. Until there is one, documents are added all or
        // nothing by `document`; from then on each is scanned once.
        let mut checkpoint: Option<(Schema, usize)> = None;
        while !scanner.at_end() {
            let Some((saved, from)) = &checkpoint else {
                // Copying an empty schema is free, and copying a non-empty one pays for
                // itself after a single document: take the checkpoint as soon as either holds.
                if self.schema.root.count() == 0 || added > 0 {
                    checkpoint = Some((self.schema.clone(), scanner.pos()));
                } else {
                    self.document(&mut scanner, bytes, false)?;
                    added += 1;
                }
                continue;
            };
            let start = scanner.pos();
            if let Err(e) = scanner.value::<false>(&mut self.schema.root, 0) {
                // The failed document left partial counts: restore the checkpoint and add the
                // (valid) documents between it and the failed one again.
                self.schema = saved.clone();
                let mut replay = Scanner::at(bytes, *from);
                while !replay.at_end() && replay.pos() < start {
                    replay
                        .value::<false>(&mut self.schema.root, 0)
                        .map_err(|e| Error::syntax(bytes, e.offset, e.reason))?;
                }
                return Err(Error::syntax(bytes, e.offset, e.reason));
            }
            added += 1;
        }
        Ok(added)
    }

    /// Reads `reader` to the end and adds every JSON document in it, as
    /// [`SchemaBuilder::add_json_stream`] does. The whole input is buffered.
    pub fn add_reader(&mut self, mut reader: impl Read) -> Result<u64, Error> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(Error::Read)?;
        self.add_json_stream(&bytes)
    }

    /// Adds the document at the scanner's position, all or nothing, in one pass if it is valid.
    ///
    /// Into an empty schema the document is inferred in place; if it fails, the schema is
    /// simply emptied again. Into a schema that already has samples, it is inferred straight
    /// into the existing nodes, optimistically: as long as it only adds to counts (keys, enum
    /// values and formats already known: the common case), nothing checks it first, and if it
    /// turns out invalid, the bytes read up to the error are read once more to count them
    /// back. Before the first change that counting back cannot undo (a new property or enum
    /// value, say), the whole document is checked by the non-recording skipper. With `whole`,
    /// nothing but whitespace may follow the document.
    fn document(
        &mut self,
        scanner: &mut Scanner<'_>,
        bytes: &[u8],
        whole: bool,
    ) -> Result<(), Error> {
        let root = &mut self.schema.root;
        if root.count() == 0 {
            let empty = root.clone();
            let added = scanner
                .value::<false>(root, 0)
                .and_then(|()| scanner.end_document(whole));
            return added.map_err(|e| {
                *root = empty;
                Error::syntax(bytes, e.offset, e.reason)
            });
        }
        let start = scanner.pos();
        scanner.unsure(whole);
        let added = scanner
            .value::<false>(root, 0)
            .and_then(|()| scanner.end_document(whole));
        let undo_to = scanner.settle(added.as_ref().err().map(|e| e.offset));
        added.map_err(|e| {
            if let Some(stop) = undo_to {
                // The undo stops with an error where the bytes run out, by design.
                let _ = Scanner::at(&bytes[..stop], start).value::<true>(root, 0);
            }
            Error::syntax(bytes, e.offset, e.reason)
        })
    }

    /// Adds every sample of an existing schema.
    pub fn add_schema(&mut self, schema: &Schema) {
        self.schema.merge_from(schema);
    }

    /// How many samples were added.
    pub fn samples(&self) -> u64 {
        self.schema.samples()
    }

    /// The schema so far.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The schema of every sample added.
    pub fn finish(self) -> Schema {
        self.schema
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::scan::ScanError;
    use crate::testing::{damage, damaged, text};

    /// How `add_json_slice` worked before it read documents optimistically: check the whole
    /// document with the skipper, then infer it (into an empty schema: infer, and empty the
    /// schema again on failure). The reference for results, errors and state.
    fn checked_first(b: &mut SchemaBuilder, bytes: &[u8]) -> Result<(), Error> {
        let syntax = |e: Box<ScanError>| Error::syntax(bytes, e.offset, e.reason);
        let mut scanner = Scanner::new(bytes);
        let root = &mut b.schema.root;
        if root.count() == 0 {
            let empty = root.clone();
            let added = scanner
                .value::<false>(root, 0)
                .and_then(|()| scanner.end_document(true));
            if added.is_err() {
                *root = empty;
            }
            return added.map_err(syntax);
        }
        let start = scanner.pos();
        scanner.skip_value().map_err(syntax)?;
        scanner.end_document(true).map_err(syntax)?;
        Scanner::at(bytes, start)
            .value::<false>(root, 0)
            .map_err(syntax)
    }

    /// Adds `bytes` both ways and asserts the same outcome: same result or error (offset,
    /// reason, line), same schema, same rendering. Returns whether `bytes` was added.
    fn add_both(fast: &mut SchemaBuilder, reference: &mut SchemaBuilder, bytes: &[u8]) -> bool {
        let got = fast.add_json_slice(bytes);
        let want = checked_first(reference, bytes);
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
        assert_eq!(fast.schema(), reference.schema());
        assert_eq!(
            fast.schema().to_json_schema(),
            reference.schema().to_json_schema()
        );
        got.is_ok()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// A damaged body leaves the builder exactly as if it had not been offered (the same
        /// as checking first did), with the same error; later bodies add the same way. The
        /// damaged body is mostly a copy of one added before (so it meets known properties
        /// and enum values, and is read optimistically), sometimes a new document.
        #[test]
        fn an_invalid_body_adds_nothing_and_fails_as_before(
            before in prop::collection::vec(text(), 1..5),
            fresh in text(),
            pick in any::<prop::sample::Index>(),
            how in damage(),
            after in any::<prop::sample::Index>(),
        ) {
            let mut fast = SchemaBuilder::new();
            let mut reference = SchemaBuilder::new();
            for doc in &before {
                add_both(&mut fast, &mut reference, doc.as_bytes());
            }
            let untouched = reference.clone();
            let source = before.get(pick.index(before.len() + 1)).unwrap_or(&fresh);
            if !add_both(&mut fast, &mut reference, &damaged(source, &how)) {
                prop_assert_eq!(fast.schema(), untouched.schema());
            }
            let next = before.get(after.index(before.len() + 1)).unwrap_or(&fresh);
            add_both(&mut fast, &mut reference, next.as_bytes());
        }
    }

    #[test]
    fn limits_taken_back() {
        // Long keys, collapsed objects and values below the depth limit, counted and then
        // taken back when the document fails after them.
        let long = "k".repeat(crate::limits::MAX_KEY_BYTES + 1);
        let many: Vec<String> = (0..=crate::limits::MAX_PROPERTIES)
            .map(|i| format!("\"p{i}\": {i}"))
            .collect();
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let docs = [
            format!(
                "{{\"{long}\": 1, \"m\": {{ {} }}, \"d\": {deep}}}",
                many.join(",")
            ),
            format!("{{\"{long}\": 2, \"m\": {{\"p1\": 1, \"p2\": 2}}, \"d\": {deep}}}"),
        ];
        for bad in [
            format!("{{\"{long}\": 3, \"m\": {{\"p1\": 1, \"p2\": 2}}, \"d\": {deep}, }}"),
            format!("{{\"m\": {{\"p1\": 1, \"p2\": 2}}, \"d\": [{deep}, 1, tru]}}"),
            format!("{{\"m\": {{\"p1\": 1, \"p2\": 2}}, \"d\": {}", &deep[..300]),
            format!("{{\"m\": {{\"p1\": 1, \"new\": 2}}, \"d\": {deep}, \"x\" 1}}"),
        ] {
            let mut fast = SchemaBuilder::new();
            let mut reference = SchemaBuilder::new();
            for doc in &docs {
                add_both(&mut fast, &mut reference, doc.as_bytes());
            }
            assert!(!add_both(&mut fast, &mut reference, bad.as_bytes()));
            add_both(&mut fast, &mut reference, docs[1].as_bytes());
        }
    }
}
