//! The ar agent: LLM providers, the tool-use loop, the Browser trait and the no-LLM explorer.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod agent;
pub mod browser;
pub mod enrich;
pub mod explorer;
pub mod llm;
