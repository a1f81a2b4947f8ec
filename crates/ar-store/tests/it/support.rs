//! Shared helpers: the fixture HAR files, imported leniently.

use ar_flow::har::{HarImport, ImportOptions, import_har};

/// `fixtures/har/<name>` as `ar import` reads it.
pub(crate) fn import(name: &str) -> HarImport {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/har/");
    let file = std::fs::File::open(format!("{dir}{name}")).expect("fixture exists");
    import_har(std::io::BufReader::new(file), &ImportOptions::lenient()).expect("fixture imports")
}
