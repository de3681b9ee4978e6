//! [`SessionLog`] for [`PgStore`].

use crate::fault::{Fault, FaultResult};
use crate::store::{Inner, PgStore, text};
use agentctl_core::ContextMode;
use agentctl_store::ops;
use agentctl_store::{ContextError, Result, SessionInfo, SessionLog};
use std::collections::BTreeMap;

/// Deletes session `id` with everything stored about it, inside the caller's transaction;
/// false if there was none.
pub(crate) async fn delete_session_rows(
    tx: &deadpool_postgres::Transaction<'_>,
    inner: &Inner,
    id: &str,
) -> FaultResult<bool> {
    ops::delete_session_rows(&inner.on(tx), id).await
}

impl SessionLog for PgStore {
    fn create_session(&self, title: Option<&str>) -> Result<SessionInfo> {
        let title = title.map(|title| text(&self.redactor.redact(title)).into_owned());
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::create_session(&inner.on(&client), title.as_deref()).await
        })
    }

    fn session(&self, id: &str) -> Result<SessionInfo> {
        let id = id.to_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let found = ops::read_sessions(&inner.on(&client), Some(&id), None).await?;
            found
                .into_iter()
                .next()
                .ok_or(Fault::Context(ContextError::SessionNotFound(id)))
        })
    }

    fn latest_session(&self) -> Result<Option<SessionInfo>> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let found = ops::read_sessions(&inner.on(&client), None, Some(1)).await?;
            Ok(found.into_iter().next())
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::read_sessions(&inner.on(&client), None, None).await
        })
    }

    fn delete_session(&self, id: &str) -> Result<bool> {
        let id = text(id).into_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let deleted = ops::delete_session(&inner.on(&tx), &id).await?;
            tx.commit().await?;
            Ok(deleted)
        })
    }

    fn set_mode_override(
        &self,
        session: &str,
        agent: &str,
        mode: Option<ContextMode>,
    ) -> Result<()> {
        let (session, agent) = (session.to_owned(), agent.to_owned());
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            ops::set_mode_override(&inner.on(&tx), &session, &agent, mode).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn mode_overrides(&self, session: &str) -> Result<BTreeMap<String, ContextMode>> {
        let session = session.to_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            ops::mode_overrides(&inner.on(&client), &session).await
        })
    }
}
