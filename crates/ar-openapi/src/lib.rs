//! OpenAPI 3.0 and markdown documentation assembled from ar-store endpoints and ar-schema schemas. Pure: no I/O.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
