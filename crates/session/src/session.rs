//! Runs recorded in a session: which session (`--session`, `--continue`, else a new one), which
//! context mode and history an agent gets, and one store transaction per model turn so a
//! killed run leaves its session readable and resumable.
//!
//! What goes where: the prompt and the run's turns go to the run's workspace (`main` for a
//! shared agent, `agent:{name}` for an isolated one, `run:{id}` in run mode). Tool steps are
//! hidden from the timeline. A shared agent's final answer is visible in `main`; an isolated or
//! run-mode agent hands its answer back to `main` as one handoff summary instead, so the main
//! workspace sees results, never another agent's reasoning.

use crate::chain::Chain;
use crate::error::SessionError;
use agentctl_context::{
    CompactionPolicy, ModeInputs, PendingCompaction, ResolvedMode, load_history,
    load_history_within, needs_compaction, resolve_mode,
};
use agentctl_core::{
    AgentDefinition, AgentsSettings, ContextMode, HandoffRequest, Message, RunError, RunResult,
};
use agentctl_store::{
    ContextScope, HandoffSummary, NewRun, RunEnding, RunId, RunRecorder, RunStatus, SessionChoice,
    SessionInfo, SessionStore, Source, open_session,
};
use std::sync::Arc;

/// Longest session title taken from the first prompt, in characters.
const TITLE_CHARS: usize = 60;

/// An open session of a store.
#[derive(Clone)]
pub struct SessionHandle {
    store: Arc<dyn SessionStore>,
    info: SessionInfo,
    agents: AgentsSettings,
    /// The current turn's chain of agents, as handoff conditions see it.
    chain: Chain,
    /// The front end that starts runs here (`cli`, `repl`, `mcp`, `graph`), recorded with
    /// each run and message.
    source: Source,
}

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionHandle")
            .field("id", &self.info.id)
            .finish_non_exhaustive()
    }
}

impl SessionHandle {
    /// Opens the chosen session of `store`; a new session is titled with the first line of
    /// `first_prompt`, shortened. [`SessionChoice::Current`] continues the most recently active
    /// session unless `agents.continueSession` is off.
    pub fn open(
        store: Arc<dyn SessionStore>,
        choice: SessionChoice,
        first_prompt: Option<&str>,
        agents: AgentsSettings,
    ) -> Result<Self, SessionError> {
        let choice = match choice {
            SessionChoice::Current if agents.continue_session => match store.latest_session()? {
                Some(current) => SessionChoice::Resume(current.id),
                None => SessionChoice::New,
            },
            SessionChoice::Current => SessionChoice::New,
            choice => choice,
        };
        let choice = match (choice, first_prompt) {
            (SessionChoice::New, Some(prompt)) => SessionChoice::NewTitled(title(prompt)),
            (choice, _) => choice,
        };
        let info = open_session(store.as_ref(), &choice)?;
        Ok(Self {
            store,
            info,
            agents,
            chain: Chain::default(),
            source: Source::default(),
        })
    }

