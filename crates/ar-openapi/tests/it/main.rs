//! Integration tests of ar-openapi.
