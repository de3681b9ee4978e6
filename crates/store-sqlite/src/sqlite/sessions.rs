//! [`SessionLog`] for [`SqliteStore`].

use super::write::execute;
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_core::ContextMode;
use agentctl_store::{
    ContextError, Result, SessionInfo, SessionLog, mode_override_write, parse_mode, utc_timestamp,
};
use rusqlite::{Connection, OptionalExtension, Row, params};
use std::collections::BTreeMap;

/// The counts are columns the schema's triggers keep (v7): reading a session never counts
/// its messages.
const SESSION_COLUMNS: &str =
    "s.id, s.title, s.created_at, s.updated_at, s.message_count, s.run_count";

fn session_row(row: &Row<'_>) -> rusqlite::Result<SessionInfo> {
    Ok(SessionInfo {
        id: row.get(0)?,
        title: row.get(1)?,
        created_at: row.get(2)?,
        updated_at: row.get(3)?,
        message_count: row.get::<_, i64>(4)?.max(0) as u64,
        run_count: row.get::<_, i64>(5)?.max(0) as u64,
    })
}

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

/// A sortable, readable id: `YYYYMMDD-HHMMSS-xxxx` (UTC, then 16 random bits).
/// Deletes session `id` with everything stored about it, inside the caller's transaction;
/// false if there was none.
pub(crate) fn delete_session_rows(conn: &Connection, id: &str) -> FaultResult<bool> {
    // Children first: runs reference each other, messages and checkpoints reference runs.
    conn.execute("DELETE FROM graph_checkpoints WHERE session_id = ?1", [id])?;
    conn.execute("DELETE FROM chat_messages WHERE session_id = ?1", [id])?;
    conn.execute(
        "DELETE FROM agent_run_steps WHERE run_id IN (SELECT id FROM agent_runs WHERE session_id = ?1)",
        [id],
    )?;
    conn.execute(
        "UPDATE agent_runs SET parent_run_id = NULL WHERE session_id = ?1",
        [id],
    )?;
    conn.execute("DELETE FROM agent_runs WHERE session_id = ?1", [id])?;
    let deleted = conn.execute("DELETE FROM sessions WHERE id = ?1", [id])?;
    Ok(deleted > 0)
}

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
    fn batch(&self, work: &mut dyn FnMut()) -> Result<()> {
        self.batch_writes(work)
    }

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
            let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1");
            conn.prepare_cached(&sql)?
                .query_row([id], session_row)
                .optional()?
                .ok_or_else(|| Fault::Context(ContextError::SessionNotFound(id.to_owned())))
        })
    }

    fn latest_session(&self) -> Result<Option<SessionInfo>> {
        self.with(|conn| {
            let sql = format!(
                "SELECT {SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1"
            );
            Ok(conn.query_row(&sql, [], session_row).optional()?)
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        self.with(|conn| {
            let sql = format!(
                "SELECT {SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC, s.rowid DESC"
            );
            let mut statement = conn.prepare(&sql)?;
            let rows = statement.query_map([], session_row)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
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
        self.write(|tx| {
            require_session(tx, session)?;
            execute(tx, &mode_override_write(session, agent, mode))?;
            Ok(())
        })
    }

    fn mode_overrides(&self, session: &str) -> Result<BTreeMap<String, ContextMode>> {
        self.with(|conn| {
            require_session(conn, session)?;
            let mut statement = conn.prepare(
                "SELECT agent_id, mode FROM session_mode_overrides WHERE session_id = ?1",
            )?;
            let rows = statement.query_map([session], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })?;
            let mut overrides = BTreeMap::new();
            for row in rows {
                let (agent, mode) = row?;
                let mode = parse_mode(&mode)
                    .map_err(|error| Fault::Corrupt("session_mode_overrides", error.to_string()))?;
                overrides.insert(agent, mode);
            }
            Ok(overrides)
        })
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
