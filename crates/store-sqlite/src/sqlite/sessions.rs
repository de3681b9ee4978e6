//! [`SessionLog`] for [`SqliteStore`].

use super::write::{Sqlite, ready};
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_core::ContextMode;
use agentctl_store::ops;
use agentctl_store::{ContextError, Result, SessionInfo, SessionLog, utc_timestamp};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeMap;

/// Fails with [`ContextError::SessionNotFound`] unless the session exists.
pub(crate) fn require_session(conn: &Connection, id: &str) -> FaultResult<()> {
    let found: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?;
    match found {
        Some(_) => Ok(()),
        None => Err(Fault::Context(ContextError::SessionNotFound(id.to_owned()))),
    }
}

/// Deletes session `id` with everything stored about it, inside the caller's transaction;
/// false if there was none.
pub(crate) fn delete_session_rows(conn: &Connection, id: &str) -> FaultResult<bool> {
    ready(ops::delete_session_rows(&Sqlite(conn), id))
}

/// A sortable, readable id: `YYYYMMDD-HHMMSS-xxxx` (UTC, then 16 random bits).
fn new_session_id(now_ms: i64) -> String {
    // `YYYY-MM-DDTHH:MM:SSZ` without its separators: `YYYYMMDD-HHMMSS`.
    let stamp = utc_timestamp(now_ms);
    let digits = |part: &str| {
        part.chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
    };
    let (date, time) = stamp.split_once('T').unwrap_or((&stamp, ""));
    format!(
        "{}-{}-{:04x}",
        digits(date),
        digits(time),
        fastrand::u16(..)
    )
}

impl SessionLog for SqliteStore {
    fn create_session(&self, title: Option<&str>) -> Result<SessionInfo> {
        let title = title.map(|title| self.redactor().redact(title).into_owned());
        let title = title.as_deref();
        self.write(|tx| {
            let now = now_ms();
            // A clash needs two sessions in the same second with the same 16 random bits.
            let mut id = new_session_id(now);
            while tx
                .query_row("SELECT 1 FROM sessions WHERE id = ?1", [&id], |_| Ok(()))
                .optional()?
                .is_some()
            {
                id = new_session_id(now);
            }
            tx.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
                params![id, title, now],
            )?;
            Ok(SessionInfo {
                id,
                title: title.map(str::to_owned),
                created_at: now,
                updated_at: now,
                message_count: 0,
                run_count: 0,
            })
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(new_session_id(0).starts_with("19700101-000000-"));
        assert!(new_session_id(1_704_067_200_000).starts_with("20240101-000000-"));
        assert_eq!(new_session_id(0).len(), "19700101-000000-0000".len());
    }
}
