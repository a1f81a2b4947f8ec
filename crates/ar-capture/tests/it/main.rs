//! Integration tests: real clients and origins on loopback through the proxy.
