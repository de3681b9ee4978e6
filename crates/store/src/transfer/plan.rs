//! The rows an import writes ([`ImportPlan`]), written once for every store: each store only
//! executes them in its transaction, feeding back the ids its database assigned.

use super::{IdMap, ImportOutcome, SessionBundle};
use crate::record::GraphCheckpoint;
use crate::record::{MessageId, RunId, role_of};
use crate::rows::{
    checkpoint_insert, masked_span, message_insert, mode_override_write, span_write, state_write,
    step_insert,
};
use crate::schema::{RowError, Table, Value, Write, WriteKind, table};
use agentctl_core::Redactor;
use std::borrow::Cow;
use std::collections::VecDeque;

/// The bundle's texts and JSON with every secret the target knows masked, serialised once.
struct Masked {
    title: Option<String>,
    /// The messages' JSON and roles, in bundle order.
    contents: Vec<(String, &'static str)>,
    /// The steps' JSON, in bundle order.
    steps: Vec<String>,
    /// The state values' JSON, in bundle order.
    state: Vec<String>,
    /// The checkpoints' states' JSON, reasons and parallel records, in bundle order.
    checkpoints: Vec<(String, Option<String>, Option<serde_json::Value>)>,
    /// The spans' JSON, in bundle order.
    spans: Vec<String>,
    /// The summaries' texts, in [`SessionBundle::summary_rows`] order.
    summaries: Vec<String>,
}

fn json(value: &impl serde::Serialize, table: &'static str) -> Result<String, RowError> {
    serde_json::to_string(value).map_err(|error| RowError {
        table,
        reason: error.to_string(),
    })
}

impl Masked {
    fn new(redactor: &Redactor, bundle: &SessionBundle) -> Result<Self, RowError> {
        let mut contents = Vec::with_capacity(bundle.messages.len());
        for stored in &bundle.messages {
            let mut message = stored.message.clone();
            redactor.redact_message(&mut message);
            contents.push((json(&message, "chat_messages")?, role_of(&message)));
        }
        let redact_json = |value: &serde_json::Value| {
            let mut value = value.clone();
            redactor.redact_json(&mut value);
            value.to_string()
        };
        let mut spans = Vec::with_capacity(bundle.spans.len());
        for span in &bundle.spans {
            spans.push(masked_span(span, redactor)?);
        }
        Ok(Self {
            title: bundle
                .session
                .title
                .as_deref()
                .map(|title| redactor.redact(title).into_owned()),
            contents,
            steps: bundle
                .steps
                .iter()
                .map(|step| redactor.redact(&step.content.to_string()).into_owned())
                .collect(),
            state: bundle
                .state
                .iter()
                .map(|entry| redact_json(&entry.value))
                .collect(),
            checkpoints: bundle
                .checkpoints
                .iter()
                .map(|checkpoint| {
                    let reason = checkpoint.reason.as_deref();
                    let parallel = checkpoint.parallel.as_ref().map(|parallel| {
                        let mut parallel = parallel.clone();
                        redactor.redact_json(&mut parallel);
                        parallel
                    });
                    (
                        redact_json(&checkpoint.state),
                        reason.map(|reason| redactor.redact(reason).into_owned()),
                        parallel,
                    )
                })
                .collect(),
            spans,
            summaries: bundle
                .summary_rows()
                .map(|row| redactor.redact(row.summary_text).into_owned())
                .collect(),
        })
    }
}

/// The columns an import sets in a new `agent_runs` row.
const RUN_COLUMNS: &[&str] = &[
    "session_id",
    "agent_id",
    "context_scope",
    "status",
    "model",
    "usage",
    "started_at",
    "finished_at",
    "source",
];
/// The columns of a current summary row.
const SUMMARY_COLUMNS: &[&str] = &[
    "session_id",
    "scope",
    "until_message_id",
    "summary_text",
    "created_at",
    "updated_at",
];
/// The columns of a replaced summary row.
const SUMMARY_HISTORY_COLUMNS: &[&str] = &[
    "session_id",
    "scope",
    "until_message_id",
    "summary_text",
    "created_at",
    "replaced_at",
];

/// Which rows come next: each stage needs the ids the one before it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The session, its mode overrides and its runs (scopes and parents left out).
    Head,
    /// The runs' scopes and parents, then the messages.
    Links,
    /// Steps, summaries, state, checkpoints and spans: rows that only point at runs and
    /// messages.
    Rest,
    /// Nothing left.
    Done,
}

