//! The session engine: one owned [`Session`] that every front end drives — operations in
//! ([`Op`]), one stream of events out ([`SessionEvent`]).
//!
//! A session owns, for its whole life, what is expensive or must be remembered: one runtime
//! (providers built once per configuration, guardrails, the redactor), the approval gate with
//! the answers given "always" for the session, the MCP servers, each agent's tool set
//! (assembled once, its own: a handoff's target or a sub-agent never runs on its caller's), and
//! a store thread through which every read and write of its turns goes. A turn is a task of
//! its own: the session decides whether its target is an agent or a graph, follows handoffs,
//! starts sub-agents, and sends each question to its front end as an event answered with
//! [`Op::Approve`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), agentctl_session::SessionError> {
//! use agentctl_session::{Agent, Session};
//!
//! let agent = Agent::new("greeter", "Greet the user in one sentence.").model("openai:gpt-4o-mini");
//! let session = Session::builder().agent(agent).build().await?;
//! println!("{}", session.ask("Hello!").await?.text);
//! # Ok(()) }
//! ```

mod agent;
mod approvals;
mod builder;
mod code;
mod ctx;
mod events;
mod graph_driver;
mod handoff;
mod kits;
mod lead;
mod locking;
mod ops;
mod prepare;
mod protocol;
mod state;
mod sub_agents;
mod trace;
mod turn;
mod worktree;
mod writer;

pub use approvals::Questions;
pub use builder::SessionBuilder;
pub use code::Agent;
pub(crate) use ctx::TurnCtx;
pub use events::{EventStream, Turn};
pub(crate) use events::{Frame, Sink};
pub use graph_driver::{GraphExecutor, NodeAnswer, NodeCall};
pub(crate) use lead::{AgentOutcome, Lead};
pub use protocol::{EventMsg, Notice, Op, SessionEvent, Target, TurnId, TurnOptions, TurnOutcome};
pub(crate) use state::Engine;
pub(crate) use writer::{Recording, StoreWriter};

use crate::error::SessionError;
use crate::project::Project;
use crate::session::SessionHandle;
use crate::toolset::{AgentTools, McpTools};
use agentctl_context::ResolvedMode;
use agentctl_core::{AgentDefinition, Message, RunResult};
use agentctl_definitions::Discovery;
use agentctl_mcp::McpManager;
use agentctl_routing::{RouteDecision, Router};
use agentctl_sandbox::SandboxStatus;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use turn::Request;

