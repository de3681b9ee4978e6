//! Messages, their workspaces, compaction summaries and clearing a workspace.

use super::{Statements, Touch, first, now_ms, records, require_session, texts};
use crate::record::{
    ClearedContext, ContextSummary, MAIN_TIMELINE, MessageId, MessageQuery, ReplacedSummary, RunId,
    StoredMessage,
};
use crate::rows::{MessageRow, SummarySave};
use crate::schema::{Query, RowError, Sql, WriteKind};
use crate::scope::ContextScope;
use crate::source::Source;

/// Appends masked messages to `session` (in `run`, whose source they take; without a run,
/// the default source) inside a write transaction.
pub async fn append_messages<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    run: Option<RunId>,
    messages: &[MessageRow],
) -> Result<Vec<MessageId>, S::Fault> {
    store.lock_session(session).await?;
    let source = match run {
        Some(run) => {
            let query = Query::value("agent_runs", "source", &["source"]).eq("id", run);
            texts(store, &query).await?.into_iter().next()
        }
        None => None,
    };
    let source = source.map_or_else(Source::default, Source::stored);
    let now = now_ms();
    let writes: Vec<_> = messages
        .iter()
        .map(|message| message.write(session, run, &source, now))
        .collect();
    store.write_all(&writes, Touch { session, now }).await
}

/// The read of `query`'s messages of `session`. When only the newest are wanted (`last`,
/// `max_tokens`) the rows come newest first, so the index `(session_id, context_scope, id)`
/// (or the timeline's) is walked from its end and reading can stop at the limit.
pub fn message_query(session: &str, query: &MessageQuery) -> Query {
    let mut read = Query::records::<StoredMessage>().eq("session_id", session);
    if query.visible_only {
        read = read.eq("timeline_scope", MAIN_TIMELINE).when("visible = 1");
    }
    if let Some(scope) = &query.scope {
        read = read.eq("context_scope", scope.to_string());
    }
    if let Some(after) = query.after_id {
        read = read.after("id", after);
    }
    match query.last {
        Some(last) => read
            .order_desc("id")
            .limit(i64::try_from(last).unwrap_or(i64::MAX)),
        None if query.max_tokens.is_some() => read.order_desc("id"),
        None => read.order_by("id"),
    }
}

/// `query`'s messages of `session`, oldest first. With `max_tokens` the estimate is read
/// before the message: one that does not fit is never decoded, and reading stops there.
pub async fn read_messages<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    query: &MessageQuery,
) -> Result<Vec<StoredMessage>, S::Fault> {
    require_session(store, session).await?;
    let statement = S::DIALECT.query(&message_query(session, query));
    let mut messages = Vec::new();
    let mut tokens = 0u64;
    store
        .visit(&statement, &mut |row| {
            if let Some(max_tokens) = query.max_tokens {
                let estimate = u64::try_from(row.integer("token_estimate")?).unwrap_or(0);
                tokens = tokens.saturating_add(estimate);
                if tokens > max_tokens {
                    return Ok(false);
                }
            }
            messages.push(crate::schema::FromRow::from_row(row)?);
            Ok(true)
        })
        .await?;
    if query.last.is_some() || query.max_tokens.is_some() {
        messages.reverse();
    }
    Ok(messages)
}

/// The read of the token estimates of `scope`'s messages after `after_id`, newest first
/// (walking the index `(session_id, context_scope, id)` from its end).
pub fn scope_tokens_query(
    session: &str,
    scope: &ContextScope,
    after_id: Option<MessageId>,
) -> Query {
    Query::value("chat_messages", "token_estimate", &["token_estimate"])
        .eq("session_id", session)
        .eq("context_scope", scope.to_string())
        .after("id", after_id.unwrap_or(i64::MIN))
        .order_desc("id")
}

/// Estimated tokens of `scope`'s messages after `after_id`, counted newest first until the
/// count passes `limit` (see [`MessageLog::scope_tokens`](crate::MessageLog::scope_tokens)):
/// only the estimates are read, and reading stops there.
pub async fn scope_tokens<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    (scope, after_id): (&ContextScope, Option<MessageId>),
    limit: u64,
) -> Result<u64, S::Fault> {
    require_session(store, session).await?;
    let statement = S::DIALECT.query(&scope_tokens_query(session, scope, after_id));
    let mut tokens = 0u64;
    store
        .visit(&statement, &mut |row| {
            let estimate = u64::try_from(row.integer("token_estimate")?).unwrap_or(0);
            tokens = tokens.saturating_add(estimate);
            Ok(tokens <= limit)
        })
        .await?;
    Ok(tokens)
}

