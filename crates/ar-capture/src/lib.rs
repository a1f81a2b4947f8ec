//! The ar HTTPS-intercepting capture proxy: CA, CONNECT + TLS, HTTP/1.1 + HTTP/2, WebSocket, streams; emits ar-store Flows.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
