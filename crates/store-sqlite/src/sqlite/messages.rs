//! [`MessageLog`] for [`SqliteStore`].

use super::sessions::require_session;
use super::write::{execute, read};
use super::{Fault, FaultResult, SqliteStore, now_ms, summaries};
use agentctl_core::Redactor;
use agentctl_store::{
    ClearedContext, ContextError, ContextScope, ContextSummary, MAIN_TIMELINE, MessageId,
    MessageLog, MessageQuery, MessageRow, NewMessage, ReplacedSummary, Result, RunId, Source,
    StoredMessage, select_list,
};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

/// Inserts messages inside the caller's transaction and touches the session. A message that
/// names no source takes `source` (its run's, or the default without a run).
pub(crate) fn insert_messages(
    conn: &Connection,
    redactor: &Redactor,
    session: &str,
    run: Option<RunId>,
    source: &Source,
    messages: &[NewMessage],
) -> FaultResult<Vec<MessageId>> {
    let now = now_ms();
    let mut ids = Vec::with_capacity(messages.len());
    for new in messages {
        let write = MessageRow::new(redactor, new)?.write(session, run, source, now);
        execute(conn, &write)?;
        ids.push(conn.last_insert_rowid());
    }
    // The count of the session's messages (schema v7) is kept here, not by a trigger per row.
    conn.prepare_cached(
        "UPDATE sessions SET updated_at = ?2, message_count = message_count + ?3 WHERE id = ?1",
    )?
    .execute(params![
        session,
        now,
        i64::try_from(ids.len()).unwrap_or(i64::MAX)
    ])?;
    Ok(ids)
}

/// The statement reading `query`'s messages, and its parameters. When only the newest are
/// wanted (`last`, `max_tokens`) the rows come newest first, so the index
/// `(session_id, context_scope, id)` (or the timeline's) is walked from its end and reading
/// can stop at the limit.
fn select_messages(session: &str, query: &MessageQuery) -> (String, Vec<Value>) {
    let columns = select_list::<StoredMessage>();
    let mut sql = format!("SELECT {columns} FROM chat_messages WHERE session_id = ?");
    let mut values = vec![Value::Text(session.to_owned())];
    if query.visible_only {
        sql.push_str(" AND timeline_scope = ? AND visible = 1");
        values.push(Value::Text(MAIN_TIMELINE.to_owned()));
    }
    if let Some(scope) = &query.scope {
        sql.push_str(" AND context_scope = ?");
        values.push(Value::Text(scope.to_string()));
    }
    if let Some(after) = query.after_id {
        sql.push_str(" AND id > ?");
        values.push(Value::Integer(after));
    }
    match query.last {
        Some(last) => {
            sql.push_str(" ORDER BY id DESC LIMIT ?");
            values.push(Value::Integer(i64::try_from(last).unwrap_or(i64::MAX)));
        }
        None if query.max_tokens.is_some() => sql.push_str(" ORDER BY id DESC"),
        None => sql.push_str(" ORDER BY id"),
    }
    (sql, values)
}

impl MessageLog for SqliteStore {
    fn append_messages(
        &self,
        session: &str,
        run: Option<RunId>,
        messages: &[NewMessage],
    ) -> Result<Vec<MessageId>> {
        self.write(|tx| {
            require_session(tx, session)?;
            let source = match run {
                Some(run) => tx
                    .prepare_cached("SELECT source FROM agent_runs WHERE id = ?1")?
                    .query_row([run], |row| row.get(0))
                    .optional()?
                    .map(Source::stored),
                None => None,
            }
            .unwrap_or_default();
            insert_messages(tx, self.redactor(), session, run, &source, messages)
        })
    }

    fn messages(&self, session: &str, query: &MessageQuery) -> Result<Vec<StoredMessage>> {
        self.with(|conn| {
            require_session(conn, session)?;
            let (sql, values) = select_messages(session, query);
            let newest_first = query.last.is_some() || query.max_tokens.is_some();
            let mut statement = conn.prepare_cached(&sql)?;
            let mut rows = statement.query(params_from_iter(values))?;
            let mut messages = Vec::new();
            let mut tokens = 0u64;
            while let Some(row) = rows.next()? {
                if let Some(max_tokens) = query.max_tokens {
                    // The estimate is a column of its own: a message that does not fit is
                    // never decoded.
                    let estimate = u64::try_from(row.get::<_, i64>(6)?).unwrap_or(0);
                    tokens = tokens.saturating_add(estimate);
                    if tokens > max_tokens {
                        break;
                    }
                }
                messages.push(read(row)?);
            }
            if newest_first {
                messages.reverse();
            }
            Ok(messages)
        })
    }

