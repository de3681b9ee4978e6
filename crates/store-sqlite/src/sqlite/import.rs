//! [`SessionImport`] for [`SqliteStore`]: a whole session from another store, in one
//! `BEGIN IMMEDIATE` transaction, with this file's own row ids (see [`crate::transfer`]); an
//! earlier copy replaced the same way; the session's mark of its last copy (`session_sync`).

use super::sessions::delete_session_rows;
use super::write::execute;
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_core::Redactor;
use agentctl_store::{
    ContextError, ImportOutcome, ImportPlan, Result, RowError, SessionBundle, SessionImport,
    SessionInfo, SyncMark, WriteKind, same_version, sync_mark_write,
};
use rusqlite::{Connection, OptionalExtension, params};

impl SessionImport for SqliteStore {
    fn import_session(&self, bundle: &SessionBundle) -> Result<ImportOutcome> {
        let redactor = self.redactor();
        let path = self.path().to_owned();
        self.write(|tx| {
            let session = &bundle.session;
            let found: Option<i64> = tx
                .query_row(
                    "SELECT created_at FROM sessions WHERE id = ?1",
                    [&session.id],
                    |row| row.get(0),
                )
                .optional()?;
            match found {
                Some(created) if created == session.created_at => {
                    return Ok(ImportOutcome::AlreadyThere);
                }
                Some(_) => {
                    return Err(Fault::Context(ContextError::Transfer {
                        session: session.id.clone(),
                        store: path.clone(),
                        reason: "another session with this id, created at another time, is \
                                 already there; delete one of them first"
                            .into(),
                    }));
                }
                None => {}
            }
            insert_session(tx, redactor, bundle)
        })
    }

    fn replace_session(
        &self,
        bundle: &SessionBundle,
        expected: &SessionInfo,
    ) -> Result<ImportOutcome> {
        let redactor = self.redactor();
        let path = self.path().to_owned();
        self.write(|tx| {
            let id = &bundle.session.id;
            let found = session_version(tx, id)?
                .ok_or_else(|| Fault::Context(ContextError::SessionNotFound(id.clone())))?;
            if !same_version(expected, &found) {
                return Err(Fault::Context(ContextError::Transfer {
                    session: id.clone(),
                    store: path.clone(),
                    reason: "it changed while it was being copied; run the copy again".into(),
                }));
            }
            delete_session_rows(tx, id)?;
            insert_session(tx, redactor, bundle)
        })
    }

    fn sync_mark(&self, session: &str) -> Result<Option<SyncMark>> {
        self.with(|conn| {
            Ok(conn
                .prepare_cached("SELECT mine, theirs FROM session_sync WHERE session_id = ?1")?
                .query_row([session], |row| {
                    Ok(SyncMark {
                        mine: row.get(0)?,
                        theirs: row.get(1)?,
                    })
                })
                .optional()?)
        })
    }

    fn set_sync_mark(&self, copy: &SessionInfo, mark: &SyncMark) -> Result<bool> {
        self.write(|tx| {
            let current = session_version(tx, &copy.id)?;
            if !current.is_some_and(|found| same_version(copy, &found)) {
                return Ok(false);
            }
            execute(tx, &sync_mark_write(&copy.id, mark, now_ms()))?;
            Ok(true)
        })
    }
}

/// The session's row as [`same_version`] compares it; `None` when there is none.
fn session_version(tx: &Connection, id: &str) -> FaultResult<Option<SessionInfo>> {
    Ok(tx
        .query_row(
            "SELECT title, created_at, updated_at, message_count, run_count
             FROM sessions WHERE id = ?1",
            [id],
            |row| {
                Ok(SessionInfo {
                    id: id.to_owned(),
                    title: row.get(0)?,
                    created_at: row.get(1)?,
                    updated_at: row.get(2)?,
                    message_count: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
                    run_count: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                })
            },
        )
        .optional()?)
}

/// Writes the whole bundle, its session absent, with this file's ids: the rows of its
/// [`ImportPlan`].
fn insert_session(
    tx: &Connection,
    redactor: &Redactor,
    bundle: &SessionBundle,
) -> FaultResult<ImportOutcome> {
    let corrupt = |error: RowError| Fault::Corrupt(error.table, error.reason);
    let mut plan = ImportPlan::new(bundle, redactor).map_err(corrupt)?;
    while let Some(write) = plan.next_write().map_err(corrupt)? {
        execute(tx, &write)?;
        if write.kind == WriteKind::InsertReturningId {
            plan.written(tx.last_insert_rowid());
        }
    }
    // Runs are counted by a trigger; messages by their one insert path, which is not
    // this one.
    tx.execute(
        "UPDATE sessions SET message_count = ?2 WHERE id = ?1",
        params![bundle.session.id, bundle.messages.len() as i64],
    )?;
    Ok(plan.outcome())
}
