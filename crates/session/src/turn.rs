//! A turn in progress: the stream of its runs' events, each recorded as it passes, and the
//! handoffs between them.
//!
//! When a run finishes by handing off, the turn starts the target agent — its own tools,
//! model, system prompt and context mode — on a brief (the user's request, the reason and the
//! payload, and what the target may see of the conversation), in a store run linked to the
//! one that handed off; the events go on as one stream. At most `agents.maxHandoffs` handoffs
//! are made per turn.

use crate::conversation::Conversation;
use crate::error::SessionError;
use crate::session::{SessionHandle, TurnRecorder};
use crate::shared::{Prepared, Shared};
use crate::toolset::BuiltinTools;
use agentctl_context::{ContextError, ModeInputs, RunId, resolve_mode};
use agentctl_core::{
    AgentDefinition, ContextMode, HandoffHistory, HandoffRequest, Message, RunError, RunEvent,
    RunOptions, RunResult, TraceContext,
};
use agentctl_mcp::McpError;
use agentctl_runtime::{RunHandle, Runtime, model_context_window};
use agentctl_trace::{OpenSpan, RunTracer, TurnTrace};
use futures_util::future::BoxFuture;
use futures_util::{Stream, StreamExt};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio_util::sync::CancellationToken;

/// Something a front end should tell the user about a turn, besides its events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// An `@file:` reference could not be expanded.
    FileReference(String),
    /// Older messages of the agent's workspace were summarised to fit the context window.
    Compacted {
        /// The agent.
        agent: String,
    },
}

/// A turn's tracing: off, or its runs under a parent span — the turn's own `session` root
/// span, or the caller's (a graph node).
pub(crate) struct TurnTracing {
    root: Option<OpenSpan>,
    turn: Option<TurnTrace>,
    run: Option<RunTracer>,
}

impl TurnTracing {
    pub(crate) fn off() -> Self {
        Self {
            root: None,
            turn: None,
            run: None,
        }
    }

    /// Runs under `parent`'s span, which the caller ends.
    pub(crate) fn under(parent: TraceContext) -> Self {
        Self {
            root: None,
            turn: Some(TurnTrace::new(parent)),
            run: None,
        }
    }

    /// Runs under the turn's own root span.
    pub(crate) fn rooted(root: OpenSpan) -> Self {
        Self {
            turn: Some(TurnTrace::new(root.context())),
            root: Some(root),
            run: None,
        }
    }

    /// The context the turn's runs carry (their tools' sub-agents hang under it).
    pub(crate) fn context(&self) -> Option<&TraceContext> {
        self.turn.as_ref().map(TurnTrace::context)
    }

    /// Starts tracing the turn's next run (ending the previous one's, if still open).
    pub(crate) fn next_run(&mut self, agent: &str, prompt: &str, depth: u32) {
        if let Some(run) = self.run.take() {
            run.finish();
        }
        self.run = self
            .turn
            .as_mut()
            .map(|turn| turn.run(agent, prompt, depth));
    }

    fn event(&mut self, event: &RunEvent) {
        if let Some(run) = &mut self.run {
            run.event(event);
        }
        if let Some(turn) = &mut self.turn {
            turn.observe(event);
        }
    }

    fn handoff_failed(&mut self, error: &str) {
        if let Some(turn) = &mut self.turn {
            turn.handoff_failed(error);
        }
    }

    fn finish(mut self, error: Option<&str>) {
        if let Some(run) = self.run.take() {
            run.finish();
        }
        // A handoff the turn never acted on is recorded before the root ends.
        drop(self.turn.take());
        if let Some(root) = self.root.take() {
            root.end(error);
        }
    }
}

/// A turn in progress: a stream of its runs' events.
pub struct Turn<'a> {
    conversation: &'a mut Conversation,
    handle: RunHandle,
    recorder: Option<TurnRecorder>,
    notices: Vec<Notice>,
    /// The user's request, for the brief of an agent a handoff starts.
    prompt: String,
    /// Cancels whichever run of the turn is active.
    cancel: CancellationToken,
    /// The agents of the turn, in order.
    agents: Vec<String>,
    /// The handoff the active run finished with, acted on when its stream ends.
    pending: Option<RunResult>,
    /// The next agent being started.
    switching: Option<BoxFuture<'static, Result<Switch, SessionError>>>,
    /// Why the turn stopped before an answer (handoff limit, a target that could not start).
    stopped: Option<RunError>,
    /// The first store error of the turn's runs.
    save_error: Option<ContextError>,
    /// Warnings met while starting handoff targets (their MCP servers).
    warnings: Vec<McpError>,
    trace: TurnTracing,
}

/// A handoff's target, started.
struct Switch {
    agent: AgentDefinition,
    /// The target's first message.
    brief: String,
    runtime: Runtime,
    mode: ContextMode,
    handle: RunHandle,
    recorder: Option<TurnRecorder>,
    warnings: Vec<McpError>,
}

