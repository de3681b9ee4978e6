//! Compaction summaries and clearing a workspace, for [`MessageLog`](agentctl_store::MessageLog)
//! on [`SqliteStore`]: the shared operations of `agentctl-store` in write transactions.
//!
//! `chat_context_summaries` holds one row per `(session, scope)`: the scope's current summary,
//! updated in place, so the cursor of every workspace is one row (what seed 001's inspection
//! query lists). Each summary it replaces moves to `chat_context_summary_history`, where
//! nothing reads it but a person inspecting the file.

use super::SqliteStore;
use super::write::{Sqlite, ready};
use agentctl_store::ops;
use agentctl_store::{
    ClearedContext, ContextError, ContextScope, ContextSummary, MessageId, Result,
};

/// Makes `summary_text` (masked here) the scope's current summary, unless the current one
/// has a further cursor.
pub(super) fn save(
    store: &SqliteStore,
    session: &str,
    scope: &ContextScope,
    until_message_id: MessageId,
    summary_text: &str,
) -> Result<ContextSummary> {
    let summary_text = &*store.redactor().redact(summary_text);
    store.write(|tx| {
        let tx = Sqlite(tx);
        ready(ops::save_summary(
            &tx,
            session,
            scope,
            until_message_id,
            summary_text,
        ))
    })
}

/// Forgets `agent`'s isolated workspace, in `session` or in every session.
pub(super) fn clear(
    store: &SqliteStore,
    session: Option<&str>,
    agent: &str,
) -> Result<ClearedContext> {
    // The isolated workspace of `agent`; an empty name has none.
    if agent.is_empty() {
        return Err(ContextError::InvalidScope("agent:".into()));
    }
    let scope = ContextScope::agent(agent);
    store.write(|tx| ready(ops::clear_scope(&Sqlite(tx), session, &scope)))
}
