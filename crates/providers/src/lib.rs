//! Model providers for agentctl.
//!
//! [`build_provider`] turns a resolved [`ModelRef`](agentctl_core::ModelRef) into an
//! `Arc<dyn` [`ModelProvider`](agentctl_core::ModelProvider)`>` ([`BuiltinProviders`] is the same as a
//! runtime's [`ProviderFactory`](agentctl_core::ProviderFactory)): OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM,
//! llama.cpp, …), the Anthropic Messages API, Gemini's `generateContent`, or a
//! [`ScriptedProvider`] replaying a YAML cassette for offline runs and tests.
//! [`RecordingProvider`] wraps any provider and writes such a cassette from a real run.
//! [`build_embedder`] does the same for embedding models (long-term memory's
//! `vector_store`): OpenAI-compatible `/v1/embeddings`, Gemini `batchEmbedContents` and
//! Ollama's `/api/embed`, from the same provider settings.
//!
//! HTTP providers share one HTTP client per client configuration per process
//! ([`http_clients_built`] counts them): the system's trust store is loaded once, and
//! connections are reused by every provider, conversation, handoff and session that talks to
//! the same host. Keys and configured headers are each provider's own, sent with its requests.
//!
//! HTTP providers share one behaviour: retries with exponential backoff and jitter on 429, 5xx,
//! connection errors and timeouts (honouring `Retry-After`), a request timeout and an
//! idle-stream timeout, and one-line errors that name provider, model, status and what to
//! check. API keys are read through [`Env`] and never appear in errors or recordings.
//!
//! Requests are shaped to pass the APIs' own checks: tool names are sent under names all three
//! accept (`mcp.github.search` as `mcp__github__search`, long names cut with a stable hash) and
//! mapped back in answers, so the rest of agentctl only sees its own names; tool schemas become
//! object schemas (and Gemini's OpenAPI subset), and empty turns are left out.

mod anthropic;
mod assemble;
mod clients;
mod embeddings;
mod factory;
mod gemini;
mod http;
mod openai;
mod options;
mod recording;
mod retry;
mod schema;
mod scripted;
mod shared_tools;
mod sse;
mod timers;

pub use clients::http_clients_built;
pub use embeddings::{BATCH as EMBEDDING_BATCH, build_embedder};
pub use factory::{BuiltinProviders, build_provider};
pub use options::{Env, ProviderOptions, RetryPolicy};
pub use recording::RecordingProvider;
pub use scripted::ScriptedProvider;