/// The workspaces of `session` that hold messages, in order of first use.
pub async fn scopes<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<Vec<ContextScope>, S::Fault> {
    require_session(store, session).await?;
    let query = Query::value("chat_messages", "context_scope", &["context_scope"])
        .eq("session_id", session)
        .group_by("context_scope")
        .order_by("MIN(id)");
    let mut scopes = Vec::new();
    for text in texts(store, &query).await? {
        scopes.push(text.parse().map_err(|_| RowError {
            table: "chat_messages",
            reason: format!("scope `{text}`"),
        })?);
    }
    Ok(scopes)
}

/// The scope's current summary; locked for the transaction with `lock`, where the store
/// locks rows.
async fn current<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    scope: &ContextScope,
    lock: bool,
) -> Result<Option<ContextSummary>, S::Fault> {
    let mut query = Query::records::<ContextSummary>()
        .eq("session_id", session)
        .eq("scope", scope.to_string());
    if lock {
        query = query.for_update();
    }
    first(store, &query).await
}

/// Makes `summary_text` (masked) the scope's current summary inside a write transaction,
/// unless the current one has a further cursor (see [`SummarySave`]). Returns the current
/// summary.
pub async fn save_summary<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> Result<ContextSummary, S::Fault> {
    store.lock_session(session).await?;
    let now = now_ms();
    let found = current(store, session, scope, true).await?;
    let save = SummarySave::new(session, scope, until_message_id, summary_text, found, now);
    let mut new_id = None;
    for write in &save.writes {
        if write.kind == WriteKind::InsertReturningId {
            new_id = Some(store.insert(write).await?);
        } else {
            store.write(write).await?;
        }
    }
    store.touch(session, now, 0).await?;
    Ok(save.saved(new_id))
}

/// The scope's current summary.
pub async fn latest_summary<S: Statements + ?Sized>(
    store: &S,
    session: &str,
    scope: &ContextScope,
) -> Result<Option<ContextSummary>, S::Fault> {
    current(store, session, scope, false).await
}

/// The session's replaced summaries, oldest first.
pub async fn replaced_summaries<S: Statements + ?Sized>(
    store: &S,
    session: &str,
) -> Result<Vec<ReplacedSummary>, S::Fault> {
    require_session(store, session).await?;
    let query = Query::records::<ReplacedSummary>()
        .eq("session_id", session)
        .order_by("id");
    records(store, &query).await
}

/// How many sessions hold anything of workspace `?1` (in session `?2`, for the second).
const TOUCHED: [&str; 2] = [
    "SELECT COUNT(DISTINCT session_id) FROM (
         SELECT session_id FROM chat_messages WHERE context_scope = ?1
         UNION ALL SELECT session_id FROM chat_context_summaries WHERE scope = ?1
         UNION ALL SELECT session_id FROM chat_context_summary_history WHERE scope = ?1
     ) AS touched",
    "SELECT COUNT(DISTINCT session_id) FROM (
         SELECT session_id FROM chat_messages WHERE session_id = ?2 AND context_scope = ?1
         UNION ALL SELECT session_id FROM chat_context_summaries
             WHERE session_id = ?2 AND scope = ?1
         UNION ALL SELECT session_id FROM chat_context_summary_history
             WHERE session_id = ?2 AND scope = ?1
     ) AS touched",
];

/// Deletes the messages and summaries (current and replaced) of `scope`, in `session` (whose
/// lock is taken) or in every session, inside a write transaction. Runs and their steps stay.
pub async fn clear_scope<S: Statements + ?Sized>(
    store: &S,
    session: Option<&str>,
    scope: &ContextScope,
) -> Result<ClearedContext, S::Fault> {
    let scope = scope.to_string();
    if let Some(session) = session {
        store.lock_session(session).await?;
    }
    let mut values = vec![scope.as_str().into()];
    values.extend(session.map(Into::into));
    let touched = Sql {
        table: "chat_messages",
        text: TOUCHED[usize::from(session.is_some())],
        names: &["sessions"],
        values,
    };
    let sessions = super::column(store, &S::DIALECT.sql(&touched), |row, name| {
        row.integer(name)
    })
    .await?;
    let delete = |table: &'static str, column: &'static str| {
        let query = Query::delete(table).eq(column, scope.as_str());
        match session {
            Some(session) => query.eq("session_id", session),
            None => query,
        }
    };
    let messages = store
        .execute(&S::DIALECT.query(&delete("chat_messages", "context_scope")))
        .await?;
    let summaries = store
        .execute(&S::DIALECT.query(&delete("chat_context_summaries", "scope")))
        .await?
        + store
            .execute(&S::DIALECT.query(&delete("chat_context_summary_history", "scope")))
            .await?;
    Ok(ClearedContext {
        sessions: sessions
            .first()
            .map_or(0, |count| u64::try_from(*count).unwrap_or(0)),
        messages,
        summaries,
    })
}
