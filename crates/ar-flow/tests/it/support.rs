//! Shared helpers: the fixture HAR files.

use std::path::PathBuf;

use ar_flow::har::{HarImport, ImportOptions, import_har};

pub(crate) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/har")
        .join(name)
}

pub(crate) fn import(name: &str) -> HarImport {
    let file = std::fs::File::open(fixture(name)).expect("fixture exists");
    import_har(std::io::BufReader::new(file), &ImportOptions::lenient()).expect("fixture imports")
}
