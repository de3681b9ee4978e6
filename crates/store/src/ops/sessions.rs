//! Sessions, their mode overrides and their state.

use super::{Statements, execute, integers, records, require_session};
use crate::error::ContextError;
use crate::record::utc_timestamp;
use crate::record::{SessionInfo, StateEntry};
use crate::rows::{mode_override_write, state_write};
use crate::schema::{Query, RowError, Sql};
use crate::scope::parse_mode;
use agentctl_core::{ContextMode, Redactor};
use std::collections::BTreeMap;

/// The names of the columns of a session read: `S::SESSION_COLUMNS` in this order.
const SESSION_NAMES: &[&str] = &[
    "id",
    "title",
    "created_at",
    "updated_at",
    "message_count",
    "run_count",
];

/// A sortable, readable session id: `YYYYMMDD-HHMMSS-xxxx` (UTC, then 16 random bits).
///
/// ```
/// let id = agentctl_store::ops::new_session_id(1_704_067_200_000);
/// assert!(id.starts_with("20240101-000000-"));
/// assert_eq!(id.len(), "20240101-000000-abcd".len());
/// ```
pub fn new_session_id(now_ms: i64) -> String {
    // `YYYY-MM-DDTHH:MM:SSZ` without its separators: `YYYYMMDD-HHMMSS`.
    let digits: String = utc_timestamp(now_ms)
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let (date, time) = digits.split_at(digits.len().min(8));
    format!("{date}-{time}-{:04x}", fastrand::u16(..))
}

/// Creates an empty session titled `title` (masked) inside a write transaction. A clash of
/// ids needs two sessions in the same second with the same 16 random bits: the next id is
/// tried then.
pub async fn create_session<S: Statements + ?Sized>(
    store: &S,
    title: Option<&str>,
) -> Result<SessionInfo, S::Fault> {
    let now = super::now_ms();
    loop {
        let id = new_session_id(now);
        let insert = Sql {
            table: "sessions",
            text: "INSERT INTO sessions (id, title, created_at, updated_at)
                   VALUES (?1, ?2, ?3, ?3) ON CONFLICT (id) DO NOTHING",
            names: &[],
            values: vec![id.as_str().into(), title.into(), now.into()],
        };
        if execute(store, insert).await? == 1 {
            return Ok(SessionInfo {
                id,
                title: title.map(str::to_owned),
                created_at: now,
                updated_at: now,
                message_count: 0,
                run_count: 0,
            });
        }
    }
}

/// Sessions, most recently written first: the one called `id`, or all of them (at most
/// `limit`).
pub async fn read_sessions<S: Statements + ?Sized>(
    store: &S,
    id: Option<&str>,
    limit: Option<i64>,
) -> Result<Vec<SessionInfo>, S::Fault> {
    let mut query = Query::value("sessions", S::SESSION_COLUMNS, SESSION_NAMES);
    if let Some(id) = id {
        query = query.eq("id", id);
    }
    query = query
        .order_desc("updated_at")
        .order_desc(S::SESSION_TIEBREAK);
    if let Some(limit) = limit {
        query = query.limit(limit);
    }
    let count = |value: i64| u64::try_from(value).unwrap_or(0);
    let mut sessions = Vec::new();
    store
        .visit(&S::DIALECT.query(&query), &mut |row| {
            sessions.push(SessionInfo {
                id: row.text("id")?.to_owned(),
                title: row.opt_text("title")?.map(str::to_owned),
                created_at: row.integer("created_at")?,
                updated_at: row.integer("updated_at")?,
                message_count: count(row.integer("message_count")?),
                run_count: count(row.integer("run_count")?),
            });
            Ok(true)
        })
        .await?;
    Ok(sessions)
}

/// Deletes everything stored about session `id` but its row, children first: runs
/// reference each other, messages and checkpoints reference runs.
const DELETE_CHILDREN: [&str; 5] = [
    "DELETE FROM graph_checkpoints WHERE session_id = ?1",
    "DELETE FROM chat_messages WHERE session_id = ?1",
    "DELETE FROM agent_run_steps WHERE run_id IN (SELECT id FROM agent_runs WHERE session_id = ?1)",
    "UPDATE agent_runs SET parent_run_id = NULL WHERE session_id = ?1",
    "DELETE FROM agent_runs WHERE session_id = ?1",
];

