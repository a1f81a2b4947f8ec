//! HAR import, lenient and strict, on any bytes.

use ar_store::har::{ImportOptions, import_har};

/// Imports `data` both ways. Neither panics; what a strict read takes, a
/// lenient read takes too, flow for flow.
pub fn check(data: &[u8]) {
    let lenient = import_har(data, &ImportOptions::lenient());
    let strict = import_har(data, &ImportOptions::strict());
    if let Ok(strict) = strict {
        let lenient = lenient.expect("a HAR the strict read takes is taken leniently");
        assert_eq!(
            strict.flows, lenient.flows,
            "strict and lenient reads differ"
        );
    }
}
