//! Entries read whole and written back with their time, for [`MemoryStore`]'s side of
//! [`copy_memories`](crate::copy_memories).

use super::{COLUMNS, MemoryStore, RawRow, read_row};
use crate::backend::CopiedMemory;
use crate::error::Result;
use crate::store::{Embedding, MemoryEntry, NewMemory, Remembered};
use rusqlite::params;

impl MemoryStore {
    /// Up to `limit` entries with ids above `after`, in id order, with their embeddings.
    pub fn entries_after(&self, after: i64, limit: usize) -> Result<Vec<CopiedMemory>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.with(|conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {COLUMNS}, embedding FROM memories WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))?;
            let rows = statement.query_map(params![after, limit], |row| {
                Ok((read_row(row)?, row.get::<_, Option<Vec<u8>>>(6)?))
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<(RawRow, Option<Vec<u8>>)>>>()?)
        })?;
        let mut entries = Vec::with_capacity(rows.len());
        for (raw, blob) in rows {
            let entry = raw.decode(self.path())?;
            let embedding = match (&entry.embedding_model, blob) {
                (Some(model), Some(blob)) => {
                    crate::vector::from_blob(&blob).map(|vector| Embedding {
                        model: model.clone(),
                        vector,
                    })
                }
                _ => None,
            };
            entries.push(CopiedMemory { entry, embedding });
        }
        Ok(entries)
    }

    /// Stores an entry copied from another store, with its time, unless its agent already
    /// keeps this content (as [`remember`](Self::remember)).
    pub fn import_entry(&self, copied: &CopiedMemory) -> Result<Remembered> {
        self.remember_at(new_memory(copied), Some(copied.entry.created_at))
    }
}

/// The entry as a new one (its id is the other store's).
pub(crate) fn new_memory(copied: &CopiedMemory) -> NewMemory {
    let MemoryEntry {
        agent,
        content,
        metadata,
        ..
    } = &copied.entry;
    NewMemory {
        agent: agent.clone(),
        content: content.clone(),
        metadata: metadata.clone(),
        embedding: copied.embedding.clone(),
    }
}
