//! Everything a run needs before it starts: its model (resolved once), its context mode, what
//! it sees of the conversation, its store run and — for an agent a handoff starts — its brief.
//! In a recorded session all of it is one job of the store thread: the mode override, the
//! history and the run's first rows, in order, off the async workers. A workspace that
//! outgrew the window is summarised between two such jobs, by the model, off the store thread
//! (which writes for every session of a SQLite store).

use super::approvals::TurnGate;
use super::handoff::brief;
use super::locking::lock;
use super::state::{Engine, Store};
use super::writer::{Closing, Recording, Records};
use crate::error::SessionError;
use crate::session::SessionHandle;
use agentctl_context::{
    ModeInputs, PendingCompaction, ProviderSummarizer, ResolvedMode, Summarizer, SummaryRequest,
    resolve_mode,
};
use agentctl_core::{
    AgentDefinition, ContextMode, HandoffHistory, HandoffRequest, Message, ModelRef, RunOptions,
};
use agentctl_runtime::{Runtime, model_context_window};
use agentctl_store::{ContextError, RunId, Source};
use async_trait::async_trait;

/// Which run of a turn is being prepared.
pub(crate) enum RunKind {
    /// The turn's first agent, on the user's prompt.
    First {
        /// The turn's context mode, over everything else.
        flag: Option<ContextMode>,
        /// The main conversation: always the `main` timeline.
        main: bool,
        /// The user's prompt, expanded.
        prompt: String,
        /// Where the run comes from, over the session's own (a graph's node).
        source: Option<Source>,
    },
    /// An agent a handoff started, on its brief.
    Handoff {
        request: HandoffRequest,
        /// The handing-off agent's last answer.
        answer: String,
        /// The user's request.
        prompt: String,
        /// The run that handed off.
        parent: Option<RunId>,
    },
}

/// A run, ready to start.
pub(crate) struct Ready {
    /// What the agent is asked: the prompt, or the brief.
    pub prompt: String,
    /// How the mode was decided (`None` for the main conversation).
    pub resolved: Option<ResolvedMode>,
    /// The agent's own mode (what the store records it in).
    pub mode: ContextMode,
    /// Its model, when it resolves (else the run reports why).
    pub model: Option<ModelRef>,
    /// The run's recording, in a recorded session.
    pub recording: Option<Recording>,
    /// Older messages of the workspace were summarised first.
    pub compacted: bool,
    /// The store error of the run whose end was written with this one's start.
    pub closed: Option<ContextError>,
}

/// What the store thread decides for a run.
struct Decided {
    resolved: Option<ResolvedMode>,
    mode: ContextMode,
    /// The mode the run works in (a handoff's filter may narrow it to `run`).
    run_mode: ContextMode,
    history: Vec<Message>,
    prompt: String,
    run: Option<agentctl_store::RunRecord>,
    compacted: bool,
    /// The store error of the run `closing` ended.
    closed: Option<ContextError>,
}

impl Engine {
    /// Prepares a run of `agent` (its kit's definition) as `kind` says; `options` gets the
    /// history, mode and run id. `gate` is the run's: its hooks decide whether a workspace
    /// that outgrew the window is compacted (`PreCompact`, `auto`). `closing`, the end of the
    /// run that handed off to this one, is written in the same commit as this run's start.
    pub(crate) async fn prepare(
        &self,
        agent: &AgentDefinition,
        kind: RunKind,
        options: &mut RunOptions,
        gate: &TurnGate,
        closing: Option<Closing>,
    ) -> Result<Ready, SessionError> {
        let model = self.runtime.resolve_model(agent, options).ok();
        let decided = match &self.store {
            Some(store) => {
                let session = match &kind {
                    RunKind::First {
                        source: Some(source),
                        ..
                    } => store.session.clone().with_source(source.clone()),
                    _ => store.session.clone(),
                };
                let compact = may_compact(store, agent, &kind, model.as_ref(), gate).await?;
                let mut job = Job {
                    session,
                    agent: agent.clone(),
                    kind,
                    model: model.clone(),
                    compact,
                    summary: None,
                };
                let mut closing = closing;
                loop {
                    let closing = closing.take();
                    // Answered before the commit: the model works while the run's start is
                    // committed (a commit that fails fails the run when it finishes).
                    let prepared = store
                        .writer
                        .call_uncommitted(move |records| job.run_after(closing, records))
                        .await?;
                    match prepared {
                        Prepared::Decided(decided) => break decided,
                        Prepared::Summarize(again, pending) => {
                            let text = self.summarize(&pending, model.as_ref()).await?;
                            job = *again;
                            job.summary = Some((pending, text));
                        }
                    }
                }
            }
            None => self.decide_unrecorded(agent, kind)?,
        };
        options.history = decided.history;
        options.context_mode = Some(decided.run_mode);
        let recording = match (&self.store, decided.run) {
            (Some(store), Some(run)) => {
                // The agent run takes its store run's id: tools that record (`task`) find
                // their parent from it.
                options.run_id = Some(run.id.to_string());
                Some(Recording::new(store.writer.clone(), run))
            }
            _ => None,
        };
        Ok(Ready {
            prompt: decided.prompt,
            resolved: decided.resolved,
            mode: decided.mode,
            model,
            recording,
            compacted: decided.compacted,
            closed: decided.closed,
        })
    }

