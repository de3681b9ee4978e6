//! [`MemoryBackend`]: what the `remember`/`recall` tools and `agentctl memory` need from a
//! long-term memory store, so the embedded SQLite [`MemoryStore`] and a shared server store
//! (agentctl-store-postgres) serve them alike.

use crate::entry::{Embedding, MemoryEntry, MemoryHit, MemoryQuery, NewMemory, Remembered};
use crate::error::Result;
#[cfg(feature = "sqlite")]
use crate::store::MemoryStore;

/// An entry read for copying, with its embedding.
#[derive(Debug, Clone, PartialEq)]
pub struct CopiedMemory {
    /// The entry as its store has it.
    pub entry: MemoryEntry,
    /// Its embedding, when it has one.
    pub embedding: Option<Embedding>,
}

/// A long-term memory store. Synchronous, like the session store traits: the tools call it
/// off the async threads.
///
/// Every implementation keeps the rules of [`MemoryStore`]: entries checked with
/// [`check_entry`](crate::check_entry) and masked before they are written, one entry per agent and
/// content ([`Remembered::Existing`] for a repeat), at most
/// [`MAX_ENTRIES_PER_AGENT`](crate::MAX_ENTRIES_PER_AGENT) per agent, any query text inert (no operator, no
/// syntax error), keyword and similarity rankings fused by reciprocal rank
/// ([`fuse_rankings`](crate::fuse_rankings)).
pub trait MemoryBackend: Send + Sync {
    /// The store, as errors and listings name it (a path, or a URL without its password).
    fn label(&self) -> &str;
    /// `text` with the secrets this store masks masked: what an embedding model may be sent.
    fn mask(&self, text: &str) -> String;
    /// Stores an entry, unless the agent already keeps exactly this content.
    fn remember(&self, new: NewMemory) -> Result<Remembered>;
    /// The entry `id`, if there is one.
    fn get(&self, id: i64) -> Result<Option<MemoryEntry>>;
    /// Entries, newest first: every agent's, or `agent`'s only.
    fn list(&self, agent: Option<&str>) -> Result<Vec<MemoryEntry>>;
    /// Deletes entry `id` (only if it belongs to `agent`, when given) and returns it.
    fn forget(&self, id: i64, agent: Option<&str>) -> Result<MemoryEntry>;
    /// The best entries for `query`, best first.
    fn search(&self, query: &MemoryQuery<'_>) -> Result<Vec<MemoryHit>>;
    /// Up to `limit` entries with ids above `after`, in id order, with their embeddings (for
    /// [`copy_memories`](crate::copy_memories)).
    fn entries_after(&self, after: i64, limit: usize) -> Result<Vec<CopiedMemory>>;
    /// Stores an entry copied from another store, keeping its time and embedding, unless its
    /// agent already keeps this content (then [`Remembered::Existing`]); checked and masked as
    /// [`remember`](Self::remember) does.
    fn import_entry(&self, copied: &CopiedMemory) -> Result<Remembered>;
}

#[cfg(feature = "sqlite")]
impl MemoryBackend for MemoryStore {
    fn label(&self) -> &str {
        self.path()
    }

    fn mask(&self, text: &str) -> String {
        MemoryStore::mask(self, text)
    }

    fn remember(&self, new: NewMemory) -> Result<Remembered> {
        MemoryStore::remember(self, new)
    }

    fn get(&self, id: i64) -> Result<Option<MemoryEntry>> {
        MemoryStore::get(self, id)
    }

    fn list(&self, agent: Option<&str>) -> Result<Vec<MemoryEntry>> {
        MemoryStore::list(self, agent)
    }

    fn forget(&self, id: i64, agent: Option<&str>) -> Result<MemoryEntry> {
        MemoryStore::forget(self, id, agent)
    }

    fn search(&self, query: &MemoryQuery<'_>) -> Result<Vec<MemoryHit>> {
        MemoryStore::search(self, query)
    }

    fn entries_after(&self, after: i64, limit: usize) -> Result<Vec<CopiedMemory>> {
        MemoryStore::entries_after(self, after, limit)
    }

    fn import_entry(&self, copied: &CopiedMemory) -> Result<Remembered> {
        MemoryStore::import_entry(self, copied)
    }
}
