//! Long-term memory as a front end lists, searches and forgets it.

pub use agentctl_memory::{
    Matched, MemoryBackend, MemoryCopyReport, MemoryEntry, MemoryError, MemoryHit, MemoryQuery,
};
