//! [`SessionImport`] for [`PgStore`]: a whole session from another store in one transaction,
//! with the server's own ids (see [`agentctl_store::SessionBundle`]); an earlier copy
//! replaced the same way; the session's mark of its last copy (`session_sync`).

use crate::fault::{Fault, FaultResult};
use crate::sessions::delete_session_rows;
use crate::store::{PgStore, count, now_ms, text};
use crate::write::execute;
use agentctl_store::{
    ContextError, ImportOutcome, ImportPlan, Result, RowError, SessionBundle, SessionImport,
    SessionInfo, SyncMark, same_version, sync_mark_write,
};

/// The session's row as [`same_version`] compares it, locked for the transaction; `None`
/// when there is none.
async fn session_version(
    tx: &tokio_postgres::Transaction<'_>,
    id: &str,
) -> FaultResult<Option<SessionInfo>> {
    let Some(row) = tx
        .query_opt(
            "SELECT s.title, s.created_at, s.updated_at,
                 (SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.id),
                 (SELECT COUNT(*) FROM agent_runs r WHERE r.session_id = s.id)
             FROM sessions s WHERE s.id = $1 FOR UPDATE",
            &[&id],
        )
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(SessionInfo {
        id: id.to_owned(),
        title: row.try_get(0)?,
        created_at: row.try_get(1)?,
        updated_at: row.try_get(2)?,
        message_count: count(row.try_get(3)?),
        run_count: count(row.try_get(4)?),
    }))
}

/// Writes the whole bundle, its session absent, with the server's ids: the rows of its
/// [`ImportPlan`].
async fn insert_session(
    tx: &deadpool_postgres::Transaction<'_>,
    plan: &mut ImportPlan<'_>,
) -> FaultResult<ImportOutcome> {
    let corrupt = |error: RowError| Fault::Corrupt(error.table, error.reason);
    while let Some(write) = plan.next_write().map_err(corrupt)? {
        if let Some(id) = execute(tx, &write).await? {
            plan.written(id);
        }
    }
    Ok(plan.outcome())
}

/// The rows that write `bundle`, masked on the caller's thread.
fn plan(store: &PgStore, bundle: &SessionBundle) -> Result<ImportPlan<'static>> {
    ImportPlan::new(bundle, &store.redactor)
        .map(ImportPlan::into_owned)
        .map_err(|error| store.error(Fault::Corrupt(error.table, error.reason)))
}

impl SessionImport for PgStore {
    fn import_session(&self, bundle: &SessionBundle) -> Result<ImportOutcome> {
        let mut plan = plan(self, bundle)?;
        let label = self.url().to_owned();
        let session = bundle.session.clone();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let id = text(&session.id).into_owned();
            // Taken before the check: two copies of the same session at once write it once.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 17))",
                &[&id],
            )
            .await?;
            if let Some(row) = tx
                .query_opt("SELECT created_at FROM sessions WHERE id = $1", &[&id])
                .await?
            {
                let created: i64 = row.try_get(0)?;
                if created == session.created_at {
                    return Ok(ImportOutcome::AlreadyThere);
                }
                return Err(Fault::Context(ContextError::Transfer {
                    session: session.id.clone(),
                    store: label,
                    reason: "another session with this id, created at another time, is already \
                             there; delete one of them first"
                        .into(),
                }));
            }
            let outcome = insert_session(&tx, &mut plan).await?;
            tx.commit().await?;
            Ok(outcome)
        })
    }

    fn replace_session(
        &self,
        bundle: &SessionBundle,
        expected: &SessionInfo,
    ) -> Result<ImportOutcome> {
        let mut plan = plan(self, bundle)?;
        let label = self.url().to_owned();
        let expected = expected.clone();
        let id = text(&bundle.session.id).into_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let found = session_version(&tx, &id)
                .await?
                .ok_or_else(|| Fault::Context(ContextError::SessionNotFound(id.clone())))?;
            if !same_version(&expected, &found) {
                return Err(Fault::Context(ContextError::Transfer {
                    session: id,
                    store: label,
                    reason: "it changed while it was being copied; run the copy again".into(),
                }));
            }
            delete_session_rows(&tx, &inner, &id).await?;
            let outcome = insert_session(&tx, &mut plan).await?;
            tx.commit().await?;
            Ok(outcome)
        })
    }

    fn sync_mark(&self, session: &str) -> Result<Option<SyncMark>> {
        let session = text(session).into_owned();
        self.call(|inner| async move {
            let client = inner.pool.get().await?;
            let row = client
                .query_opt(
                    "SELECT mine, theirs FROM session_sync WHERE session_id = $1",
                    &[&session],
                )
                .await?;
            Ok(match row {
                Some(row) => Some(SyncMark {
                    mine: row.try_get(0)?,
                    theirs: row.try_get(1)?,
                }),
                None => None,
            })
        })
    }

    fn set_sync_mark(&self, copy: &SessionInfo, mark: &SyncMark) -> Result<bool> {
        let (copy, mark) = (copy.clone(), mark.clone());
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let id = text(&copy.id).into_owned();
            let current = session_version(&tx, &id).await?;
            if !current.is_some_and(|found| same_version(&copy, &found)) {
                return Ok(false);
            }
            execute(&tx, &sync_mark_write(&id, &mark, now_ms())).await?;
            tx.commit().await?;
            Ok(true)
        })
    }
}