impl std::fmt::Debug for Turn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn")
            .field("run_id", &self.handle.run_id())
            .field("agents", &self.agents)
            .finish_non_exhaustive()
    }
}

/// How a turn ended.
#[derive(Debug)]
pub struct TurnOutcome {
    /// The last run's result; an error when a run failed or the handoffs stopped early.
    pub result: Result<RunResult, RunError>,
    /// Set when the turn could not be (completely) saved to the session: the run's result
    /// stands, but a front end should report failure.
    pub save_error: Option<ContextError>,
    /// The agents that worked on the turn, in order (more than one after handoffs).
    pub agents: Vec<String>,
    /// Warnings met while starting the agents handoffs passed control to.
    pub warnings: Vec<McpError>,
}

impl<'a> Turn<'a> {
    pub(crate) fn new(
        conversation: &'a mut Conversation,
        handle: RunHandle,
        recorder: Option<TurnRecorder>,
        notices: Vec<Notice>,
        prompt: String,
        cancel: CancellationToken,
        trace: TurnTracing,
    ) -> Self {
        let agents = vec![conversation.agent.name().to_owned()];
        Self {
            conversation,
            handle,
            recorder,
            notices,
            prompt,
            cancel,
            agents,
            pending: None,
            switching: None,
            stopped: None,
            save_error: None,
            warnings: Vec::new(),
            trace,
        }
    }

    /// What to tell the user before the events.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// The active run's id (its store run's id when recorded).
    pub fn run_id(&self) -> &str {
        self.handle.run_id()
    }

    /// A token that cancels the turn, whichever agent is active (for Ctrl-C and signals).
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Waits for the end of the turn — recording the events not read yet — and records its
    /// ending.
    pub async fn finish(mut self) -> TurnOutcome {
        while self.next().await.is_some() {}
        let Turn {
            conversation,
            handle,
            recorder,
            stopped,
            mut save_error,
            agents,
            warnings,
            trace,
            ..
        } = self;
        let result = match stopped {
            Some(error) => Err(error),
            None => handle.result().await,
        };
        trace.finish(result.as_ref().err().map(ToString::to_string).as_deref());
        if let Some(recorder) = recorder
            && let Some(error) = recorder.finish(&result)
        {
            save_error.get_or_insert(error);
        }
        if let Ok(result) = &result
            && conversation.session.is_none()
        {
            conversation.memory.clone_from(&result.messages);
        }
        TurnOutcome {
            result,
            save_error,
            agents,
            warnings,
        }
    }

    /// Closes the run that handed off and starts its target, or stops at the limit.
    fn hand_off(&mut self, finished: RunResult) -> Option<RunEvent> {
        let parent = self.recorder.as_ref().map(|recorder| recorder.run().id);
        if let Some(recorder) = self.recorder.take()
            && let Some(error) = recorder.finish(&Ok(finished.clone()))
        {
            self.save_error.get_or_insert(error);
        }
        let request = finished.handoff?;
        let limit = self.conversation.shared.max_handoffs();
        let made = u32::try_from(self.agents.len()).unwrap_or(u32::MAX);
        if made > limit {
            let mut chain = self.agents.clone();
            chain.push(request.to);
            let error = RunError::HandoffLimit { limit, chain };
            let event = RunEvent::RunFailed {
                error: error.to_string(),
            };
            self.stopped = Some(error);
            return Some(event);
        }
        self.agents.push(request.to.clone());
        if let Some(session) = &self.conversation.session {
            session.chain().advance(&finished.text);
        }
        let mut options = self.conversation.options.clone();
        // The target runs with its own model, not the one given for the first agent, and its
        // tools work in the project, as the first agent's did (not in the process's folder).
        options.model = None;
        options.working_dir = Some(self.conversation.root.clone());
        options.cancel = Some(self.cancel.clone());
        options.trace = self.trace.context().cloned();
        let start = StartTarget {
            shared: Arc::clone(&self.conversation.shared),
            builtin: Arc::clone(&self.conversation.builtin),
            session: self.conversation.session.clone(),
            request,
            answer: finished.text,
            prompt: self.prompt.clone(),
            options,
            parent,
        };
        self.switching = Some(Box::pin(start.run()));
        None
    }
}

