//! Integration tests: real clients (curl, hyper + tokio-rustls) and real
//! origins on loopback, through the proxy.

mod chromium;
mod curl;
mod https;
mod keepalive;
mod lock;
mod origins;
mod plain;
mod support;
