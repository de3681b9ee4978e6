//! [`SessionImport`] for [`SqliteStore`]: a whole session from another store, in one
//! `BEGIN IMMEDIATE` transaction, with this file's own row ids (see [`crate::transfer`]); an
//! earlier copy replaced the same way; the session's mark of its last copy (`session_sync`).

use super::sessions::delete_session_rows;
use super::{Fault, FaultResult, SqliteStore, now_ms};
use agentctl_core::Redactor;
use agentctl_store::{
    ContextError, IdMap, ImportOutcome, Result, SessionBundle, SessionImport, SessionInfo,
    SyncMark, role_of, same_version,
};
use rusqlite::{OptionalExtension, Transaction, params};

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
            tx.execute(
                "INSERT INTO session_sync (session_id, mine, theirs, marked_at)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (session_id) DO UPDATE SET
                     mine = excluded.mine, theirs = excluded.theirs,
                     marked_at = excluded.marked_at",
                params![copy.id, mark.mine, mark.theirs, now_ms()],
            )?;
            Ok(true)
        })
    }
}

/// The session's row as [`same_version`] compares it; `None` when there is none.
fn session_version(tx: &Transaction<'_>, id: &str) -> FaultResult<Option<SessionInfo>> {
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

/// Writes the whole bundle, its session absent, with this file's ids.
fn insert_session(
    tx: &Transaction<'_>,
    redactor: &Redactor,
    bundle: &SessionBundle,
) -> FaultResult<ImportOutcome> {
    let session = &bundle.session;
    tx.execute(
        "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?4)",
        params![
            session.id,
            session.title.as_deref().map(|title| redactor.redact(title)),
            session.created_at,
            session.updated_at
        ],
    )?;
    for (agent, mode) in &bundle.mode_overrides {
        tx.execute(
            "INSERT INTO session_mode_overrides (session_id, agent_id, mode) VALUES (?1, ?2, ?3)",
            params![session.id, agent, mode.as_str()],
        )?;
    }
    let mut ids = IdMap::new();
    insert_runs(tx, bundle, &mut ids)?;
    insert_messages(tx, redactor, bundle, &mut ids)?;
    // Runs are counted by a trigger; messages by their one insert path, which is not
    // this one.
    tx.execute(
        "UPDATE sessions SET message_count = ?2 WHERE id = ?1",
        params![session.id, bundle.messages.len() as i64],
    )?;
    insert_rest(tx, redactor, bundle, &ids)?;
    Ok(ImportOutcome::Copied {
        messages: bundle.messages.len() as u64,
        runs: bundle.runs.len() as u64,
    })
}

fn json_text(value: &impl serde::Serialize, table: &'static str) -> FaultResult<String> {
    serde_json::to_string(value).map_err(|error| Fault::Corrupt(table, error.to_string()))
}

fn insert_runs(tx: &Transaction<'_>, bundle: &SessionBundle, ids: &mut IdMap) -> FaultResult<()> {
    let session = &bundle.session.id;
    for run in &bundle.runs {
        tx.execute(
            "INSERT INTO agent_runs (session_id, agent_id, context_scope, status, model, usage,
                 started_at, finished_at, source)
             VALUES (?1, ?2, '', ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                session,
                run.agent,
                run.status.as_str(),
                run.model,
                json_text(&run.usage, "agent_runs")?,
                run.started_at,
                run.finished_at,
                run.source.as_str()
            ],
        )?;
        ids.run_written(run.id, tx.last_insert_rowid());
    }
    // Scopes and parents once every run has its new id: a scope names its own run.
    for run in &bundle.runs {
        let Some(id) = ids.run(run.id) else { continue };
        tx.execute(
            "UPDATE agent_runs SET context_scope = ?2, parent_run_id = ?3 WHERE id = ?1",
            params![
                id,
                ids.scope(&run.context_scope).to_string(),
                run.parent_run_id.and_then(|parent| ids.run(parent))
            ],
        )?;
    }
    Ok(())
}

