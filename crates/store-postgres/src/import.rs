//! [`SessionImport`] for [`PgStore`]: a whole session from another store in one transaction,
//! with the server's own ids (see [`agentctl_store::SessionBundle`]); an earlier copy
//! replaced the same way; the session's mark of its last copy (`session_sync`).

use crate::fault::{Fault, FaultResult};
use crate::sessions::delete_session_rows;
use crate::store::{PgStore, count, now_ms, opt_text, text};
use agentctl_core::Redactor;
use agentctl_store::{
    ContextError, IdMap, ImportOutcome, Result, SessionBundle, SessionImport, SessionInfo,
    SyncMark, role_of, same_version,
};

/// A bundle with every secret the target knows masked and every text cleaned, serialised
/// on the caller's thread.
struct Masked {
    bundle: SessionBundle,
    /// The messages' JSON, in bundle order.
    contents: Vec<String>,
    /// The steps' JSON, in bundle order.
    steps: Vec<String>,
    /// The state values' JSON, in bundle order.
    state: Vec<String>,
    /// The checkpoints' states' JSON, in bundle order.
    checkpoints: Vec<String>,
    /// The spans' JSON, in bundle order.
    spans: Vec<String>,
}

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

/// Writes the whole masked bundle, its session absent, with the server's ids.
async fn insert_session(
    tx: &tokio_postgres::Transaction<'_>,
    id: &str,
    masked: &Masked,
) -> FaultResult<ImportOutcome> {
    let session = &masked.bundle.session;
    tx.execute(
        "INSERT INTO sessions (id, title, created_at, updated_at) VALUES ($1, $2, $3, $4)",
        &[
            &id,
            &session.title,
            &session.created_at,
            &session.updated_at,
        ],
    )
    .await?;
    for (agent, mode) in &masked.bundle.mode_overrides {
        tx.execute(
            "INSERT INTO session_mode_overrides (session_id, agent_id, mode) VALUES ($1, $2, $3)",
            &[&id, &text(agent), &mode.as_str()],
        )
        .await?;
    }
    let mut ids = IdMap::new();
    insert_runs(tx, id, masked, &mut ids).await?;
    insert_messages(tx, id, masked, &mut ids).await?;
    insert_rest(tx, id, masked, &ids).await?;
    Ok(ImportOutcome::Copied {
        messages: masked.bundle.messages.len() as u64,
        runs: masked.bundle.runs.len() as u64,
    })
}

fn mask(redactor: &Redactor, bundle: &SessionBundle) -> FaultResult<Masked> {
    let mut contents = Vec::with_capacity(bundle.messages.len());
    for stored in &bundle.messages {
        let mut message = stored.message.clone();
        redactor.redact_message(&mut message);
        contents.push(
            serde_json::to_string(&message)
                .map_err(|error| Fault::Corrupt("chat_messages", error.to_string()))?,
        );
    }
    let steps = bundle
        .steps
        .iter()
        .map(|step| redactor.redact(&step.content.to_string()).into_owned())
        .collect();
    let state = bundle
        .state
        .iter()
        .map(|entry| {
            let mut value = entry.value.clone();
            redactor.redact_json(&mut value);
            value.to_string()
        })
        .collect();
    let checkpoints = bundle
        .checkpoints
        .iter()
        .map(|checkpoint| {
            let mut state = checkpoint.state.clone();
            redactor.redact_json(&mut state);
            state.to_string()
        })
        .collect();
    let mut spans = Vec::with_capacity(bundle.spans.len());
    for span in &bundle.spans {
        let mut value = serde_json::to_value(span)
            .map_err(|error| Fault::Corrupt("trace_spans", error.to_string()))?;
        redactor.redact_json(&mut value);
        spans.push(value.to_string());
    }
    let mut bundle = bundle.clone();
    bundle.session.title = bundle
        .session
        .title
        .as_deref()
        .map(|title| text(&redactor.redact(title)).into_owned());
    for summary in &mut bundle.summaries {
        summary.summary_text = text(&redactor.redact(&summary.summary_text)).into_owned();
    }
    for summary in &mut bundle.replaced_summaries {
        summary.summary_text = text(&redactor.redact(&summary.summary_text)).into_owned();
    }
    for checkpoint in &mut bundle.checkpoints {
        checkpoint.reason = checkpoint
            .reason
            .as_deref()
            .map(|reason| text(&redactor.redact(reason)).into_owned());
    }
    Ok(Masked {
        bundle,
        contents,
        steps,
        state,
        checkpoints,
        spans,
    })
}