/// Whose new id a written row reports.
#[derive(Debug, Clone, Copy)]
enum Mapped {
    Run(RunId),
    Message(MessageId),
}

/// The rows that copy a [`SessionBundle`] into a store, with the store's own ids: what every
/// [`SessionImport`](super::SessionImport) writes, redaction and id mapping included, so the
/// stores only execute them.
///
/// Call [`next_write`](Self::next_write) until it returns `None`, executing each [`Write`] in
/// one transaction; after a [`WriteKind::InsertReturningId`], report the id the database
/// gave the row with [`written`](Self::written) before asking for the next one.
pub struct ImportPlan<'a> {
    bundle: Cow<'a, SessionBundle>,
    masked: Masked,
    ids: IdMap,
    stage: Stage,
    queue: VecDeque<(Write, Option<Mapped>)>,
    pending: Option<Mapped>,
}

impl std::fmt::Debug for ImportPlan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportPlan")
            .field("session", &self.bundle.session.id)
            .field("stage", &self.stage)
            .finish_non_exhaustive()
    }
}

/// The described table `name` (every table the plan writes is described).
fn described(name: &str) -> &'static Table {
    table(name).unwrap_or(&crate::schema::TABLES[0])
}

fn write(
    name: &str,
    kind: WriteKind,
    columns: &'static [&'static str],
    values: Vec<Value>,
) -> Write {
    Write {
        table: described(name),
        kind,
        columns,
        values,
    }
}

impl<'a> ImportPlan<'a> {
    /// The plan for `bundle`, its texts masked by `redactor`. Fails when a message, a run's
    /// usage or a span cannot be serialised.
    pub fn new(bundle: &'a SessionBundle, redactor: &Redactor) -> Result<Self, RowError> {
        Ok(Self {
            masked: Masked::new(redactor, bundle)?,
            bundle: Cow::Borrowed(bundle),
            ids: IdMap::new(),
            stage: Stage::Head,
            queue: VecDeque::new(),
            pending: None,
        })
    }

