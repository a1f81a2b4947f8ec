//! The checks of `ar`'s fuzz targets, one function per target, each taking
//! the fuzzer's bytes and panicking when a property fails.
//!
//! The cargo-fuzz crate (`fuzz/`, built on nightly, outside the workspace)
//! calls these functions from its targets, and `tests/corpus.rs` replays every
//! committed input of `fuzz/corpus/<target>/` through the same function on
//! stable, so a crash once found stays a test.
//!
//! ```
//! ar_fuzz_checks::schema::check(br#"{"id":7,"tags":["a"]}"#);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod archive;
pub mod document;
pub mod har;
pub mod proxy_head;
pub mod schema;
pub mod templating;

/// A target's check: panics when a property fails for the input.
pub type Check = fn(&[u8]);

/// Every target: its name (the directory under `fuzz/corpus/` and the
/// `fuzz/fuzz_targets/` file) and its check.
pub const TARGETS: &[(&str, Check)] = &[
    ("har_import", har::check),
    ("archive_lines", archive::check),
    ("templating", templating::check),
    ("schema", schema::check),
    ("graphql", document::check_graphql),
    ("forms", document::check_forms),
    ("proxy_head", proxy_head::check),
];