impl SessionImport for PgStore {
    fn import_session(&self, bundle: &SessionBundle) -> Result<ImportOutcome> {
        let masked = mask(&self.redactor, bundle).map_err(|fault| self.error(fault))?;
        let label = self.url().to_owned();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let session = &masked.bundle.session;
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
            let outcome = insert_session(&tx, &id, &masked).await?;
            tx.commit().await?;
            Ok(outcome)
        })
    }

    fn replace_session(
        &self,
        bundle: &SessionBundle,
        expected: &SessionInfo,
    ) -> Result<ImportOutcome> {
        let masked = mask(&self.redactor, bundle).map_err(|fault| self.error(fault))?;
        let label = self.url().to_owned();
        let expected = expected.clone();
        self.call(|inner| async move {
            let mut client = inner.pool.get().await?;
            let tx = client.transaction().await?;
            let id = text(&masked.bundle.session.id).into_owned();
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
            delete_session_rows(&tx, &id).await?;
            let outcome = insert_session(&tx, &id, &masked).await?;
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
            tx.execute(
                "INSERT INTO session_sync (session_id, mine, theirs, marked_at)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT (session_id) DO UPDATE SET
                     mine = excluded.mine, theirs = excluded.theirs,
                     marked_at = excluded.marked_at",
                &[&id, &mark.mine, &mark.theirs, &now_ms()],
            )
            .await?;
            tx.commit().await?;
            Ok(true)
        })
    }
}

async fn insert_runs(
    tx: &tokio_postgres::Transaction<'_>,
    session: &str,
    masked: &Masked,
    ids: &mut IdMap,
) -> FaultResult<()> {
    for run in &masked.bundle.runs {
        let usage = serde_json::to_string(&run.usage)
            .map_err(|error| Fault::Corrupt("agent_runs", error.to_string()))?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO agent_runs (session_id, agent_id, context_scope, status, model, usage,
                     started_at, finished_at, source)
                 VALUES ($1, $2, '', $3, $4, $5, $6, $7, $8) RETURNING id",
                &[
                    &session,
                    &text(&run.agent),
                    &run.status.as_str(),
                    &opt_text(run.model.as_deref()),
                    &usage,
                    &run.started_at,
                    &run.finished_at,
                    &run.source.as_str(),
                ],
            )
            .await?
            .try_get(0)?;
        ids.run_written(run.id, id);
    }
    // Scopes and parents once every run has its new id: a scope names its own run.
    for run in &masked.bundle.runs {
        let Some(id) = ids.run(run.id) else { continue };
        tx.execute(
            "UPDATE agent_runs SET context_scope = $2, parent_run_id = $3 WHERE id = $1",
            &[
                &id,
                &text(&ids.scope(&run.context_scope).to_string()),
                &run.parent_run_id.and_then(|parent| ids.run(parent)),
            ],
        )
        .await?;
    }
    Ok(())
}

async fn insert_messages(
    tx: &tokio_postgres::Transaction<'_>,
    session: &str,
    masked: &Masked,
    ids: &mut IdMap,
) -> FaultResult<()> {
    let statement = tx
        .prepare(
            "INSERT INTO chat_messages (session_id, run_id, timeline_scope, context_scope, agent_id,
                 role, content, visible, token_estimate, created_at, source)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .await?;
    for (stored, content) in masked.bundle.messages.iter().zip(&masked.contents) {
        let id: i64 = tx
            .query_one(
                &statement,
                &[
                    &session,
                    &stored.run_id.and_then(|run| ids.run(run)),
                    &text(&stored.timeline_scope),
                    &text(&ids.scope(&stored.context_scope).to_string()),
                    &opt_text(stored.agent.as_deref()),
                    &role_of(&stored.message),
                    content,
                    &i16::from(stored.visible),
                    &i32::try_from(stored.token_estimate).unwrap_or(i32::MAX),
                    &stored.created_at,
                    &stored.source.as_str(),
                ],
            )
            .await?
            .try_get(0)?;
        ids.message_written(stored.id, id);
    }
    Ok(())
}

