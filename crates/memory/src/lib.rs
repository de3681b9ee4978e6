//! Long-term memory of agentctl agents.
//!
//! An agent that declares `memory.longTerm` (see [`agentctl_core::MemorySpec`]) gets two tools,
//! `remember` and `recall` ([`LongTermTools`]), over one embedded store per project
//! ([`MemoryStore`]: `memory.db` beside the session database). Entries are
//! `{id, agent, content, metadata, created_at}`, searched with SQLite FTS5 (BM25) — offline,
//! no model needed. `backend: vector_store` adds embeddings from an
//! [`Embedder`](agentctl_core::Embedder) stored beside the text, and recall then fuses the
//! keyword and similarity rankings by reciprocal rank. `agentctl memory list|search|forget`
//! reads and prunes the same store.
//!
//! [`MemoryBackend`] is what the tools need from a store: the embedded [`MemoryStore`], or the
//! PostgreSQL store of agentctl-store-postgres (full-text search, pgvector when installed)
//! when the sessions live on a server.
//!
//! Everything a model can send is bounded and inert: any query text becomes quoted FTS5 words
//! (no operator, no syntax error), content and metadata are size-capped and masked with the
//! session's [`Redactor`](agentctl_core::Redactor), and recall only ever searches the calling
//! agent's entries.

mod backend;
mod entry;
mod error;
mod query;
#[cfg(feature = "sqlite")]
mod store;
#[cfg(feature = "sqlite")]
mod tools;
mod transfer;
mod vector;

pub use backend::{CopiedMemory, MemoryBackend};
pub use entry::{
    Embedding, MAX_CONTENT_BYTES, MAX_ENTRIES_PER_AGENT, MAX_METADATA_BYTES, Matched, MemoryEntry,
    MemoryHit, MemoryQuery, NewMemory, Remembered, check_entry,
};
pub use error::{MemoryError, Result};
pub use query::search_terms;
#[cfg(feature = "sqlite")]
pub use store::MemoryStore;
#[cfg(feature = "sqlite")]
pub use tools::{LongTermTools, MAX_RECALL_LIMIT, RecallArgs, RememberArgs};
pub use transfer::{MemoryCopyReport, copy_memories};
pub use vector::{
    MAX_DIMENSIONS, check as check_embedding, cosine as cosine_similarity, fuse as fuse_rankings,
};
