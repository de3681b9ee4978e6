//! Compaction summaries and clearing a workspace, as in the SQLite store: one current row per
//! `(session, scope)` updated in place, the summaries it replaced in
//! `chat_context_summary_history`.

use crate::fault::FaultResult;
use crate::store::{count, now_ms, text, touch};
use crate::write::{execute, read};
use agentctl_store::{
    ClearedContext, ContextScope, ContextSummary, MessageId, ReplacedSummary, SummarySave,
    select_list,
};
use tokio_postgres::GenericClient;
use tokio_postgres::types::ToSql;

/// The scope's current summary row, locked for the transaction with `lock`.
async fn current(
    client: &impl GenericClient,
    session: &str,
    scope: &str,
    lock: bool,
) -> FaultResult<Option<ContextSummary>> {
    let columns = select_list::<ContextSummary>();
    let lock = if lock { " FOR UPDATE" } else { "" };
    let sql = format!(
        "SELECT {columns} FROM chat_context_summaries WHERE session_id = $1 AND scope = $2{lock}"
    );
    client
        .query_opt(&sql, &[&session, &scope])
        .await?
        .as_ref()
        .map(read)
        .transpose()
}

/// Makes `summary_text` the scope's current summary inside the caller's transaction (which
/// holds the session's lock), unless the current one has a further cursor (see
/// [`SummarySave`]). Returns the current summary.
pub(crate) async fn save(
    tx: &deadpool_postgres::Transaction<'_>,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> FaultResult<ContextSummary> {
    let session = text(session);
    let now = now_ms();
    let found = current(&**tx, &session, &text(&scope.to_string()), true).await?;
    let save = SummarySave::new(&session, scope, until_message_id, summary_text, found, now);
    let mut new_id = None;
    for write in &save.writes {
        new_id = execute(tx, write).await?.or(new_id);
    }
    touch(tx, &session, now).await?;
    Ok(save.saved(new_id))
}

/// The scope's current summary.
pub(crate) async fn latest(
    client: &impl GenericClient,
    session: &str,
    scope: &ContextScope,
) -> FaultResult<Option<ContextSummary>> {
    current(client, &text(session), &text(&scope.to_string()), false).await
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
