//! [`SessionLog`] for [`PgStore`].

use crate::fault::{Fault, FaultResult};
use crate::store::{PgStore, count, lock_session, new_session_id, now_ms, text};
use crate::write::execute;
use agentctl_core::ContextMode;
use agentctl_store::{
    ContextError, Result, SessionInfo, SessionLog, mode_override_write, parse_mode,
};
use std::collections::BTreeMap;
use tokio_postgres::Row;

const SESSION_COLUMNS: &str = "s.id, s.title, s.created_at, s.updated_at,
    (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.id),
    (SELECT COUNT(*) FROM agent_runs r WHERE r.session_id = s.id)";

fn session_row(row: &Row) -> FaultResult<SessionInfo> {
    Ok(SessionInfo {
        id: row.try_get(0)?,
        title: row.try_get(1)?,
        created_at: row.try_get(2)?,
        updated_at: row.try_get(3)?,
        message_count: count(row.try_get(4)?),
        run_count: count(row.try_get(5)?),
    })
}

/// Deletes session `id` with everything stored about it, inside the caller's transaction;
/// false if there was none.
pub(crate) async fn delete_session_rows(
    tx: &tokio_postgres::Transaction<'_>,
    id: &str,
) -> FaultResult<bool> {
    // Children first: runs reference each other, messages and checkpoints reference runs.
    for sql in [
        "DELETE FROM graph_checkpoints WHERE session_id = $1",
        "DELETE FROM chat_messages WHERE session_id = $1",
        "DELETE FROM agent_run_steps WHERE run_id IN (SELECT id FROM agent_runs WHERE session_id = $1)",
        "UPDATE agent_runs SET parent_run_id = NULL WHERE session_id = $1",
        "DELETE FROM agent_runs WHERE session_id = $1",
    ] {
        tx.execute(sql, &[&id]).await?;
    }
    let deleted = tx
        .execute("DELETE FROM sessions WHERE id = $1", &[&id])
        .await?;
    Ok(deleted > 0)
}

impl SessionLog for PgStore {
    fn create_session(&self, title: Option<&str>) -> Result<SessionInfo> {
        let title = title.map(|title| text(&self.redactor.redact(title)).into_owned());
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let now = now_ms();
            // A clash needs two sessions in the same second with the same 16 random bits.
            loop {
                let id = new_session_id(now);
                let inserted = client
                    .execute(
                        "INSERT INTO sessions (id, title, created_at, updated_at)
                         VALUES ($1, $2, $3, $3) ON CONFLICT (id) DO NOTHING",
                        &[&id, &title, &now],
                    )
                    .await?;
                if inserted == 1 {
                    return Ok(SessionInfo {
                        id,
                        title,
                        created_at: now,
                        updated_at: now,
                        message_count: 0,
                        run_count: 0,
                    });
                }
            }
        })
    }

    fn session(&self, id: &str) -> Result<SessionInfo> {
        let id = id.to_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = $1");
            match client.query_opt(&sql, &[&text(&id)]).await? {
                Some(row) => session_row(&row),
                None => Err(Fault::Context(ContextError::SessionNotFound(id))),
            }
        })
    }

    fn latest_session(&self) -> Result<Option<SessionInfo>> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let sql = format!(
                "SELECT {SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC, s.seq DESC LIMIT 1"
            );
            client
                .query_opt(&sql, &[])
                .await?
                .as_ref()
                .map(session_row)
                .transpose()
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let sql = format!(
                "SELECT {SESSION_COLUMNS} FROM sessions s ORDER BY s.updated_at DESC, s.seq DESC"
            );
            client
                .query(&sql, &[])
                .await?
                .iter()
                .map(session_row)
                .collect()
        })
    }

    fn delete_session(&self, id: &str) -> Result<bool> {
        let id = text(id).into_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            match lock_session(&tx, &id).await {
                Ok(()) => {}
                Err(Fault::Context(ContextError::SessionNotFound(_))) => return Ok(false),
                Err(fault) => return Err(fault),
            }
            let deleted = delete_session_rows(&tx, &id).await?;
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
        let (session, agent) = (session.to_owned(), text(agent).into_owned());
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            lock_session(&tx, &session).await?;
            let session = text(&session);
            execute(&tx, &mode_override_write(&session, &agent, mode)).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn mode_overrides(&self, session: &str) -> Result<BTreeMap<String, ContextMode>> {
        let session = session.to_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            crate::store::require_session(&**client, &session).await?;
            let rows = client
                .query(
                    "SELECT agent_id, mode FROM session_mode_overrides WHERE session_id = $1",
                    &[&text(&session)],
                )
                .await?;
            let mut overrides = BTreeMap::new();
            for row in rows {
                let (agent, mode): (String, String) = (row.try_get(0)?, row.try_get(1)?);
                let mode = parse_mode(&mode)
                    .map_err(|error| Fault::Corrupt("session_mode_overrides", error.to_string()))?;
                overrides.insert(agent, mode);
            }
            Ok(overrides)
        })
    }
}
