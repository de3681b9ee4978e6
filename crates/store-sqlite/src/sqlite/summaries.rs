//! Compaction summaries and clearing a workspace, for [`MessageLog`](agentctl_store::MessageLog) on
//! [`SqliteStore`](super::SqliteStore).
//!
//! `chat_context_summaries` holds one row per `(session, scope)`: the scope's current summary,
//! updated in place, so the cursor of every workspace is one row (what seed 001's inspection
//! query lists). Each summary it replaces moves to `chat_context_summary_history`, where
//! nothing reads it but a person inspecting the file.

use super::write::read_all;
use super::{FaultResult, now_ms};
use agentctl_store::{
    ClearedContext, ContextScope, ContextSummary, MessageId, ReplacedSummary, select_list,
};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

/// The current summary row of a scope.
struct Current {
    id: i64,
    until_message_id: MessageId,
    summary_text: String,
    created_at: i64,
    updated_at: i64,
}

impl Current {
    fn into_summary(self, scope: &ContextScope) -> ContextSummary {
        ContextSummary {
            id: self.id,
            scope: scope.clone(),
            until_message_id: self.until_message_id,
            summary_text: self.summary_text,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

fn current(conn: &Connection, session: &str, scope: &str) -> rusqlite::Result<Option<Current>> {
    conn.prepare_cached(
        "SELECT id, until_message_id, summary_text, created_at, updated_at
         FROM chat_context_summaries WHERE session_id = ?1 AND scope = ?2",
    )?
    .query_row(params![session, scope], |row| {
        Ok(Current {
            id: row.get(0)?,
            until_message_id: row.get(1)?,
            summary_text: row.get(2)?,
            created_at: row.get(3)?,
            updated_at: row.get(4)?,
        })
    })
    .optional()
}

fn archive(
    conn: &Connection,
    session: &str,
    scope: &str,
    until_message_id: MessageId,
    summary_text: &str,
    written_at: i64,
    replaced_at: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO chat_context_summary_history
             (session_id, scope, until_message_id, summary_text, created_at, replaced_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        session,
        scope,
        until_message_id,
        summary_text,
        written_at,
        replaced_at
    ])
    .map(drop)
}

/// Makes `summary_text` the scope's current summary, inside the caller's transaction, unless
/// the current one has a further cursor (another process compacted further meanwhile): that
/// one stays current and the new one goes straight to history. Returns the current summary.
pub(super) fn save(
    conn: &Connection,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> FaultResult<ContextSummary> {
    let scope_text = scope.to_string();
    let now = now_ms();
    let saved = match current(conn, session, &scope_text)? {
        None => {
            conn.prepare_cached(
                "INSERT INTO chat_context_summaries
                     (session_id, scope, until_message_id, summary_text, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
            )?
            .execute(params![
                session,
                scope_text,
                until_message_id,
                summary_text,
                now
            ])?;
            Current {
                id: conn.last_insert_rowid(),
                until_message_id,
                summary_text: summary_text.to_owned(),
                created_at: now,
                updated_at: now,
            }
        }
        // Equal cursors: the newer text wins, as when the newest row was read.
        Some(old) if until_message_id >= old.until_message_id => {
            archive(
                conn,
                session,
                &scope_text,
                old.until_message_id,
                &old.summary_text,
                old.updated_at,
                now,
            )?;
            conn.prepare_cached(
                "UPDATE chat_context_summaries
                 SET until_message_id = ?2, summary_text = ?3, updated_at = ?4 WHERE id = ?1",
            )?
            .execute(params![old.id, until_message_id, summary_text, now])?;
            Current {
                until_message_id,
                summary_text: summary_text.to_owned(),
                updated_at: now,
                ..old
            }
        }
        Some(further) => {
            archive(
                conn,
                session,
                &scope_text,
                until_message_id,
                summary_text,
                now,
                now,
            )?;
            further
        }
    };
    conn.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?
        .execute(params![session, now])?;
    Ok(saved.into_summary(scope))
}

/// The scope's current summary.
pub(super) fn latest(
    conn: &Connection,
    session: &str,
    scope: &ContextScope,
) -> FaultResult<Option<ContextSummary>> {
    Ok(current(conn, session, &scope.to_string())?.map(|row| row.into_summary(scope)))
}

/// The session's replaced summaries, oldest first.
pub(super) fn replaced(conn: &Connection, session: &str) -> FaultResult<Vec<ReplacedSummary>> {
    let columns = select_list::<ReplacedSummary>();
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {columns} FROM chat_context_summary_history WHERE session_id = ?1 ORDER BY id"
    ))?;
    read_all(&mut statement, [session])
}

/// Deletes the messages and summaries (current and replaced) of `scope`, in `session` or in
/// every session, inside the caller's transaction. Runs and their steps stay.
pub(super) fn clear(
    conn: &Connection,
    session: Option<&str>,
    scope: &ContextScope,
) -> FaultResult<ClearedContext> {
    let mut values = vec![Value::Text(scope.to_string())];
    let filter = match session {
        Some(session) => {
            values.push(Value::Text(session.to_owned()));
            "session_id = ?2 AND"
        }
        None => "",
    };
    let count = |sql: &str| -> rusqlite::Result<u64> {
        conn.query_row(sql, params_from_iter(&values), |row| row.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
    };
    let sessions = count(&format!(
        "SELECT COUNT(DISTINCT session_id) FROM (
             SELECT session_id FROM chat_messages WHERE {filter} context_scope = ?1
             UNION ALL SELECT session_id FROM chat_context_summaries WHERE {filter} scope = ?1
             UNION ALL SELECT session_id FROM chat_context_summary_history
                 WHERE {filter} scope = ?1)"
    ))?;
    let delete = |sql: &str| -> rusqlite::Result<u64> {
        conn.execute(sql, params_from_iter(&values))
            .map(|n| u64::try_from(n).unwrap_or(u64::MAX))
    };
    let messages = delete(&format!(
        "DELETE FROM chat_messages WHERE {filter} context_scope = ?1"
    ))?;
    let summaries = delete(&format!(
        "DELETE FROM chat_context_summaries WHERE {filter} scope = ?1"
    ))? + delete(&format!(
        "DELETE FROM chat_context_summary_history WHERE {filter} scope = ?1"
    ))?;
    Ok(ClearedContext {
        sessions,
        messages,
        summaries,
    })
}