impl Stream for Turn<'_> {
    type Item = RunEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        let this = &mut *self;
        loop {
            if let Some(starting) = this.switching.as_mut() {
                let started = match starting.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(started) => started,
                };
                this.switching = None;
                match started {
                    Ok(switch) => {
                        this.trace.next_run(switch.agent.name(), &switch.brief, 0);
                        this.handle = switch.handle;
                        this.recorder = switch.recorder;
                        this.warnings.extend(switch.warnings);
                        this.conversation.agent = switch.agent;
                        this.conversation.runtime = switch.runtime;
                        this.conversation.mode = switch.mode;
                    }
                    Err(error) => {
                        let target = this.agents.last().cloned().unwrap_or_default();
                        let error = RunError::Aborted(format!(
                            "the handoff to `{target}` could not start it: {error}"
                        ));
                        this.trace.handoff_failed(&error.to_string());
                        let event = RunEvent::RunFailed {
                            error: error.to_string(),
                        };
                        this.stopped = Some(error);
                        return Poll::Ready(Some(event));
                    }
                }
            }
            if this.stopped.is_some() {
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.handle).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(event)) => {
                    if let Some(recorder) = this.recorder.as_mut() {
                        recorder.event(&event);
                    }
                    this.trace.event(&event);
                    if let RunEvent::RunFinished { result } = &event
                        && result.handoff.is_some()
                    {
                        this.pending = Some(RunResult::clone(result));
                    }
                    return Poll::Ready(Some(event));
                }
                Poll::Ready(None) => match this.pending.take() {
                    Some(finished) => {
                        if let Some(event) = this.hand_off(finished) {
                            return Poll::Ready(Some(event));
                        }
                    }
                    None => return Poll::Ready(None),
                },
            }
        }
    }
}

/// What starting a handoff's target needs, owned, so the start can run as its own future.
struct StartTarget {
    shared: Arc<Shared>,
    /// The conversation's built-in tools, which the target shares.
    builtin: BuiltinTools,
    session: Option<SessionHandle>,
    request: HandoffRequest,
    /// The handing-off agent's last answer.
    answer: String,
    /// The user's request.
    prompt: String,
    options: RunOptions,
    parent: Option<RunId>,
}

impl StartTarget {
    async fn run(self) -> Result<Switch, SessionError> {
        let StartTarget {
            shared,
            builtin,
            session,
            request,
            answer,
            prompt,
            mut options,
            parent,
        } = self;
        let target = shared.require_agent(&request.to)?;
        let Prepared {
            agent,
            runtime,
            warnings,
            builtin: _,
        } = shared
            .prepare(target, session.as_ref(), Some(builtin))
            .await?;
        let mode = match &session {
            Some(session) => session.mode(&agent, None)?.mode,
            None => {
                let inputs = ModeInputs {
                    flag: None,
                    session_override: None,
                    agent_file: agent.spec.context_mode,
                };
                resolve_mode(agent.name(), inputs, &runtime.settings().agents)?.mode
            }
        };
        let history = request.history.unwrap_or(match mode {
            ContextMode::Shared => HandoffHistory::Full,
            ContextMode::Isolated | ContextMode::Run => HandoffHistory::Summary,
        });
        options.history = match (history, &session) {
            (HandoffHistory::Full, Some(session)) => {
                let window = runtime
                    .resolve_model(&agent, &options)
                    .ok()
                    .map(|model| model_context_window(&model.model));
                session.history(agent.name(), ContextMode::Shared, window)?
            }
            _ => Vec::<Message>::new(),
        };
        // What the target sees is the filter's business; the stored history stays whole.
        options.context_mode = Some(match history {
            HandoffHistory::Full => mode,
            HandoffHistory::Summary | HandoffHistory::None => ContextMode::Run,
        });
        let brief = brief(&request, &answer, &prompt, history);
        let recorder = match &session {
            Some(session) => {
                let model = runtime
                    .resolve_model(&agent, &options)
                    .ok()
                    .map(|model| model.to_string());
                let recorder = session.start(agent.name(), mode, model, &brief, parent)?;
                options.run_id = Some(recorder.run().id.to_string());
                Some(recorder)
            }
            None => None,
        };
        let handle = runtime.run(&agent, &brief, options);
        Ok(Switch {
            brief,
            agent,
            runtime,
            mode,
            handle,
            recorder,
            warnings,
        })
    }
}

/// The first message of a handoff's target: who handed off and why, the payload, what the
/// handing-off agent concluded (unless the filter says none), and the user's request.
fn brief(request: &HandoffRequest, answer: &str, prompt: &str, history: HandoffHistory) -> String {
    let mut text = format!("Handoff from `{}`.", request.from);
    if !request.reason.trim().is_empty() {
        text.push_str(&format!("\nReason: {}", request.reason.trim()));
    }
    if !request.payload.is_null() {
        let payload = serde_json::to_string_pretty(&request.payload)
            .unwrap_or_else(|_| request.payload.to_string());
        text.push_str(&format!("\nPayload:\n```json\n{payload}\n```"));
    }
    if history != HandoffHistory::None && !answer.trim().is_empty() {
        text.push_str(&format!(
            "\n`{}` said before handing off:\n{}",
            request.from,
            answer.trim()
        ));
    }
    text.push_str(&format!("\n\nThe user's request: {}", prompt.trim()));
    text
}