/// Deletes session `id` with everything stored about it, inside the caller's write
/// transaction; false if there was none.
pub async fn delete_session_rows<S: Statements + ?Sized>(
    store: &S,
    id: &str,
) -> Result<bool, S::Fault> {
    let sql = |text: &'static str| Sql {
        table: "sessions",
        text,
        names: &[],
        values: vec![id.into()],
    };
    for text in DELETE_CHILDREN {
        execute(store, sql(text)).await?;
    }
    let deleted = execute(store, sql("DELETE FROM sessions WHERE id = ?1")).await?;
    Ok(deleted > 0)
}

/// Deletes session `id` with everything stored about it, after taking its lock, inside a
/// write transaction; false if there was none.
pub async fn delete_session<S: Statements + ?Sized>(store: &S, id: &str) -> Result<bool, S::Fault> {
    let found = Query::value("sessions", "1", &["found"])
        .eq("id", id)
        .for_update();
    if integers(store, &found).await?.is_empty() {
        return Ok(false);
    }
    delete_session_rows(store, id).await
}

/// Sets (or with `None` clears) `agent`'s context mode in `session`, inside a write
/// transaction.
pub async fn set_mode_override<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    agent: &str,
    mode: Option<ContextMode>,
) -> Result<(), S::Fault> {
    store.lock_session(session).await?;
    store
        .write(&mode_override_write(session, agent, mode))
        .await?;
    Ok(())
}

/// The session's mode overrides by agent name.
pub async fn mode_overrides<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<BTreeMap<String, ContextMode>, S::Fault> {
    // One statement: the session's row (none: no such session) joined to its overrides.
    let sql = Sql {
        table: "session_mode_overrides",
        text: "SELECT o.agent_id, o.mode FROM sessions s \
               LEFT JOIN session_mode_overrides o ON o.session_id = s.id WHERE s.id = ?1",
        names: &["agent_id", "mode"],
        values: vec![session.into()],
    };
    let (mut found, mut overrides) = (false, BTreeMap::new());
    store
        .visit(&S::DIALECT.sql(&sql), &mut |row| {
            found = true;
            let (Some(agent), Some(mode)) = (row.opt_text("agent_id")?, row.opt_text("mode")?)
            else {
                return Ok(true);
            };
            let mode = parse_mode(mode).map_err(|error| RowError {
                table: "session_mode_overrides",
                reason: error.to_string(),
            })?;
            overrides.insert(agent.to_owned(), mode);
            Ok(true)
        })
        .await?;
    if !found {
        return Err(ContextError::SessionNotFound(session.to_owned()).into());
    }
    Ok(overrides)
}

/// The text a state value is stored as: masked (a model may echo a secret it read into its
/// notes; it never reaches a store), `None` for JSON `null`, which deletes the key.
pub fn state_text(redactor: &Redactor, value: &serde_json::Value) -> Option<String> {
    let mut value = value.clone();
    redactor.redact_json(&mut value);
    (!value.is_null()).then(|| value.to_string())
}

/// Sets `key` of `session`'s state to `value` (JSON text, masked; `None` deletes it) inside a
/// write transaction, recording that `agent` wrote it.
pub async fn set_state<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    key: &str,
    value: Option<&str>,
    agent: &str,
) -> Result<(), S::Fault> {
    store.lock_session(session).await?;
    let now = super::now_ms();
    store
        .write(&state_write(session, key, value, now, agent))
        .await?;
    store.touch(session, now, 0).await?;
    Ok(())
}

/// The session's state with who set each key and when, in key order (byte by byte, whatever
/// the database's collation).
pub async fn state_entries<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<Vec<StateEntry>, S::Fault> {
    require_session(store, session).await?;
    let query = Query::records::<StateEntry>()
        .eq("session_id", session)
        .order_bytes("key");
    records(store, &query).await
}
