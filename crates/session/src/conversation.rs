//! One agent talking in one session, turn after turn: the context mode is resolved once; each
//! turn expands the prompt's `@file:` references, compacts the agent's workspace when it
//! outgrew the model's window (through the runtime's own providers, so `--record` captures it),
//! loads the history, starts the store run — whose id the agent run takes — and records every
//! turn the loop commits.

use crate::error::SessionError;
use crate::session::SessionHandle;
use crate::shared::Shared;
use crate::toolset::BuiltinTools;
use crate::turn::{Notice, Turn, TurnTracing};
use agentctl_context::{
    ContextError, ModeInputs, ProviderSummarizer, ResolvedMode, Summarizer, SummaryRequest,
    TraceLog, expand_file_references, resolve_mode,
};
use agentctl_core::{AgentDefinition, ContextMode, Message, RunError, RunOptions, SpanDetail};
use agentctl_runtime::{Runtime, model_context_window};
use async_trait::async_trait;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// An agent, its session (if recorded) and its context mode. After a turn that handed off,
/// the conversation goes on with the agent that had the last word.
pub struct Conversation {
    pub(crate) shared: Arc<Shared>,
    pub(crate) runtime: Runtime,
    /// The built-in tools, shared by the agents handoffs pass control to.
    pub(crate) builtin: BuiltinTools,
    pub(crate) agent: AgentDefinition,
    /// Options every turn starts from (model, turn limit, streaming…).
    pub(crate) options: RunOptions,
    pub(crate) session: Option<SessionHandle>,
    pub(crate) mode: ContextMode,
    /// How the mode was decided; `None` for the main conversation, whose workspace is always
    /// the `main` timeline.
    resolved: Option<ResolvedMode>,
    /// The conversation so far when no session records it.
    pub(crate) memory: Vec<Message>,
    pub(crate) root: PathBuf,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation")
            .field("agent", &self.agent.name())
            .field("session", &self.session)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Conversation {
    /// Resolves the agent's context mode: `options.context_mode` > the session's override >
    /// agent file > settings > isolated (shared refused when the settings forbid it). The main
    /// conversation (`main`) always works in the `main` timeline.
    pub(crate) fn new(
        shared: Arc<Shared>,
        (runtime, builtin): (Runtime, BuiltinTools),
        agent: AgentDefinition,
        session: Option<SessionHandle>,
        options: RunOptions,
        root: PathBuf,
        main: bool,
    ) -> Result<Self, SessionError> {
        let flag = options.context_mode;
        let resolved = match &session {
            _ if main => None,
            Some(session) => Some(session.mode(&agent, flag)?),
            None => {
                let inputs = ModeInputs {
                    flag,
                    session_override: None,
                    agent_file: agent.spec.context_mode,
                };
                Some(
                    resolve_mode(agent.name(), inputs, &runtime.settings().agents)
                        .map_err(SessionError::Store)?,
                )
            }
        };
        let mode = resolved.map_or(ContextMode::Shared, |resolved| resolved.mode);
        Ok(Self {
            shared,
            runtime,
            builtin,
            agent,
            options,
            session,
            mode,
            resolved,
            memory: Vec::new(),
            root,
        })
    }

    /// The session's id, when the conversation is recorded.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref().map(SessionHandle::id)
    }

    /// The agent.
    pub fn agent(&self) -> &AgentDefinition {
        &self.agent
    }

    /// The context mode in effect.
    pub fn mode(&self) -> ContextMode {
        self.mode
    }

    /// How the context mode was decided (which layer, and the agent's own mode); `None` for
    /// the main conversation, which always works in the `main` timeline.
    pub fn resolved_mode(&self) -> Option<ResolvedMode> {
        self.resolved
    }

    /// What the agent would see before the next prompt.
    pub fn history(&self) -> Result<Vec<Message>, SessionError> {
        match &self.session {
            Some(session) => {
                // Without a resolvable model the run reports it; the history is then whole.
                let window = self
                    .runtime
                    .resolve_model(&self.agent, &self.options)
                    .ok()
                    .map(|model| model_context_window(&model.model));
                session.history(self.agent.name(), self.mode, window)
            }
            None if self.mode == ContextMode::Run => Ok(Vec::new()),
            None => Ok(self.memory.clone()),
        }
    }