fn insert_messages(
    tx: &Transaction<'_>,
    redactor: &Redactor,
    bundle: &SessionBundle,
    ids: &mut IdMap,
) -> FaultResult<()> {
    let mut statement = tx.prepare_cached(
        "INSERT INTO chat_messages (session_id, run_id, timeline_scope, context_scope, agent_id,
             role, content, visible, token_estimate, created_at, source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for stored in &bundle.messages {
        let mut message = stored.message.clone();
        redactor.redact_message(&mut message);
        statement.execute(params![
            bundle.session.id,
            stored.run_id.and_then(|run| ids.run(run)),
            stored.timeline_scope,
            ids.scope(&stored.context_scope).to_string(),
            stored.agent,
            role_of(&message),
            json_text(&message, "chat_messages")?,
            stored.visible,
            stored.token_estimate,
            stored.created_at,
            stored.source.as_str()
        ])?;
        ids.message_written(stored.id, tx.last_insert_rowid());
    }
    Ok(())
}

const CURRENT_SUMMARY: &str = "INSERT INTO chat_context_summaries
    (session_id, scope, until_message_id, summary_text, created_at, updated_at)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const REPLACED_SUMMARY: &str = "INSERT INTO chat_context_summary_history
    (session_id, scope, until_message_id, summary_text, created_at, replaced_at)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

/// Steps, summaries, state, checkpoints and spans: rows that only point at runs and messages.
fn insert_rest(
    tx: &Transaction<'_>,
    redactor: &Redactor,
    bundle: &SessionBundle,
    ids: &IdMap,
) -> FaultResult<()> {
    let session = &bundle.session.id;
    for step in &bundle.steps {
        let Some(run) = ids.run(step.run_id) else {
            continue;
        };
        let [budget, estimate, window] = step
            .budget
            .map_or([None; 3], |budget| budget.columns().map(Some));
        tx.execute(
            "INSERT INTO agent_run_steps (run_id, step_index, kind, content, created_at,
                 prompt_token_budget, estimated_prompt_tokens, model_context_window)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                run,
                step.step_index,
                step.kind,
                redactor.redact(&step.content.to_string()),
                step.created_at,
                budget,
                estimate,
                window,
            ],
        )?;
    }
    for row in bundle.summary_rows() {
        let sql = if row.replaced {
            REPLACED_SUMMARY
        } else {
            CURRENT_SUMMARY
        };
        tx.execute(
            sql,
            params![
                session,
                ids.scope(row.scope).to_string(),
                ids.cursor(row.until_message_id),
                redactor.redact(row.summary_text),
                row.created_at,
                row.last_at
            ],
        )?;
    }
    for entry in &bundle.state {
        let mut value = entry.value.clone();
        redactor.redact_json(&mut value);
        tx.execute(
            "INSERT INTO session_state (session_id, key, value, updated_at, updated_by)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                session,
                entry.key,
                value.to_string(),
                entry.updated_at,
                entry.updated_by
            ],
        )?;
    }
    for checkpoint in &bundle.checkpoints {
        let mut state = checkpoint.state.clone();
        redactor.redact_json(&mut state);
        tx.execute(
            "INSERT INTO graph_checkpoints (session_id, branch, step, graph, node, run_id,
                 next_node, reason, state, source, parent_branch, parent_step, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                session,
                checkpoint.branch,
                checkpoint.step,
                checkpoint.graph,
                checkpoint.node,
                checkpoint.run.and_then(|run| ids.run(run)),
                checkpoint.next,
                checkpoint
                    .reason
                    .as_deref()
                    .map(|reason| redactor.redact(reason)),
                state.to_string(),
                checkpoint.source.as_str(),
                checkpoint.parent.map(|(branch, _)| branch),
                checkpoint.parent.map(|(_, step)| step),
                checkpoint.created_at
            ],
        )?;
    }
    for span in &bundle.spans {
        let mut json = serde_json::to_value(span)
            .map_err(|error| Fault::Corrupt("trace_spans", error.to_string()))?;
        redactor.redact_json(&mut json);
        tx.execute(
            "INSERT OR REPLACE INTO trace_spans
                 (session_id, trace_id, span_id, parent_id, kind, start_ns, span)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                session,
                span.trace_id.to_string(),
                span.span_id.to_string(),
                span.parent_id.map(|id| id.to_string()),
                span.kind().as_str(),
                i64::try_from(span.start_unix_nano).unwrap_or(i64::MAX),
                json.to_string(),
            ],
        )?;
    }
    Ok(())
}
