//! JSON Schema inference and merging from JSON samples, with counts as evidence. Pure: no I/O.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
