//! [`SessionLog`] for [`SqliteStore`].

use super::write::{Sqlite, ready};
use super::{Fault, FaultResult, SqliteStore};
use agentctl_core::ContextMode;
use agentctl_store::ops;
use agentctl_store::{ContextError, Result, SessionInfo, SessionLog};
use rusqlite::Connection;
use std::collections::BTreeMap;

/// Deletes session `id` with everything stored about it, inside the caller's transaction;
/// false if there was none.
pub(crate) fn delete_session_rows(conn: &Connection, id: &str) -> FaultResult<bool> {
    ready(ops::delete_session_rows(&Sqlite(conn), id))
}

impl SessionLog for SqliteStore {
    fn batch(&self, work: &mut dyn FnMut()) -> Result<()> {
        self.batch_writes(work)
    }

    fn single_writer(&self) -> bool {
        true
    }

    fn create_session(&self, title: Option<&str>) -> Result<SessionInfo> {
        let title = title.map(|title| self.redactor().redact(title).into_owned());
        self.write(|tx| ready(ops::create_session(&Sqlite(tx), title.as_deref())))
    }

    fn session(&self, id: &str) -> Result<SessionInfo> {
        self.with(|conn| {
            let found = ready(ops::read_sessions(&Sqlite(conn), Some(id), None))?;
            found
                .into_iter()
                .next()
                .ok_or_else(|| Fault::Context(ContextError::SessionNotFound(id.to_owned())))
        })
    }

    fn latest_session(&self) -> Result<Option<SessionInfo>> {
        self.with(|conn| {
            let found = ready(ops::read_sessions(&Sqlite(conn), None, Some(1)))?;
            Ok(found.into_iter().next())
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        self.with(|conn| ready(ops::read_sessions(&Sqlite(conn), None, None)))
    }

    fn delete_session(&self, id: &str) -> Result<bool> {
        self.write(|tx| delete_session_rows(tx, id))
    }

    fn set_mode_override(
        &self,
        session: &str,
        agent: &str,
        mode: Option<ContextMode>,
    ) -> Result<()> {
        self.write(|tx| ready(ops::set_mode_override(&Sqlite(tx), session, agent, mode)))
    }

    fn mode_overrides(&self, session: &str) -> Result<BTreeMap<String, ContextMode>> {
        self.with(|conn| ready(ops::mode_overrides(&Sqlite(conn), session)))
    }
}
