//! Copying sessions, and the agents' long-term memories with them, between two stores (the
//! project's embedded file, another SQLite file, a PostgreSQL database shared by several
//! machines): one transaction per session. Run again, a migration copies new sessions,
//! brings copies the source outgrew up to date, skips unchanged ones and leaves alone —
//! reporting them — sessions changed in both stores.

use crate::error::SessionError;
use crate::project::Project;
use crate::store_location::StoreLocation;
use agentctl_core::Redactor;
use agentctl_memory::{MemoryCopyReport, MemoryError, copy_memories};
use agentctl_store::{ContextError, CopyOutcome, CopyReport, copy_sessions};

/// What a migration did: the sessions' report (with the conflicts left alone) and the
/// memories'.
#[derive(Debug)]
#[non_exhaustive]
pub struct Migration {
    /// The store copied from.
    pub from: StoreLocation,
    /// The store copied to.
    pub to: StoreLocation,
    /// The sessions copied, updated, skipped and left alone.
    pub sessions: CopyReport,
    /// The long-term memories copied and found already there.
    pub memories: MemoryCopyReport,
}

/// Why a migration stopped. What was copied before stays copied: running it again goes on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrateError {
    /// Both sides name the same store.
    #[error("the sessions would be copied onto themselves ({0})")]
    SameStore(StoreLocation),
    /// The source has no session store.
    #[error("{0}: no session store there, nothing to copy")]
    NoSource(StoreLocation),
    /// The target store could not be opened.
    #[error("{0}: cannot open the store")]
    NoTarget(StoreLocation),
    /// The target's memory store could not be opened.
    #[error("{0}: cannot open its memory store")]
    NoMemoryTarget(StoreLocation),
    /// A store URL is invalid or a store failed to open.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// Copying the sessions failed part way.
    #[error("copying sessions from {from} to {to} (run it again to go on)")]
    Sessions {
        /// The source.
        from: StoreLocation,
        /// The target.
        to: StoreLocation,
        /// Why (boxed: the store's errors are large).
        #[source]
        source: Box<ContextError>,
    },
    /// Copying the memories failed part way.
    #[error("copying long-term memories from {from} to {to} (run it again to go on)")]
    Memories {
        /// The source.
        from: StoreLocation,
        /// The target.
        to: StoreLocation,
        /// Why.
        #[source]
        source: MemoryError,
    },
}

impl MigrateError {
    /// What a front end can offer beyond the message (see [`SessionError::hint`]); the
    /// errors with a source of their own leave it to that source.
    pub fn hint(&self) -> Option<agentctl_core::Hint> {
        match self {
            Self::Session(error) => error.hint(),
            _ => None,
        }
    }
}

impl Project {
    /// The store a migration side names: `url` (relative to the project root), else the
    /// project's embedded file.
    ///
    /// # Errors
    ///
    /// [`SessionError::Store`] for a URL that names no store agentctl knows.
    pub fn migration_side(&self, url: Option<&str>) -> Result<StoreLocation, SessionError> {
        match url {
            Some(url) => Ok(StoreLocation::parse(url, self.root())?),
            None => Ok(StoreLocation::Sqlite(self.store_path())),
        }
    }

    /// Copies the sessions of `from` to `to` (see [`migration_side`](Self::migration_side)),
    /// calling `on_session` with each session's outcome as it is decided, then the long-term
    /// memories when `from` has a memory store.
    ///
    /// # Errors
    ///
    /// [`MigrateError`]: the same store on both sides, no source, a store that does not open
    /// or a copy that failed part way.
    pub fn migrate(
        &self,
        from: StoreLocation,
        to: StoreLocation,
        on_session: &mut dyn FnMut(&str, CopyOutcome),
    ) -> Result<Migration, MigrateError> {
        if from == to {
            return Err(MigrateError::SameStore(from));
        }
        let source = self
            .open_store_at(&from, false)?
            .ok_or_else(|| MigrateError::NoSource(from.clone()))?;
        let target = self
            .open_store_at(&to, true)?
            .ok_or_else(|| MigrateError::NoTarget(to.clone()))?;
        let sessions = copy_sessions(&*source, &*target, on_session).map_err(|source| {
            MigrateError::Sessions {
                from: from.clone(),
                to: to.clone(),
                source: Box::new(source),
            }
        })?;
        let memories = self.migrate_memories(&from, &to)?;
        Ok(Migration {
            from,
            to,
            sessions,
            memories,
        })
    }

    /// Copies the long-term memories along, when the source has a memory store. Entries are
    /// masked where they were remembered; the target masks its URL's password.
    fn migrate_memories(
        &self,
        from: &StoreLocation,
        to: &StoreLocation,
    ) -> Result<MemoryCopyReport, MigrateError> {
        let tightened = self.tightened_files();
        let Some(source) = from
            .memory()
            .open_memory(Redactor::default(), false, tightened)
            .map_err(SessionError::from)?
        else {
            return Ok(MemoryCopyReport::default());
        };
        let target = to
            .memory()
            .open_memory(Redactor::default(), true, tightened)
            .map_err(SessionError::from)?
            .ok_or_else(|| MigrateError::NoMemoryTarget(to.clone()))?;
        copy_memories(&*source, &*target).map_err(|source| MigrateError::Memories {
            from: from.clone(),
            to: to.clone(),
            source,
        })
    }
}
