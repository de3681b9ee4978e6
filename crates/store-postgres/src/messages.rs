//! [`MessageLog`] for [`PgStore`].

use crate::fault::{Fault, FaultResult};
use crate::store::{PgStore, lock_session, now_ms, require_session, text, touch};
use crate::summaries;
use crate::write::{execute, read};
use agentctl_core::Redactor;
use agentctl_store::{
    ClearedContext, ContextError, ContextScope, ContextSummary, MAIN_TIMELINE, MessageId,
    MessageLog, MessageQuery, MessageRow, NewMessage, ReplacedSummary, Result, RunId, Source,
    StoredMessage, select_list,
};
use tokio_postgres::types::ToSql;

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

/// Inserts prepared messages inside the caller's transaction (which holds the session's
/// lock) and touches the session. A message that names no source takes `source`.
pub(crate) async fn insert(
    tx: &deadpool_postgres::Transaction<'_>,
    session: &str,
    run: Option<RunId>,
    source: &Source,
    messages: &[MessageRow],
) -> FaultResult<Vec<MessageId>> {
    let now = now_ms();
    let mut ids = Vec::with_capacity(messages.len());
    for message in messages {
        let id = execute(tx, &message.write(session, run, source, now)).await?;
        ids.extend(id);
    }
    touch(tx, &text(session), now).await?;
    Ok(ids)
}

/// The isolated workspace of `agent`; an empty name has none.
fn agent_scope(agent: &str) -> Result<ContextScope> {
    if agent.is_empty() {
        return Err(ContextError::InvalidScope("agent:".into()));
    }
    Ok(ContextScope::agent(agent))
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
            lock_session(&tx, &session).await?;
            let source = match run {
                Some(run) => tx
                    .query_opt("SELECT source FROM agent_runs WHERE id = $1", &[&run])
                    .await?
                    .map(|row| row.try_get::<_, String>(0))
                    .transpose()?,
                None => None,
            }
            .map_or_else(Source::default, Source::stored);
            let ids = insert(&tx, &session, run, &source, &prepared).await?;
            tx.commit().await?;
            Ok(ids)
        })
    }

    fn messages(&self, session: &str, query: &MessageQuery) -> Result<Vec<StoredMessage>> {
        let session = text(session).into_owned();
        let query = query.clone();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            let scope = query
                .scope
                .as_ref()
                .map(|scope| text(&scope.to_string()).into_owned());
            let last = query
                .last
                .map(|last| i64::try_from(last).unwrap_or(i64::MAX));
            let columns = select_list::<StoredMessage>();
            let mut sql = format!("SELECT {columns} FROM chat_messages WHERE session_id = $1");
            let mut params: Vec<&(dyn ToSql + Sync)> = vec![&session];
            if query.visible_only {
                params.push(&MAIN_TIMELINE);
                sql.push_str(&format!(
                    " AND timeline_scope = ${} AND visible = 1",
                    params.len()
                ));
            }
            if let Some(scope) = &scope {
                params.push(scope);
                sql.push_str(&format!(" AND context_scope = ${}", params.len()));
            }
            if let Some(after) = &query.after_id {
                params.push(after);
                sql.push_str(&format!(" AND id > ${}", params.len()));
            }
            match &last {
                Some(last) => {
                    params.push(last);
                    sql.push_str(&format!(" ORDER BY id DESC LIMIT ${}", params.len()));
                }
                None => sql.push_str(" ORDER BY id"),
            }
            let statement = client.prepare_cached(&sql).await?;
            let rows = client.query(&statement, &params).await?;
            let mut messages = rows.iter().map(read).collect::<FaultResult<Vec<_>>>()?;
            if last.is_some() {
                messages.reverse();
            }
            Ok(messages)
        })
    }

    fn scopes(&self, session: &str) -> Result<Vec<ContextScope>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            let rows = client
                .query(
                    "SELECT context_scope FROM chat_messages WHERE session_id = $1
                     GROUP BY context_scope ORDER BY MIN(id)",
                    &[&session],
                )
                .await?;
            rows.iter()
                .map(|row| {
                    let scope: String = row.try_get(0)?;
                    scope
                        .parse()
                        .map_err(|_| Fault::Corrupt("chat_messages", format!("scope `{scope}`")))
                })
                .collect()
        })
    }

    fn save_summary(
        &self,
        session: &str,
        scope: &ContextScope,
        until_message_id: MessageId,
        summary_text: &str,
    ) -> Result<ContextSummary> {
        let summary_text = text(&self.redactor.redact(summary_text)).into_owned();
        let (session, scope) = (session.to_owned(), scope.clone());
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            let summary =
                summaries::save(&tx, &session, &scope, until_message_id, &summary_text).await?;
            tx.commit().await?;
            Ok(summary)
        })
    }

    fn latest_summary(
        &self,
        session: &str,
        scope: &ContextScope,
    ) -> Result<Option<ContextSummary>> {
        let (session, scope) = (session.to_owned(), scope.clone());
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            summaries::latest(&**client, &session, &scope).await
        })
    }

    fn replaced_summaries(&self, session: &str) -> Result<Vec<ReplacedSummary>> {
        let session = session.to_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            require_session(&**client, &session).await?;
            summaries::replaced(&**client, &session).await
        })
    }

    fn clear_agent_context(&self, agent: &str) -> Result<ClearedContext> {
        let scope = agent_scope(agent)?;
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let cleared = summaries::clear(&tx, None, &scope).await?;
            tx.commit().await?;
            Ok(cleared)
        })
    }

    fn clear_agent_context_in(&self, session: &str, agent: &str) -> Result<ClearedContext> {
        let scope = agent_scope(agent)?;
        let session = session.to_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            let cleared = summaries::clear(&tx, Some(&session), &scope).await?;
            tx.commit().await?;
            Ok(cleared)
        })
    }
}
