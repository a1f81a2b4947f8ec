//! Integration tests of ar-agent. Every LLM test talks to `ar-mock-llm`, a
//! real HTTP server on loopback speaking the provider wire formats.

mod agent_enrich;
mod agent_loop;
mod agent_support;
mod llm_anthropic;
mod llm_concurrency;
mod llm_config;
mod llm_openai;
mod llm_retry;
mod llm_secrets;
mod llm_support;
mod llm_tls;