    fn scope_tokens(
        &self,
        session: &str,
        scope: &ContextScope,
        after_id: Option<MessageId>,
        limit: u64,
    ) -> Result<u64> {
        self.with(|conn| {
            require_session(conn, session)?;
            let mut statement = conn.prepare_cached(
                "SELECT token_estimate FROM chat_messages
                 WHERE session_id = ?1 AND context_scope = ?2 AND id > ?3 ORDER BY id DESC",
            )?;
            let mut rows = statement.query(params![
                session,
                scope.to_string(),
                after_id.unwrap_or(i64::MIN)
            ])?;
            let mut tokens = 0u64;
            while tokens <= limit {
                let Some(row) = rows.next()? else { break };
                tokens = tokens.saturating_add(u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0));
            }
            Ok(tokens)
        })
    }

    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>> {
        self.with(|conn| {
            require_session(conn, session)?;
            let mut statement = conn.prepare(
                "SELECT context_scope FROM chat_messages WHERE session_id = ?1
                 GROUP BY context_scope ORDER BY MIN(id)",
            )?;
            let rows = statement.query_map([session], |row| row.get::<_, String>(0))?;
            let mut scopes = Vec::new();
            for row in rows {
                let text = row?;
                scopes.push(
                    text.parse()
                        .map_err(|_| Fault::Corrupt("chat_messages", format!("scope `{text}`")))?,
                );
            }
            Ok(scopes)
        })
    }

    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        summary_text: &str,
    ) -> Result<ContextSummary> {
        let summary_text = &*self.redactor().redact(summary_text);
        self.write(|tx| {
            require_session(tx, session)?;
            summaries::save(tx, session, scope, until_message_id, summary_text)
        })
    }

    fn latest_summary(
        &self,
        session: &str,
        scope: &ContextScope,
    ) -> Result<Option<ContextSummary>> {
        self.with(|conn| summaries::latest(conn, session, scope))
    }

    fn replaced_summaries(&self, session: &str) -> Result<Vec<ReplacedSummary>> {
        self.with(|conn| {
            require_session(conn, session)?;
            summaries::replaced(conn, session)
        })
    }

    fn clear_agent_context(&self, agent: &str) -> Result<ClearedContext> {
        let scope = agent_scope(agent)?;
        self.write(|tx| summaries::clear(tx, None, &scope))
    }

    fn clear_agent_context_in(&self, session: &str, agent: &str) -> Result<ClearedContext> {
        let scope = agent_scope(agent)?;
        self.write(|tx| {
            require_session(tx, session)?;
            summaries::clear(tx, Some(session), &scope)
        })
    }
}

/// The isolated workspace of `agent`; an empty name has none.
fn agent_scope(agent: &str) -> Result<ContextScope> {
    if agent.is_empty() {
        return Err(ContextError::InvalidScope("agent:".into()));
    }
    Ok(ContextScope::agent(agent))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite's plan for `sql` with `values`, one detail line per step.
    fn plan(store: &SqliteStore, sql: &str, values: Vec<Value>) -> Vec<String> {
        store
            .with(|conn| {
                let mut statement = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let rows = statement.query_map(params_from_iter(values), |row| row.get(3))?;
                Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
            })
            .unwrap()
    }

    #[test]
    fn windows_walk_the_scope_index_from_its_end_without_sorting() {
        let store = SqliteStore::open_in_memory().unwrap();
        let budgeted = MessageQuery {
            after_id: Some(7),
            max_tokens: Some(96_000),
            ..MessageQuery::scope(ContextScope::agent("a"))
        };
        let capped = MessageQuery {
            last: Some(100),
            max_tokens: Some(96_000),
            ..MessageQuery::scope(ContextScope::Main)
        };
        for query in [budgeted, capped] {
            let (sql, values) = select_messages("s", &query);
            let steps = plan(&store, &sql, values);
            assert_eq!(steps.len(), 1, "{steps:?}");
            assert!(
                steps[0].contains("USING INDEX idx_chat_messages_context"),
                "{steps:?}"
            );
        }
        let steps = plan(
            &store,
            "SELECT token_estimate FROM chat_messages
             WHERE session_id = ?1 AND context_scope = ?2 AND id > ?3 ORDER BY id DESC",
            vec![
                Value::Text("s".into()),
                Value::Text("main".into()),
                Value::Integer(0),
            ],
        );
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert!(steps[0].contains("idx_chat_messages_context"), "{steps:?}");
    }
}