    /// Starts one turn. The error is a session problem before the run started; the run's own
    /// outcome comes from [`Turn::finish`].
    pub async fn turn(&mut self, prompt: &str) -> Result<Turn<'_>, SessionError> {
        let root = self.root.clone();
        let raw = prompt.to_owned();
        // Reading the referenced files is file I/O: keep it off the async workers.
        let expansion = tokio::task::spawn_blocking(move || expand_file_references(&root, &raw))
            .await
            .map_err(|error| SessionError::Run(RunError::Aborted(error.to_string())))?;
        let mut notices: Vec<Notice> = expansion
            .warnings
            .iter()
            .cloned()
            .map(Notice::FileReference)
            .collect();
        // One token for the whole turn: it cancels whichever agent a handoff made active.
        let cancel = match &self.options.cancel {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        };
        let mut options = self.options.clone();
        options.cancel = Some(cancel.clone());
        options.context_mode = Some(self.mode);
        options.working_dir = Some(self.root.clone());
        if self.compact(&options).await? {
            notices.push(Notice::Compacted {
                agent: self.agent.name().to_owned(),
            });
        }
        options.history = self.history()?;
        let trace = self.trace(&options, &expansion.text);
        options.trace = trace.context().cloned();
        let recorder = match &self.session {
            Some(session) => {
                session.chain().start();
                let model = self
                    .runtime
                    .resolve_model(&self.agent, &options)
                    .ok()
                    .map(|model| model.to_string());
                let recorder =
                    session.start(self.agent.name(), self.mode, model, &expansion.text, None)?;
                // The agent run takes its store run's id: tools that record (`task`) find
                // their parent from it.
                options.run_id = Some(recorder.run().id.to_string());
                Some(recorder)
            }
            None => None,
        };
        let mut trace = trace;
        trace.next_run(self.agent.name(), &expansion.text, options.depth);
        let handle = self.runtime.run(&self.agent, &expansion.text, options);
        Ok(Turn::new(
            self,
            handle,
            recorder,
            notices,
            expansion.text,
            cancel,
            trace,
        ))
    }

    /// Where the turn's spans go: under the caller's span when the options carry one (a
    /// graph node), else under a new `session` root span when the turn is traced.
    fn trace(&self, options: &RunOptions, prompt: &str) -> TurnTracing {
        if let Some(parent) = &options.trace {
            return TurnTracing::under(parent.clone());
        }
        let store = self.session.as_ref().map(|session| {
            (
                Arc::clone(session.store()) as Arc<dyn TraceLog>,
                session.id(),
            )
        });
        let detail = SpanDetail::Session {
            prompt: prompt.to_owned(),
        };
        match self
            .shared
            .tracing
            .begin(self.agent.spec.tracing.as_ref(), store, detail)
        {
            Some(root) => TurnTracing::rooted(root),
            None => TurnTracing::off(),
        }
    }

    /// Compacts the agent's workspace with its own model when it outgrew the context window.
    async fn compact(&self, options: &RunOptions) -> Result<bool, SessionError> {
        let Some(session) = &self.session else {
            return Ok(false);
        };
        // Without a resolvable model the run itself reports the problem.
        let Ok(model) = self.runtime.resolve_model(&self.agent, options) else {
            return Ok(false);
        };
        let summarizer = RuntimeSummarizer {
            runtime: &self.runtime,
            model: &model,
        };
        let window = model_context_window(&model.model);
        session
            .compact(self.agent.name(), self.mode, &summarizer, window)
            .await
    }
}

/// Summarises with the agent's own model, through the runtime's providers; the provider is
/// only built when a scope actually needs compacting.
struct RuntimeSummarizer<'a> {
    runtime: &'a Runtime,
    model: &'a agentctl_core::ModelRef,
}

#[async_trait]
impl Summarizer for RuntimeSummarizer<'_> {
    async fn summarize(&self, request: SummaryRequest<'_>) -> agentctl_context::Result<String> {
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