    /// Has the run's model summarise `pending`, through the session runtime's providers (so
    /// `--record` captures it), here: the store thread goes on writing for the other runs.
    async fn summarize(
        &self,
        pending: &PendingCompaction,
        model: Option<&ModelRef>,
    ) -> Result<String, SessionError> {
        let Some(model) = model else {
            return Err(SessionError::Store(ContextError::Summarizer {
                scope: pending.scope().to_string(),
                message: "the agent has no model to summarise with".into(),
            }));
        };
        let summarizer = RuntimeSummarizer {
            runtime: &self.runtime,
            model,
        };
        Ok(pending.summarize(&summarizer).await?)
    }

    /// The same decisions without a store: the mode from the session's overrides kept in
    /// memory, the history from the conversation so far.
    fn decide_unrecorded(
        &self,
        agent: &AgentDefinition,
        kind: RunKind,
    ) -> Result<Decided, SessionError> {
        let name = agent.name();
        let (flag, main) = match &kind {
            RunKind::First { flag, main, .. } => (*flag, *main),
            RunKind::Handoff { .. } => (None, false),
        };
        let resolved = if main {
            None
        } else {
            let inputs = ModeInputs {
                flag,
                session_override: lock(&self.conversation.modes).get(name).copied(),
                agent_file: agent.spec.context_mode,
            };
            Some(resolve_mode(name, inputs, &self.shared.settings).map_err(SessionError::Store)?)
        };
        let mode = resolved.map_or(ContextMode::Shared, |resolved| resolved.mode);
        let (prompt, run_mode, history) = match kind {
            RunKind::First { prompt, .. } => {
                let history = match mode {
                    ContextMode::Run => Vec::new(),
                    _ => lock(&self.conversation.memory)
                        .get(name)
                        .cloned()
                        .unwrap_or_default(),
                };
                (prompt, mode, history)
            }
            RunKind::Handoff {
                request,
                answer,
                prompt,
                ..
            } => {
                let view = view_of(&request, mode);
                let brief = brief(&request, &answer, &prompt, view);
                (brief, narrowed(view, mode), Vec::new())
            }
        };
        Ok(Decided {
            resolved,
            mode,
            run_mode,
            history,
            prompt,
            run: None,
            compacted: false,
            closed: None,
        })
    }
}

/// What a handoff's target sees: the filter asked for, else its mode's default (shared: the
/// conversation, else the summary in the brief).
fn view_of(request: &HandoffRequest, mode: ContextMode) -> HandoffHistory {
    request.history.unwrap_or(match mode {
        ContextMode::Shared => HandoffHistory::Full,
        ContextMode::Isolated | ContextMode::Run => HandoffHistory::Summary,
    })
}

/// The mode a handoff's target runs in: what it sees is the filter's business; the stored
/// history stays whole.
fn narrowed(view: HandoffHistory, mode: ContextMode) -> ContextMode {
    match view {
        HandoffHistory::Full => mode,
        HandoffHistory::Summary | HandoffHistory::None => ContextMode::Run,
    }
}

/// The store thread's part of preparing a run.
struct Job {
    session: SessionHandle,
    agent: AgentDefinition,
    kind: RunKind,
    model: Option<ModelRef>,
    /// The workspace may be compacted (no `PreCompact` hook held it back).
    compact: bool,
    /// The workspace's summary, written off the store thread: saved before the history is
    /// read.
    summary: Option<(PendingCompaction, String)>,
}

/// What the store thread answers a [`Job`].
enum Prepared {
    Decided(Decided),
    /// The workspace outgrew the window: the model summarises it (off the store thread),
    /// then the job runs again with the summary.
    Summarize(Box<Job>, PendingCompaction),
}

