//! [`copy_memories`]: agents' long-term memories from one store into another
//! (`agentctl sessions migrate` takes them along with the sessions).
//!
//! Entries keep their agent, content, metadata, time and embedding; ids are the target's.
//! A store keeps one entry per agent and content, so an entry the target already has (copied
//! earlier, or remembered there too) is not written again: copying twice, or both ways, leaves
//! each memory once.

use crate::backend::MemoryBackend;
use crate::entry::Remembered;
use crate::error::Result;

/// What [`copy_memories`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryCopyReport {
    /// Entries written.
    pub copied: u64,
    /// Entries the target already kept.
    pub existing: u64,
}

/// Entries read per round trip: bounds memory whatever the store's size.
const PAGE: usize = 500;

/// Copies every entry of `from` into `to`, oldest first; entries `to` already keeps (same
/// agent and content) are left as they are.
///
/// ```
/// use agentctl_memory::*;
///
/// let (laptop, server) = (MemoryStore::open_in_memory()?, MemoryStore::open_in_memory()?);
/// laptop.remember(NewMemory::new("debugger", "The flaky test needs REDIS_URL"))?;
/// assert_eq!(copy_memories(&laptop, &server)?, MemoryCopyReport { copied: 1, existing: 0 });
/// assert_eq!(copy_memories(&laptop, &server)?, MemoryCopyReport { copied: 0, existing: 1 });
/// assert_eq!(copy_memories(&server, &laptop)?, MemoryCopyReport { copied: 0, existing: 1 });
/// # Ok::<(), MemoryError>(())
/// ```
pub fn copy_memories(from: &dyn MemoryBackend, to: &dyn MemoryBackend) -> Result<MemoryCopyReport> {
    let mut report = MemoryCopyReport::default();
    let mut after = i64::MIN;
    loop {
        let page = from.entries_after(after, PAGE)?;
        let Some(last) = page.last() else {
            return Ok(report);
        };
        after = last.entry.id;
        for copied in &page {
            match to.import_entry(copied)? {
                Remembered::Stored(_) => report.copied += 1,
                Remembered::Existing(_) => report.existing += 1,
            }
        }
    }
}