    /// The same session, with runs started here recorded as coming from `source` (seed 001's
    /// `source` column: `repl`, `mcp`, `graph`…; `cli` by default). Runs started by a handoff
    /// are recorded as `handoff` and sub-agent tasks as `task` whatever the front end.
    pub fn with_source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// Whether the session had runs when it was opened (continued, not new).
    pub(crate) fn resumed(&self) -> bool {
        self.info.run_count > 0
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.info.id
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// The current turn's chain of agents.
    pub(crate) fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The store as the trait the tools record through.
    pub(crate) fn dyn_store(&self) -> Arc<dyn SessionStore> {
        Arc::clone(&self.store)
    }

    /// The agent's context mode: `flag` > this session's override > agent file > settings >
    /// isolated; refuses shared when the settings do.
    pub(crate) fn mode(
        &self,
        agent: &AgentDefinition,
        flag: Option<ContextMode>,
    ) -> Result<ResolvedMode, SessionError> {
        let overrides = self.store.mode_overrides(&self.info.id)?;
        let inputs = ModeInputs {
            flag,
            session_override: overrides.get(agent.name()).copied(),
            agent_file: agent.spec.context_mode,
        };
        Ok(resolve_mode(agent.name(), inputs, &self.agents)?)
    }

    /// What `agent` sees before the prompt, in `mode`: with the model's `context_window`
    /// known, only what the window can hold (the budget compaction keeps the workspace under),
    /// read newest first; of the main conversation, only what its `contextFilter` lets through.
    pub(crate) fn history(
        &self,
        agent: &AgentDefinition,
        mode: ContextMode,
        context_window: Option<u64>,
    ) -> Result<Vec<Message>, SessionError> {
        if mode == ContextMode::Run {
            // A run starts empty. Nothing is read: the mode came from [`mode`](Self::mode),
            // which read the session's overrides (failing on an unknown session), and the
            // run's start fails on one as well.
            return Ok(Vec::new());
        }
        let store = self.store.as_ref();
        let shared_max = self.agents.shared_context_max_messages;
        let name = agent.name();
        let view = match context_window {
            Some(window) => {
                let budget = CompactionPolicy::for_context_window(window).budget_tokens;
                load_history_within(store, &self.info.id, name, mode, shared_max, budget)?
            }
            None => load_history(store, &self.info.id, name, mode, shared_max)?,
        };
        Ok(match (&agent.spec.context_filter, mode) {
            (Some(filter), ContextMode::Shared) => view.filtered(filter).to_messages(),
            _ => view.to_messages(),
        })
    }

    /// What summarising the oldest messages of the agent's workspace takes, when it no
    /// longer fits the model's context window (`main` for shared agents, `agent:{name}` for
    /// isolated ones; run mode starts empty); `None` when it fits.
    pub(crate) fn pending_compaction(
        &self,
        agent: &str,
        mode: ContextMode,
        context_window: u64,
    ) -> Result<Option<PendingCompaction>, SessionError> {
        let Some(scope) = workspace(agent, mode) else {
            return Ok(None);
        };
        let policy = CompactionPolicy::for_context_window(context_window);
        Ok(PendingCompaction::read(
            self.store.as_ref(),
            &self.info.id,
            &scope,
            &policy,
        )?)
    }

    /// Saves the summary `text` of `pending`; false when another summary of its workspace was
    /// written meanwhile (this one is dropped).
    pub(crate) fn save_compaction(
        &self,
        pending: &PendingCompaction,
        text: &str,
    ) -> Result<bool, SessionError> {
        Ok(pending
            .save(self.store.as_ref(), &self.info.id, text)?
            .is_some())
    }

    /// Whether part of the agent's workspace is due to be summarised now.
    pub(crate) fn compaction_due(
        &self,
        agent: &str,
        mode: ContextMode,
        context_window: u64,
    ) -> Result<bool, SessionError> {
        let Some(scope) = workspace(agent, mode) else {
            return Ok(false);
        };
        let policy = CompactionPolicy::for_context_window(context_window);
        Ok(needs_compaction(
            self.store.as_ref(),
            &self.info.id,
            &scope,
            &policy,
        )?)
    }

    /// Starts a store run of `agent` and records its prompt; `handed_off_by` is the run whose
    /// handoff started this one.
    pub(crate) fn start(
        &self,
        agent: &str,
        mode: ContextMode,
        model: Option<String>,
        prompt: &str,
        handed_off_by: Option<RunId>,
    ) -> Result<RunRecorder, SessionError> {
        let run = NewRun {
            agent: agent.to_owned(),
            mode,
            parent_run_id: handed_off_by,
            handoff: handed_off_by.is_some(),
            model,
            source: if handed_off_by.is_some() {
                Source::HANDOFF
            } else {
                self.source.clone()
            },
        };
        Ok(RunRecorder::start(
            self.dyn_store(),
            &self.info.id,
            &run,
            prompt,
            Vec::new(),
        )?)
    }
}

/// The scope an agent's runs in `mode` see and compaction summarises (`main` for shared
/// agents, `agent:{name}` for isolated ones); none in run mode, which starts empty.
fn workspace(agent: &str, mode: ContextMode) -> Option<ContextScope> {
    match mode {
        ContextMode::Shared => Some(ContextScope::Main),
        ContextMode::Isolated => Some(ContextScope::agent(agent)),
        ContextMode::Run => None,
    }
}

/// The timeline's note of a handoff: who to, why, with what, after which answer.
fn handoff_note(request: &HandoffRequest, text: &str) -> String {
    let mut note = format!("🔄 Handoff: {} → {}", request.from, request.to);
    if !request.reason.trim().is_empty() {
        note.push_str(&format!("\nReason: {}", request.reason.trim()));
    }
    if !request.payload.is_null() {
        note.push_str(&format!("\nPayload: {}", request.payload));
    }
    if !text.trim().is_empty() {
        note.push_str(&format!("\n\n{}", text.trim()));
    }
    note
}

/// A session title: the prompt's first line, shortened.
fn title(prompt: &str) -> String {
    let line = prompt.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(TITLE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// How a run of an agent in `mode` ended, as the store records it: the status, whether the
/// answer shows in the timeline, and for isolated and run-mode agents — and for any agent that
/// handed off — the handoff summary to `main`.
pub(crate) fn run_ending(mode: ContextMode, outcome: &Result<RunResult, RunError>) -> RunEnding {
    let status = match outcome {
        Ok(_) => RunStatus::Completed,
        Err(RunError::Cancelled) => RunStatus::Cancelled,
        Err(_) => RunStatus::Failed,
    };
    let shared = mode == ContextMode::Shared;
    let handoff = match outcome {
        Ok(RunResult {
            handoff: Some(request),
            text,
            ..
        }) => Some(HandoffSummary {
            summary: handoff_note(request, text),
            files_changed: Vec::new(),
            open_items: Vec::new(),
        }),
        Ok(result) if !shared => Some(HandoffSummary {
            summary: result.text.clone(),
            files_changed: Vec::new(),
            open_items: Vec::new(),
        }),
        _ => None,
    };
    RunEnding {
        status,
        answer_visible: shared,
        step: None,
        handoff,
    }
}
