//! The project's long-term memory store, as `memory list|search|forget` (or any front end)
//! reads it.

use crate::error::SessionError;
use crate::project::Project;
use agentctl_core::Redactor;
use agentctl_memory::MemoryBackend;
use std::sync::Arc;

impl Project {
    /// The project's memory store, with its sessions: `memory.db` beside a SQLite session
    /// file, or the sessions' PostgreSQL database. `None` when no memory was ever stored in a
    /// file and `create` is false. Entries are masked where they were remembered, so none is
    /// masked again here.
    ///
    /// # Errors
    ///
    /// [`SessionError::Store`] for a store URL agentctl does not know,
    /// [`SessionError::Memory`] when the store does not open.
    pub fn open_memory(
        &self,
        create: bool,
    ) -> Result<Option<Arc<dyn MemoryBackend>>, SessionError> {
        Ok(self.store_location()?.memory().open_memory(
            Redactor::default(),
            create,
            self.tightened_files(),
        )?)
    }
}
