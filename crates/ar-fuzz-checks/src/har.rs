//! HAR import, lenient and strict, on any bytes, and export of what was
//! imported.

use ar_flow::har::{HarCreator, ImportOptions, export_har, import_har};

/// Imports `data` both ways. Neither panics; what a strict read takes, a
/// lenient read takes too, flow for flow; and the flows a lenient read took,
/// exported as HAR and imported again, are the same flows (import of an
/// export is the identity on flows).
pub fn check(data: &[u8]) {
    let lenient = import_har(data, &ImportOptions::lenient());
    let strict = import_har(data, &ImportOptions::strict());
    if let Ok(strict) = strict {
        let lenient = lenient
            .as_ref()
            .expect("a HAR the strict read takes is taken leniently");
        assert_eq!(
            strict.flows, lenient.flows,
            "strict and lenient reads differ"
        );
    }
    if let Ok(imported) = lenient {
        let exported = export_har(Vec::new(), &imported.flows, &HarCreator::default())
            .expect("flows export to memory");
        let again = import_har(&exported[..], &ImportOptions::strict())
            .expect("ar's own export imports strictly");
        assert_eq!(again.flows.len(), imported.flows.len(), "flows lost");
        for (before, after) in imported.flows.iter().zip(&again.flows) {
            assert_eq!(
                before, after,
                "flow {} changed in export and import",
                before.id.0
            );
        }
    }
}
