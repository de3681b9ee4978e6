//! Compaction summaries and clearing a workspace, for [`MessageLog`](agentctl_store::MessageLog) on
//! [`SqliteStore`](super::SqliteStore).
//!
//! `chat_context_summaries` holds one row per `(session, scope)`: the scope's current summary,
//! updated in place, so the cursor of every workspace is one row (what seed 001's inspection
//! query lists). Each summary it replaces moves to `chat_context_summary_history`, where
//! nothing reads it but a person inspecting the file.

use super::write::{execute, read_all, read_first};
use super::{FaultResult, now_ms};
use agentctl_store::{
    ClearedContext, ContextScope, ContextSummary, MessageId, ReplacedSummary, SummarySave,
    WriteKind, select_list,
};
use rusqlite::types::Value;
use rusqlite::{Connection, params, params_from_iter};

/// The scope's current summary row.
fn current(conn: &Connection, session: &str, scope: &str) -> FaultResult<Option<ContextSummary>> {
    let columns = select_list::<ContextSummary>();
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {columns} FROM chat_context_summaries WHERE session_id = ?1 AND scope = ?2"
    ))?;
    read_first(&mut statement, params![session, scope])
}

/// Makes `summary_text` the scope's current summary, inside the caller's transaction, unless
/// the current one has a further cursor (see [`SummarySave`]). Returns the current summary.
pub(super) fn save(
    conn: &Connection,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> FaultResult<ContextSummary> {
    let now = now_ms();
    let found = current(conn, session, &scope.to_string())?;
    let save = SummarySave::new(session, scope, until_message_id, summary_text, found, now);
    let mut new_id = None;
    for write in &save.writes {
        execute(conn, write)?;
        if write.kind == WriteKind::InsertReturningId {
            new_id = Some(conn.last_insert_rowid());
        }
    }
    conn.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?
        .execute(params![session, now])?;
    Ok(save.saved(new_id))
}

/// The scope's current summary.
pub(super) fn latest(
    conn: &Connection,
    session: &str,
    scope: &ContextScope,
) -> FaultResult<Option<ContextSummary>> {
    current(conn, session, &scope.to_string())
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
