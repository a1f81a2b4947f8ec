//! [`SchemaBuilder`]: adds samples one at a time.

use std::io::Read;

use serde_json::Value;

use crate::error::Error;
use crate::scan::Scanner;
use crate::schema::Schema;

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
/// builder.add_value(&serde_json::json!({"id": 3}));
/// let schema = builder.finish();
/// assert_eq!(schema.samples(), 3);
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

    /// Adds every JSON document in `bytes`: JSON Lines, or documents separated by any
    /// whitespace. Returns how many were added. Stops at the first invalid document, with an
    /// error naming its line; the documents before it stay added.
    pub fn add_json_stream(&mut self, bytes: &[u8]) -> Result<u64, Error> {
        let mut scanner = Scanner::new(bytes);
        let mut added = 0;
        // Where to go back to if a document fails: a copy of the schema and the offset of the
        // first document added after it. Until there is one, documents are added all or
        // nothing by `document` (validate, then infer); from then on each is scanned once.
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
            if let Err(e) = scanner.value(&mut self.schema.root, 0) {
                // The failed document left partial counts: restore the checkpoint and add the
                // (valid) documents between it and the failed one again.
                self.schema = saved.clone();
                let mut replay = Scanner::at(bytes, *from);
                while !replay.at_end() && replay.pos() < start {
                    replay
                        .value(&mut self.schema.root, 0)
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

    /// Adds the document at the scanner's position, all or nothing.
    ///
    /// Into an empty schema the document is inferred in place in one pass; if it fails, the
    /// schema is simply emptied again. Into a schema that already has samples, the document is
    /// first checked by the non-recording skipper (no allocation) and then inferred straight
    /// into the existing nodes: keys and values already known cost no allocation. With
    /// `whole`, nothing but whitespace may follow the document.
    fn document(
        &mut self,
        scanner: &mut Scanner<'_>,
        bytes: &[u8],
        whole: bool,
    ) -> Result<(), Error> {
        let syntax = |e: Box<crate::scan::ScanError>| Error::syntax(bytes, e.offset, e.reason);
        let rest_ok = |scanner: &mut Scanner<'_>| {
            if whole && !scanner.at_end() {
                return Err(Error::syntax(
                    bytes,
                    scanner.pos(),
                    "trailing characters after the JSON document",
                ));
            }
            Ok(())
        };
        if self.schema.root.count() == 0 {
            let empty = self.schema.root.clone();
            let added = scanner
                .value(&mut self.schema.root, 0)
                .map_err(syntax)
                .and_then(|()| rest_ok(scanner));
            if added.is_err() {
                self.schema.root = empty;
            }
            return added;
        }
        let start = scanner.pos();
        scanner.skip_value().map_err(syntax)?;
        rest_ok(scanner)?;
        Scanner::at(bytes, start)
            .value(&mut self.schema.root, 0)
            .map_err(syntax)
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