impl Job {
    /// Writes `closing` (a handoff's end) and this run's start, in the store thread's batch
    /// (one commit), then decides. A handoff's target never compacts.
    fn run_after(
        self,
        closing: Option<Closing>,
        records: &mut Records,
    ) -> Result<Prepared, SessionError> {
        let closed = closing.and_then(|closing| records.close(closing));
        Ok(match self.run(records)? {
            Prepared::Decided(decided) => Prepared::Decided(Decided { closed, ..decided }),
            summarize => summarize,
        })
    }

    fn run(mut self, records: &mut Records) -> Result<Prepared, SessionError> {
        let window = self
            .model
            .as_ref()
            .map(|model| model_context_window(&model.model));
        let (resolved, parent) = match &self.kind {
            RunKind::First { main: true, .. } => (None, None),
            RunKind::First { flag, .. } => (Some(self.session.mode(&self.agent, *flag)?), None),
            RunKind::Handoff { parent, .. } => {
                (Some(self.session.mode(&self.agent, None)?), *parent)
            }
        };
        let mode = resolved.map_or(ContextMode::Shared, |resolved| resolved.mode);
        let mut compacted = false;
        if let RunKind::First { .. } = &self.kind {
            match (self.summary.take(), window) {
                (Some((pending, text)), _) => {
                    compacted = self.session.save_compaction(&pending, &text)?;
                }
                (None, Some(window)) if self.compact => {
                    let name = self.agent.name().to_owned();
                    if let Some(pending) = self.session.pending_compaction(&name, mode, window)? {
                        return Ok(Prepared::Summarize(Box::new(self), pending));
                    }
                }
                (None, _) => {}
            }
        }
        let Job {
            session,
            agent,
            kind,
            model,
            ..
        } = self;
        let name = agent.name();
        let label = model.as_ref().map(ToString::to_string);
        let (prompt, run_mode, history) = match kind {
            RunKind::First { prompt, .. } => {
                session.chain().start();
                (prompt, mode, session.history(&agent, mode, window)?)
            }
            RunKind::Handoff {
                request,
                answer,
                prompt,
                ..
            } => {
                session.chain().advance(&answer);
                let view = view_of(&request, mode);
                let history = match view {
                    HandoffHistory::Full => session.history(&agent, ContextMode::Shared, window)?,
                    _ => Vec::new(),
                };
                let brief = brief(&request, &answer, &prompt, view);
                (brief, narrowed(view, mode), history)
            }
        };
        let recorder = session.start(name, mode, label, &prompt, parent)?;
        Ok(Prepared::Decided(Decided {
            resolved,
            mode,
            run_mode,
            history,
            prompt,
            run: Some(records.keep(recorder)),
            compacted,
            closed: None,
        }))
    }
}

/// Whether the first run of a turn may compact its workspace. When it is due and `PreCompact`
/// hooks fire on `auto`, the store thread only decides; the hooks run here, off it (the
/// store keeps serving the session meanwhile), and one that blocks holds the compaction back
/// — the run then sees what of its workspace fits the window, newest first.
async fn may_compact(
    store: &Store,
    agent: &AgentDefinition,
    kind: &RunKind,
    model: Option<&ModelRef>,
    gate: &TurnGate,
) -> Result<bool, SessionError> {
    let (RunKind::First { flag, main, .. }, Some(model)) = (kind, model) else {
        return Ok(true);
    };
    let hooks = gate.hooks();
    if !hooks.has_pre_compact("auto") {
        return Ok(true);
    }
    let window = model_context_window(&model.model);
    let (session, definition, flag, main) = (store.session.clone(), agent.clone(), *flag, *main);
    let due = store
        .writer
        .call(move |_| -> Result<bool, SessionError> {
            let mode = if main {
                ContextMode::Shared
            } else {
                session.mode(&definition, flag)?.mode
            };
            session.compaction_due(definition.name(), mode, window)
        })
        .await?;
    if !due {
        return Ok(true);
    }
    Ok(hooks
        .pre_compact(agent.name(), gate.mode(), "auto", "")
        .await
        .is_ok())
}

/// Summarises with the agent's own model, through the session runtime's providers (so
/// `--record` captures it); the provider is only built when a scope actually needs compacting.
struct RuntimeSummarizer<'a> {
    runtime: &'a Runtime,
    model: &'a ModelRef,
}

#[async_trait]
impl Summarizer for RuntimeSummarizer<'_> {
    async fn summarize(&self, request: SummaryRequest<'_>) -> agentctl_store::Result<String> {
        let provider =
            self.runtime
                .provider_for(self.model)
                .map_err(|error| ContextError::Summarizer {
                    scope: request.scope.to_string(),
                    message: error.to_string(),
                })?;
        ProviderSummarizer::new(provider, self.model.model.clone())
            .summarize(request)
            .await
    }
}
