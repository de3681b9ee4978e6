//! Compaction summaries and clearing a workspace, as in the SQLite store (the shared
//! operations of `agentctl-store`): one current row per `(session, scope)` updated in place
//! (locked while it is replaced), the summaries it replaced in `chat_context_summary_history`.

use crate::store::{PgStore, text};
use agentctl_store::ops;
use agentctl_store::{
    ClearedContext, ContextError, ContextScope, ContextSummary, MessageId, Result,
};

/// Makes `summary_text` (masked here) the scope's current summary, unless the current one
/// has a further cursor.
pub(crate) fn save(
    store: &PgStore,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> Result<ContextSummary> {
    let summary_text = text(&store.redactor.redact(summary_text)).into_owned();
    let (session, scope) = (text(session).into_owned(), scope.clone());
    store.call(|inner| async move {
        let mut client = inner.pool.get().await?;
        let tx = client.transaction().await?;
        let pg = inner.on(&tx);
        let summary =
            ops::save_summary(&pg, &session, &scope, until_message_id, &summary_text).await?;
        tx.commit().await?;
        Ok(summary)
    })
}

/// Forgets `agent`'s isolated workspace, in `session` or in every session.
pub(crate) fn clear(store: &PgStore, session: Option<&str>, agent: &str) -> Result<ClearedContext> {
    // The isolated workspace of `agent`; an empty name has none.
    if agent.is_empty() {
        return Err(ContextError::InvalidScope("agent:".into()));
    }
    let scope = ContextScope::agent(agent);
    let session = session.map(str::to_owned);
    store.call(|inner| async move {
        let mut client = inner.pool.get().await?;
        let tx = client.transaction().await?;
        let pg = inner.on(&tx);
        let cleared = ops::clear_scope(&pg, session.as_deref(), &scope).await?;
        tx.commit().await?;
        Ok(cleared)
    })
}
