//! [`MessageLog`] for [`PgStore`]: the shared operations of `agentctl-store` in transactions
//! that lock their session.

use crate::fault::FaultResult;
use crate::store::{PgStore, text};
use crate::summaries;
use agentctl_core::Redactor;
use agentctl_store::ops;
use agentctl_store::{
    ClearedContext, ContextScope, ContextSummary, MessageId, MessageLog, MessageQuery, MessageRow,
    NewMessage, ReplacedSummary, Result, RunId, StoredMessage,
};

/// Masks and serialises messages on the caller's thread, so the store's thread only sends.
pub(crate) fn prepare(
    redactor: &Redactor,
    messages: &[NewMessage],
) -> FaultResult<Vec<MessageRow>> {
    Ok(messages
        .iter()
        .map(|new| MessageRow::new(redactor, new))
        .collect::<std::result::Result<_, _>>()?)
}

impl MessageLog for PgStore {
    fn append_messages(
        &self,
        session: &str,
        run: Option<RunId>,
        messages: &[NewMessage],
    ) -> Result<Vec<MessageId>> {
        let prepared = prepare(&self.redactor, messages).map_err(|fault| self.error(fault))?;
        let session = session.to_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let pg = inner.on(&tx);
            let ids = ops::append_messages(&pg, &session, run, &prepared).await?;
            tx.commit().await?;
            Ok(ids)
        })
    }

    fn messages(&self, session: &str, query: &MessageQuery) -> Result<Vec<StoredMessage>> {
        let session = text(session).into_owned();
        let query = query.clone();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let pg = inner.on(&client);
            ops::read_messages(&pg, &session, &query).await
        })
    }

    fn scope_tokens(
        &self,
        session: &str,
        scope: &ContextScope,
        after_id: Option<MessageId>,
        limit: u64,
    ) -> Result<u64> {
        let (session, scope) = (text(session).into_owned(), scope.clone());
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let window = (&scope, after_id);
            ops::scope_tokens(&inner.on(&client), &session, window, limit).await
        })
    }

    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let pg = inner.on(&client);
            ops::scopes(&pg, &session).await
        })
    }

    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        summary_text: &str,
    ) -> Result<ContextSummary> {
        summaries::save(self, session, scope, until_message_id, summary_text)
    }

    fn latest_summary(
        &self,
        session: &str,
        scope: &ContextScope,
    ) -> Result<Option<ContextSummary>> {
        let (session, scope) = (text(session).into_owned(), scope.clone());
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let pg = inner.on(&client);
            ops::latest_summary(&pg, &session, &scope).await
        })
    }

    fn replaced_summaries(&self, session: &str) -> Result<Vec<ReplacedSummary>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let pg = inner.on(&client);
            ops::replaced_summaries(&pg, &session).await
        })
    }

    fn clear_agent_context(&self, agent: &str) -> Result<ClearedContext> {
        summaries::clear(self, None, agent)
    }

    fn clear_agent_context_in(&self, session: &str, agent: &str) -> Result<ClearedContext> {
        summaries::clear(self, Some(session), agent)
    }
}