/// A session: agents of a project (or defined in code) talking in one session of the store.
/// Owned, cheap to clone (clones drive the same session), `Send + 'static`.
#[derive(Clone)]
pub struct Session {
    engine: Arc<Engine>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id())
            .field("agents", &self.engine.shared.agents.len())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A builder of a session of agents defined in code.
    pub fn builder() -> SessionBuilder<'static> {
        SessionBuilder::from_code()
    }

    /// A builder of a session of `project`'s agents.
    pub fn from_project(project: &Project) -> SessionBuilder<'_> {
        SessionBuilder::from_project(project)
    }

    pub(crate) fn of(engine: Engine) -> Self {
        Self {
            engine: Arc::new(engine),
        }
    }

    /// Submits `op`; its events (and a turn's) come on [`events`](Self::events), carrying
    /// the returned id. Fails only once the session has shut down.
    pub fn submit(&self, op: Op) -> Result<TurnId, SessionError> {
        let engine = &self.engine;
        if engine.turns.closed.is_cancelled() {
            return Err(SessionError::Closed);
        }
        match op {
            Op::UserTurn {
                target,
                prompt,
                options,
            } => Ok(self.spawn(Request::Prompt { target, prompt }, options)),
            Op::ResumeGraph {
                branch,
                from_step,
                options,
            } => Ok(self.spawn(Request::ResumeGraph { branch, from_step }, options)),
            Op::Approve { call_id, answer } => {
                let id = engine.turns.id();
                if !engine.approvals.desk.answer(&call_id, answer) {
                    self.notice(id, Notice::UnknownApproval { call_id });
                }
                Ok(id)
            }
            Op::Interrupt { turn } => {
                engine.turns.interrupt(turn);
                Ok(engine.turns.id())
            }
            Op::SetContextMode { agent, mode } => {
                let engine = Arc::clone(engine);
                Ok(self.side(
                    async move { engine.set_context_mode(agent, mode).await.map(|n| vec![n]) },
                ))
            }
            Op::Compact { agent } => {
                let engine = Arc::clone(engine);
                Ok(self.side(async move { engine.compact(agent).await }))
            }
            Op::Shutdown => {
                engine.turns.closed.cancel();
                engine.turns.interrupt(None);
                let session = self.clone();
                let id = engine.turns.id();
                drop(engine.handle.spawn(async move { session.shutdown().await }));
                Ok(id)
            }
        }
    }

    /// The session's event stream: every event of the turns [`submit`](Self::submit)ted, and
    /// the questions of [`ask`](Self::ask)'s turns. There is one stream per session: a second
    /// call is an error.
    pub fn events(&self) -> Result<EventStream, SessionError> {
        locking::lock(&self.engine.hub.receiver)
            .take()
            .map(EventStream::new)
            .ok_or(SessionError::EventsTaken)
    }

    /// Starts a turn whose events come on a stream of its own (questions included: answer
    /// them with [`submit`](Self::submit)`(`[`Op::Approve`]`)`).
    pub fn turn(
        &self,
        target: Target,
        prompt: impl Into<String>,
        options: protocol::TurnOptions,
    ) -> Turn {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let (id, cancel) = self.engine.turns.open(options.cancel.as_ref());
        let sink = Sink::all(id, sender);
        let request = Request::Prompt {
            target,
            prompt: prompt.into(),
        };
        self.run(id, cancel.clone(), sink, request, options);
        Turn::new(id, receiver, cancel)
    }

    /// Answers `prompt` in the session's conversation (its first agent, or the one a handoff
    /// left working) and returns the last run's result. Nothing is read from the events:
    /// what needs approval follows the session's [`Questions`] (with
    /// [`Questions::Ask`], the questions come on [`events`](Self::events)).
    pub async fn ask(&self, prompt: &str) -> Result<RunResult, SessionError> {
        self.ask_target(Target::Active, prompt).await
    }

    /// [`ask`](Self::ask) the agent (or graph) `agent`.
    pub async fn ask_agent(&self, agent: &str, prompt: &str) -> Result<RunResult, SessionError> {
        self.ask_target(Target::Agent(agent.to_owned()), prompt)
            .await
    }

    async fn ask_target(&self, target: Target, prompt: &str) -> Result<RunResult, SessionError> {
        let engine = &self.engine;
        if engine.turns.closed.is_cancelled() {
            return Err(SessionError::Closed);
        }
        let (id, cancel) = engine.turns.open(None);
        let _open = Opened {
            engine: Arc::clone(engine),
            id,
        };
        let sink = Sink::questions(id, engine.hub.sender.clone());
        let mut ctx = TurnCtx::new(engine, sink, cancel, protocol::TurnOptions::default());
        let request = Request::Prompt {
            target,
            prompt: prompt.to_owned(),
        };
        ctx.run(request).await.result
    }

    /// A turn on the session's runtime, its outcome as its last event.
    fn spawn(&self, request: Request, options: protocol::TurnOptions) -> TurnId {
        let (id, cancel) = self.engine.turns.open(options.cancel.as_ref());
        let sink = Sink::all(id, self.engine.hub.sender.clone());
        self.run(id, cancel, sink, request, options);
        id
    }

    fn run(
        &self,
        id: TurnId,
        cancel: CancellationToken,
        sink: Sink,
        request: Request,
        options: protocol::TurnOptions,
    ) {
        let engine = Arc::clone(&self.engine);
        let task = async move {
            let _open = Opened {
                engine: Arc::clone(&engine),
                id,
            };
            let mut ctx = TurnCtx::new(&engine, sink.clone(), cancel, options);
            let outcome = ctx.run(request).await;
            drop(ctx);
            sink.emit(EventMsg::TurnFinished(Box::new(outcome)));
        };
        drop(self.engine.handle.spawn(task));
    }

    /// An operation that is not a turn: its notices (or its failure) on the stream.
    fn side(
        &self,
        work: impl std::future::Future<Output = Result<Vec<Notice>, SessionError>> + Send + 'static,
    ) -> TurnId {
        let id = self.engine.turns.id();
        let session = self.clone();
        drop(self.engine.handle.spawn(async move {
            match work.await {
                Ok(notices) => notices
                    .into_iter()
                    .for_each(|notice| session.notice(id, notice)),
                Err(error) => session.notice(
                    id,
                    Notice::Failed {
                        message: error.to_string(),
                    },
                ),
            }
        }));
        id
    }

    /// Starts the settings' MCP servers marked `autoStart` in the background (seed 002): a
    /// server that cannot start is an [`Notice::McpServer`], as when an agent first needs it.
    pub(crate) fn auto_start_servers(&self) {
        let engine = Arc::clone(&self.engine);
        let names: Vec<String> = engine
            .shared
            .builder
            .settings()
            .mcp_servers
            .iter()
            .filter(|(_, server)| server.auto_start)
            .map(|(name, _)| name.clone())
            .collect();
        if names.is_empty() {
            return;
        }
        let handle = engine.handle.clone();
        let task = handle.spawn(async move {
            for name in names {
                if let Err(error) = engine.shared.mcp.tools(&name).await {
                    Sink::all(TurnId(0), engine.hub.sender.clone())
                        .emit(EventMsg::Notice(Notice::McpServer(error)));
                }
            }
        });
        *self
            .engine
            .starting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(task);
    }

    fn notice(&self, id: TurnId, notice: Notice) {
        Sink::all(id, self.engine.hub.sender.clone()).emit(EventMsg::Notice(notice));
    }

    /// Cancels every turn, waits for them to end and their writes to be done, stops the MCP
    /// servers (and their process groups) and writes out buffered trace spans.
    pub async fn shutdown(&self) {
        let engine = &self.engine;
        engine.turns.closed.cancel();
        engine.turns.interrupt(None);
        engine.turns.idle().await;
        let starting = engine
            .starting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(task) = starting {
            // Bounded by each server's startup timeout.
            let _ = task.await;
        }
        let hooks = crate::hooks::SessionHooks::new(
            Arc::clone(&engine.hooks),
            self.id().unwrap_or_default().to_owned(),
            Sink::all(engine.turns.id(), engine.hub.sender.clone()),
        );
        hooks.session_end("other").await;
        engine.shared.mcp.shutdown().await;
        if let Some(store) = &engine.store {
            store.writer.flush().await;
        }
        if engine.shared.tracing.has_exporter() {
            let engine = Arc::clone(engine);
            // The exporter blocks while it delivers: off the async workers.
            let _ = tokio::task::spawn_blocking(move || engine.shared.tracing.shutdown()).await;
        }
    }

    /// The session's id in the store, when it is recorded.
    pub fn id(&self) -> Option<&str> {
        self.engine.session().map(SessionHandle::id)
    }

    /// Every agent found, with load errors.
    pub fn discovery(&self) -> &Discovery {
        &self.engine.shared.discovery
    }

    /// The runnable agent called `name`; otherwise the located errors of the file that would
    /// define it, or close names.
    pub fn require_agent(&self, name: &str) -> Result<AgentDefinition, SessionError> {
        self.engine.shared.require_agent(name)
    }

    /// The router over the runnable agents' triggers.
    pub fn router(&self) -> &Router {
        self.engine.shared.router()
    }

    /// What auto-routing ([`Target::Auto`]) does with `prompt`.
    pub fn route(&self, prompt: &str) -> RouteDecision {
        self.engine.shared.route(prompt)
    }

    /// The tools a run of `agent` is offered in this session — built-in, its MCP servers',
    /// the handoffs and memory it declares, `task` in a recorded session, the embedder's —
    /// before its tool lists filter them ([`ToolFilter::for_agent`](agentctl_core::ToolFilter::for_agent)),
    /// with the MCP tools `which` says; the warnings name servers that could not start.
    pub async fn tools(&self, agent: &str, which: McpTools) -> Result<AgentTools, SessionError> {
        let agent = self.engine.shared.require_agent(agent)?;
        Ok(self.engine.agent_tools(&agent, which).await)
    }

    /// The skills the session's agents may be offered (none for agents defined in code),
    /// found when the session was set up ([`Project::skills`](crate::Project::skills)).
    pub fn skills(&self) -> &crate::definitions::SkillSet {
        &self.engine.shared.skills
    }

    /// The MCP servers of the settings and agents.
    pub fn mcp(&self) -> &McpManager {
        &self.engine.shared.mcp
    }

    /// Whether commands the tools run will be confined, for a front end to say once when
    /// they will not be.
    pub fn sandbox_status(&self) -> SandboxStatus {
        agentctl_sandbox::probe(self.engine.shared.builtin.sandbox())
    }

    /// The secrets masked in what is stored and shown.
    pub fn secrets(&self) -> &agentctl_core::Redactor {
        self.engine.shared.builder.secrets()
    }

    /// Makes `agent` the one [`Target::Active`] turns go to (the conversation's agent).
    pub fn set_active(&self, agent: &str) -> Result<(), SessionError> {
        self.engine.shared.require_agent(agent)?;
        self.engine.set_active(agent);
        Ok(())
    }

    /// The main conversation as an agent, with this session's settings.
    pub fn main_agent(&self) -> AgentDefinition {
        crate::main_agent(self.engine.shared.builder.settings())
    }

    /// How `agent`'s context mode is decided in this session now: its override
    /// ([`Op::SetContextMode`]), its file, the settings — what a turn without a `--context`
    /// flag would use, and what it would be without the override.
    ///
    /// # Errors
    ///
    /// No such agent, a mode the settings refuse, or a store that fails.
    pub async fn context_mode(&self, agent: &str) -> Result<ResolvedMode, SessionError> {
        self.engine.context_mode(agent).await
    }

    /// What `target`'s agent would see before the next prompt (its context mode's history).
    pub async fn history(&self, target: &Target) -> Result<Vec<Message>, SessionError> {
        self.engine.history(target).await
    }
}

/// A running turn, struck off the session's list however its task ends.
struct Opened {
    engine: Arc<Engine>,
    id: TurnId,
}

impl Drop for Opened {
    fn drop(&mut self) {
        self.engine.turns.close(self.id);
    }
}