const CURRENT_SUMMARY: &str = "INSERT INTO chat_context_summaries
    (session_id, scope, until_message_id, summary_text, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6)";
const REPLACED_SUMMARY: &str = "INSERT INTO chat_context_summary_history
    (session_id, scope, until_message_id, summary_text, created_at, replaced_at)
    VALUES ($1, $2, $3, $4, $5, $6)";

/// Steps, summaries, state, checkpoints and spans: rows that only point at runs and messages.
async fn insert_rest(
    tx: &tokio_postgres::Transaction<'_>,
    session: &str,
    masked: &Masked,
    ids: &IdMap,
) -> FaultResult<()> {
    let bundle = &masked.bundle;
    for (step, content) in bundle.steps.iter().zip(&masked.steps) {
        let Some(run) = ids.run(step.run_id) else {
            continue;
        };
        let [budget, estimate, window] = step
            .budget
            .map_or([None; 3], |budget| budget.columns().map(Some));
        tx.execute(
            "INSERT INTO agent_run_steps (run_id, step_index, kind, content, created_at,
                 prompt_token_budget, estimated_prompt_tokens, model_context_window)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &run,
                &step.step_index,
                &text(&step.kind),
                content,
                &step.created_at,
                &budget,
                &estimate,
                &window,
            ],
        )
        .await?;
    }
    for row in bundle.summary_rows() {
        let sql = if row.replaced {
            REPLACED_SUMMARY
        } else {
            CURRENT_SUMMARY
        };
        tx.execute(
            sql,
            &[
                &session,
                &text(&ids.scope(row.scope).to_string()),
                &ids.cursor(row.until_message_id),
                &row.summary_text,
                &row.created_at,
                &row.last_at,
            ],
        )
        .await?;
    }
    for (entry, value) in bundle.state.iter().zip(&masked.state) {
        tx.execute(
            "INSERT INTO session_state (session_id, key, value, updated_at, updated_by)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &session,
                &text(&entry.key),
                value,
                &entry.updated_at,
                &text(&entry.updated_by),
            ],
        )
        .await?;
    }
    for (checkpoint, state) in bundle.checkpoints.iter().zip(&masked.checkpoints) {
        tx.execute(
            "INSERT INTO graph_checkpoints (session_id, branch, step, graph, node, run_id,
                 next_node, reason, state, source, parent_branch, parent_step, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            &[
                &session,
                &i64::from(checkpoint.branch),
                &i64::from(checkpoint.step),
                &text(&checkpoint.graph),
                &opt_text(checkpoint.node.as_deref()),
                &checkpoint.run.and_then(|run| ids.run(run)),
                &opt_text(checkpoint.next.as_deref()),
                &checkpoint.reason,
                state,
                &checkpoint.source.as_str(),
                &checkpoint.parent.map(|(branch, _)| i64::from(branch)),
                &checkpoint.parent.map(|(_, step)| i64::from(step)),
                &checkpoint.created_at,
            ],
        )
        .await?;
    }
    for (span, json) in bundle.spans.iter().zip(&masked.spans) {
        tx.execute(
            "INSERT INTO trace_spans (session_id, trace_id, span_id, parent_id, kind, start_ns, span)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (session_id, trace_id, span_id) DO UPDATE SET span = excluded.span",
            &[
                &session,
                &span.trace_id.to_string(),
                &span.span_id.to_string(),
                &span.parent_id.map(|id| id.to_string()),
                &span.kind().as_str(),
                &i64::try_from(span.start_unix_nano).unwrap_or(i64::MAX),
                json,
            ],
        )
        .await?;
    }
    Ok(())
}
