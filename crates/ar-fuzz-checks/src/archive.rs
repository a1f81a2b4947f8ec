//! The archive reader on torn and corrupt lines.

use ar_flow::archive::{ArchiveReader, MemoryBodyStore};

/// Reads `data` as `flows.jsonl` to the end. Damaged lines come back as
/// warnings or an error, never a panic, and the reader always ends: each
/// record consumes input.
pub fn check(data: &[u8]) {
    let bodies = MemoryBodyStore::default();
    let mut reader = ArchiveReader::new(data);
    let lines = data.split(|b| *b == b'\n').count();
    for _ in 0..=lines {
        match reader.next_record(&bodies) {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return,
        }
    }
    panic!("the reader gave more records than {lines} lines");
}
