//! Compaction summaries and clearing a workspace, as in the SQLite store: one current row per
//! `(session, scope)` updated in place, the summaries it replaced in
//! `chat_context_summary_history`.

use crate::fault::FaultResult;
use crate::store::{count, now_ms, text, touch};
use crate::write::read;
use agentctl_store::{
    ClearedContext, ContextScope, ContextSummary, MessageId, ReplacedSummary, select_list,
};
use tokio_postgres::GenericClient;
use tokio_postgres::types::ToSql;

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

async fn current(
    client: &impl GenericClient,
    session: &str,
    scope: &str,
    lock: bool,
) -> FaultResult<Option<Current>> {
    let sql = if lock {
        "SELECT id, until_message_id, summary_text, created_at, updated_at
         FROM chat_context_summaries WHERE session_id = $1 AND scope = $2 FOR UPDATE"
    } else {
        "SELECT id, until_message_id, summary_text, created_at, updated_at
         FROM chat_context_summaries WHERE session_id = $1 AND scope = $2"
    };
    let Some(row) = client.query_opt(sql, &[&session, &scope]).await? else {
        return Ok(None);
    };
    Ok(Some(Current {
        id: row.try_get(0)?,
        until_message_id: row.try_get(1)?,
        summary_text: row.try_get(2)?,
        created_at: row.try_get(3)?,
        updated_at: row.try_get(4)?,
    }))
}

async fn archive(
    tx: &tokio_postgres::Transaction<'_>,
    session: &str,
    scope: &str,
    until_message_id: MessageId,
    summary_text: &str,
    written_at: i64,
    replaced_at: i64,
) -> FaultResult<()> {
    tx.execute(
        "INSERT INTO chat_context_summary_history
             (session_id, scope, until_message_id, summary_text, created_at, replaced_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &session,
            &scope,
            &until_message_id,
            &summary_text,
            &written_at,
            &replaced_at,
        ],
    )
    .await?;
    Ok(())
}

/// Makes `summary_text` the scope's current summary inside the caller's transaction (which
/// holds the session's lock), unless the current one has a further cursor: that one stays
/// current and the new one goes straight to history. Returns the current summary.
pub(crate) async fn save(
    tx: &tokio_postgres::Transaction<'_>,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> FaultResult<ContextSummary> {
    let session = text(session);
    let scope_text = text(&scope.to_string()).into_owned();
    let now = now_ms();
    let saved = match current(tx, &session, &scope_text, true).await? {
        None => {
            let row = tx
                .query_one(
                    "INSERT INTO chat_context_summaries
                         (session_id, scope, until_message_id, summary_text, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $5) RETURNING id",
                    &[
                        &session,
                        &scope_text,
                        &until_message_id,
                        &summary_text,
                        &now,
                    ],
                )
                .await?;
            Current {
                id: row.try_get(0)?,
                until_message_id,
                summary_text: summary_text.to_owned(),
                created_at: now,
                updated_at: now,
            }
        }
        // Equal cursors: the newer text wins.
        Some(old) if until_message_id >= old.until_message_id => {
            archive(
                tx,
                &session,
                &scope_text,
                old.until_message_id,
                &old.summary_text,
                old.updated_at,
                now,
            )
            .await?;
            tx.execute(
                "UPDATE chat_context_summaries
                 SET until_message_id = $2, summary_text = $3, updated_at = $4 WHERE id = $1",
                &[&old.id, &until_message_id, &summary_text, &now],
            )
            .await?;
            Current {
                until_message_id,
                summary_text: summary_text.to_owned(),
                updated_at: now,
                ..old
            }
        }
        Some(further) => {
            archive(
                tx,
                &session,
                &scope_text,
                until_message_id,
                summary_text,
                now,
                now,
            )
            .await?;
            further
        }
    };
    touch(tx, &session, now).await?;
    Ok(saved.into_summary(scope))
}

/// The scope's current summary.
pub(crate) async fn latest(
    client: &impl GenericClient,
    session: &str,
    scope: &ContextScope,
) -> FaultResult<Option<ContextSummary>> {
    Ok(
        current(client, &text(session), &text(&scope.to_string()), false)
            .await?
            .map(|row| row.into_summary(scope)),
    )
}

/// The session's replaced summaries, oldest first.
pub(crate) async fn replaced(
    client: &impl GenericClient,
    session: &str,
) -> FaultResult<Vec<ReplacedSummary>> {
    let columns = select_list::<ReplacedSummary>();
    client
        .query(
            &format!(
                "SELECT {columns} FROM chat_context_summary_history WHERE session_id = $1 \
                 ORDER BY id"
            ),
            &[&text(session)],
        )
        .await?
        .iter()
        .map(read)
        .collect()
}

/// Deletes the messages and summaries (current and replaced) of `scope`, in `session` or in
/// every session, inside the caller's transaction. Runs and their steps stay.
pub(crate) async fn clear(
    tx: &tokio_postgres::Transaction<'_>,
    session: Option<&str>,
    scope: &ContextScope,
) -> FaultResult<ClearedContext> {
    let scope = text(&scope.to_string()).into_owned();
    let session = session.map(|session| text(session).into_owned());
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&scope];
    let filter = match &session {
        Some(session) => {
            params.push(session);
            "session_id = $2 AND"
        }
        None => "",
    };
    let sessions: i64 = tx
        .query_one(
            &format!(
                "SELECT COUNT(DISTINCT session_id) FROM (
                     SELECT session_id FROM chat_messages WHERE {filter} context_scope = $1
                     UNION ALL SELECT session_id FROM chat_context_summaries
                         WHERE {filter} scope = $1
                     UNION ALL SELECT session_id FROM chat_context_summary_history
                         WHERE {filter} scope = $1) AS touched"
            ),
            &params,
        )
        .await?
        .try_get(0)?;
    let messages = tx
        .execute(
            &format!("DELETE FROM chat_messages WHERE {filter} context_scope = $1"),
            &params,
        )
        .await?;
    let summaries = tx
        .execute(
            &format!("DELETE FROM chat_context_summaries WHERE {filter} scope = $1"),
            &params,
        )
        .await?
        + tx.execute(
            &format!("DELETE FROM chat_context_summary_history WHERE {filter} scope = $1"),
            &params,
        )
        .await?;
    Ok(ClearedContext {
        sessions: count(sessions),
        messages,
        summaries,
    })
}