    /// The same plan owning its bundle, for a writer on another thread.
    pub fn into_owned(self) -> ImportPlan<'static> {
        ImportPlan {
            bundle: Cow::Owned(self.bundle.into_owned()),
            masked: self.masked,
            ids: self.ids,
            stage: self.stage,
            queue: self.queue,
            pending: self.pending,
        }
    }

    /// The next row to write; `None` once every row is written.
    pub fn next_write(&mut self) -> Result<Option<Write>, RowError> {
        while self.queue.is_empty() && self.stage != Stage::Done {
            self.stage = match self.stage {
                Stage::Head => {
                    self.head()?;
                    Stage::Links
                }
                Stage::Links => {
                    self.links();
                    Stage::Rest
                }
                Stage::Rest => {
                    self.rest();
                    Stage::Done
                }
                Stage::Done => Stage::Done,
            };
        }
        Ok(self.queue.pop_front().map(|(write, mapped)| {
            self.pending = mapped;
            write
        }))
    }

    /// Reports the id the database gave the row of the last
    /// [`WriteKind::InsertReturningId`].
    pub fn written(&mut self, id: i64) {
        match self.pending.take() {
            Some(Mapped::Run(old)) => self.ids.run_written(old, id),
            Some(Mapped::Message(old)) => self.ids.message_written(old, id),
            None => {}
        }
    }

    /// What the import did, once every row is written.
    pub fn outcome(&self) -> ImportOutcome {
        ImportOutcome::Copied {
            messages: self.bundle.messages.len() as u64,
            runs: self.bundle.runs.len() as u64,
        }
    }

    fn head(&mut self) -> Result<(), RowError> {
        let bundle = &*self.bundle;
        let session = &bundle.session;
        self.queue.push_back((
            write(
                "sessions",
                WriteKind::Insert,
                &["id", "title", "created_at", "updated_at"],
                vec![
                    session.id.as_str().into(),
                    self.masked.title.clone().into(),
                    session.created_at.into(),
                    session.updated_at.into(),
                ],
            ),
            None,
        ));
        for (agent, mode) in &bundle.mode_overrides {
            let write = mode_override_write(&session.id, agent, Some(*mode));
            self.queue.push_back((write, None));
        }
        for run in &bundle.runs {
            let values = vec![
                session.id.as_str().into(),
                run.agent.as_str().into(),
                "".into(),
                run.status.as_str().into(),
                run.model.as_deref().into(),
                json(&run.usage, "agent_runs")?.into(),
                run.started_at.into(),
                run.finished_at.into(),
                run.source.as_str().into(),
            ];
            let insert = write(
                "agent_runs",
                WriteKind::InsertReturningId,
                RUN_COLUMNS,
                values,
            );
            self.queue.push_back((insert, Some(Mapped::Run(run.id))));
        }
        Ok(())
    }

    fn links(&mut self) {
        let bundle = &*self.bundle;
        // Scopes and parents once every run has its new id: a scope names its own run.
        for run in &bundle.runs {
            let Some(id) = self.ids.run(run.id) else {
                continue;
            };
            let values = vec![
                self.ids.scope(&run.context_scope).to_string().into(),
                run.parent_run_id
                    .and_then(|parent| self.ids.run(parent))
                    .into(),
                id.into(),
            ];
            let columns = &["context_scope", "parent_run_id"];
            self.queue.push_back((
                write("agent_runs", WriteKind::Update, columns, values),
                None,
            ));
        }
        for (stored, (content, role)) in bundle.messages.iter().zip(&self.masked.contents) {
            let values = vec![
                bundle.session.id.as_str().into(),
                stored.run_id.and_then(|run| self.ids.run(run)).into(),
                stored.timeline_scope.as_str().into(),
                self.ids.scope(&stored.context_scope).to_string().into(),
                stored.agent.as_deref().into(),
                (*role).into(),
                content.as_str().into(),
                stored.visible.into(),
                stored.token_estimate.into(),
                stored.created_at.into(),
                stored.source.as_str().into(),
            ];
            let insert = message_insert(values);
            self.queue
                .push_back((insert, Some(Mapped::Message(stored.id))));
        }
    }

    fn rest(&mut self) {
        self.steps();
        self.summaries();
        self.state();
        self.checkpoints();
        self.spans();
    }

    fn steps(&mut self) {
        for (step, content) in self.bundle.steps.iter().zip(&self.masked.steps) {
            let Some(run) = self.ids.run(step.run_id) else {
                continue;
            };
            let insert = step_insert(
                run,
                step.step_index,
                &step.kind,
                content,
                step.created_at,
                step.budget,
            );
            self.queue.push_back((insert, None));
        }
    }

    fn summaries(&mut self) {
        let session = self.bundle.session.id.as_str();
        let rows: Vec<Write> = self
            .bundle
            .summary_rows()
            .zip(&self.masked.summaries)
            .map(|(row, text)| {
                let (name, last): (_, &'static [&'static str]) = if row.replaced {
                    ("chat_context_summary_history", SUMMARY_HISTORY_COLUMNS)
                } else {
                    ("chat_context_summaries", SUMMARY_COLUMNS)
                };
                let values = vec![
                    session.into(),
                    self.ids.scope(row.scope).to_string().into(),
                    self.ids.cursor(row.until_message_id).into(),
                    text.as_str().into(),
                    row.created_at.into(),
                    row.last_at.into(),
                ];
                write(name, WriteKind::Insert, last, values)
            })
            .collect();
        for row in rows {
            self.queue.push_back((row, None));
        }
    }

    fn state(&mut self) {
        let session = self.bundle.session.id.as_str();
        for (entry, value) in self.bundle.state.iter().zip(&self.masked.state) {
            let write = state_write(
                session,
                &entry.key,
                Some(value),
                entry.updated_at,
                &entry.updated_by,
            );
            self.queue.push_back((write, None));
        }
    }

    fn checkpoints(&mut self) {
        let session = &self.bundle.session.id;
        for (checkpoint, (state, reason, parallel)) in
            self.bundle.checkpoints.iter().zip(&self.masked.checkpoints)
        {
            // The row as the target keeps it: its run renumbered, its reason masked; the state
            // is written from its masked text.
            let row = GraphCheckpoint {
                session_id: session.clone(),
                branch: checkpoint.branch,
                step: checkpoint.step,
                graph: checkpoint.graph.clone(),
                node: checkpoint.node.clone(),
                run: checkpoint.run.and_then(|run| self.ids.run(run)),
                next: checkpoint.next.clone(),
                reason: reason.clone(),
                state: serde_json::Value::Null,
                parallel: parallel.clone(),
                source: checkpoint.source,
                parent: checkpoint.parent,
                created_at: checkpoint.created_at,
            };
            self.queue.push_back((checkpoint_insert(&row, state), None));
        }
    }

    fn spans(&mut self) {
        let session = self.bundle.session.id.as_str();
        for (span, json) in self.bundle.spans.iter().zip(&self.masked.spans) {
            self.queue
                .push_back((span_write(session, span, json), None));
        }
    }
}

#[cfg(test)]
mod tests;
