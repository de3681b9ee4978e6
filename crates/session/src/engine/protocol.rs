//! The session protocol: operations in ([`Op`]), events out ([`SessionEvent`]).
//!
//! A front end submits operations to a [`Session`](crate::Session) and reads one stream of
//! events, each carrying the id of the turn (submission) it belongs to. A question for the user
//! is an event ([`EventMsg::ApprovalRequested`]) answered with an operation ([`Op::Approve`]),
//! never a callback the front end must queue around.

use crate::error::SessionError;
use crate::graph_run::GraphOutcome;
use agentctl_context::ResolvedMode;
use agentctl_core::{ContextMode, Effort, GraphEvent, RunEvent, RunResult};
use agentctl_mcp::McpError;
use agentctl_routing::RouteDecision;
use agentctl_tools::{ApprovalAnswer, ApprovalRequest};
use tokio_util::sync::CancellationToken;

/// The id of a submission; every event of a turn carries its turn's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TurnId(pub(crate) u64);

impl std::fmt::Display for TurnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Who a user turn goes to. Whether an agent is a graph is the session's business: a graph
/// agent named by any target runs its graph.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Target {
    /// The session's conversation: the agent it started with, or the one a handoff in an
    /// earlier turn of the conversation left working (the main conversation when the session
    /// names no agent).
    Active,
    /// The agent of that name (a graph agent runs its graph).
    Agent(String),
    /// The graph agent of that name; an agent without a `graph:` block is an error.
    Graph(String),
    /// The main conversation: the default model, no agent file, the `main` timeline.
    Main,
    /// The agent the prompt routes to: its triggers, else `agents.defaultAgent`.
    Auto,
}

/// What one turn may change about how its agents run. `Default` runs them as their files and
/// the settings say, not streamed.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TurnOptions {
    /// Ask the provider to stream (text deltas as the model writes).
    pub stream: bool,
    /// The first agent's model (agents a handoff starts use their own).
    pub model: Option<String>,
    /// Turn limit of each run.
    pub max_turns: Option<u32>,
    /// The first agent's context mode, over the session override, the file and the settings.
    pub context_mode: Option<ContextMode>,
    /// Upper bound on output tokens per model call.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// The first agent's reasoning effort, over its `effort` (agents a handoff starts, and
    /// sub-agents, use their own).
    pub effort: Option<Effort>,
    /// Token budget of each run (input and output over its model calls), over the agent's
    /// `maxTokens`.
    pub token_budget: Option<u64>,
    /// Cost budget of each run in US dollars, over the agent's `maxCost`.
    pub cost_budget: Option<f64>,
    /// Cancels the turn when fired (as [`Op::Interrupt`] does).
    pub cancel: Option<CancellationToken>,
    /// The tools every run of the turn is narrowed to (names or patterns, as in `tools.allow`;
    /// a custom command's `allowed-tools`): the agents' other tools are denied for the turn.
    /// `None` leaves each agent its own.
    pub allowed_tools: Option<Vec<String>>,
}

impl TurnOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`TurnOptions::stream`].
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Sets [`TurnOptions::model`].
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets [`TurnOptions::max_turns`].
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Sets [`TurnOptions::context_mode`].
    pub fn context_mode(mut self, mode: ContextMode) -> Self {
        self.context_mode = Some(mode);
        self
    }

    /// Sets [`TurnOptions::allowed_tools`].
    pub fn allowed_tools(mut self, tools: Vec<String>) -> Self {
        self.allowed_tools = Some(tools);
        self
    }

    /// Sets [`TurnOptions::cancel`].
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
}

/// An operation submitted to a session.
#[derive(Debug)]
#[non_exhaustive]
pub enum Op {
    /// A prompt for `target`: one turn, its agents following each other's handoffs.
    UserTurn {
        /// Who answers.
        target: Target,
        /// The user's request (`@file:` references are expanded).
        prompt: String,
        /// How the turn's agents run.
        options: TurnOptions,
    },
    /// Continues a graph run of the session from its last checkpoint, or (with `from_step`)
    /// forks a new branch from an earlier one.
    ResumeGraph {
        /// The branch (the newest when `None`).
        branch: Option<u32>,
        /// Re-run from this checkpoint into a new branch.
        from_step: Option<u32>,
        /// How the nodes' agents run.
        options: TurnOptions,
    },
    /// The answer to an [`EventMsg::ApprovalRequested`] question.
    Approve {
        /// The question's `call_id`.
        call_id: String,
        /// Run it once, run it (and further calls of the tool up to its risk) for the rest of
        /// the session, or refuse it.
        answer: ApprovalAnswer,
    },
    /// Cancels a turn, whichever of its agents is working (every turn when `None`).
    Interrupt {
        /// The turn.
        turn: Option<TurnId>,
    },
    /// Sets (or with `None` clears) an agent's context mode for the rest of the session.
    SetContextMode {
        /// The agent.
        agent: String,
        /// The mode.
        mode: Option<ContextMode>,
    },
    /// Summarises the older messages of an agent's workspace now (every workspace of the
    /// session when `None`), with the agent's model (else `agents.defaultModel`).
    Compact {
        /// The agent.
        agent: Option<String>,
    },
    /// Cancels every turn and stops the session's MCP servers.
    Shutdown,
}

/// One event of a session: what happened, and the turn it belongs to.
#[derive(Debug)]
pub struct SessionEvent {
    /// The turn (submission) the event belongs to.
    pub turn: TurnId,
    /// What happened.
    pub msg: EventMsg,
}

/// What happened in a session.
#[derive(Debug)]
#[non_exhaustive]
pub enum EventMsg {
    /// The turn began: who works on it, in which context.
    TurnStarted {
        /// The first agent (the graph's name for a graph).
        agent: String,
        /// Its `title`, as a run's header shows it (seed 002: `🤖 Debug Analyzer`).
        title: Option<String>,
        /// Whether the agent is a graph, run node by node.
        graph: bool,
        /// How its context mode was decided; `None` for the main conversation and graphs.
        context: Option<ResolvedMode>,
        /// The session recording the turn, if any.
        session_id: Option<String>,
    },
    /// An event of the active agent's run.
    Run(RunEvent),
    /// A handoff started its target.
    AgentSwitched {
        /// The agent that handed off.
        from: String,
        /// The agent now working.
        to: String,
        /// Why, as the model said.
        reason: String,
    },
    /// A call waits for the user: answer with [`Op::Approve`] and this `call_id`. Calls of
    /// sub-agents (`task`) and of agents a handoff started are asked the same way.
    ApprovalRequested(ApprovalRequest),
    /// An event of a graph run (its nodes' run events inside [`GraphEvent::Run`]).
    Graph(GraphEvent),
    /// Something to tell the user besides the runs' events.
    Notice(Notice),
    /// The turn ended. Always the turn's last event.
    TurnFinished(Box<TurnOutcome>),
}

/// Something a front end should tell the user, besides the runs' events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notice {
    /// An `@file:` reference could not be expanded.
    FileReference(String),
    /// Something about the project instructions deserves a look: an `@import` refused
    /// (outside the root, a cycle, too deep), a file not read or cut at the size limit.
    Instructions(crate::instructions::InstructionWarning),
    /// Older messages of the agent's workspace were summarised to fit the context window.
    Compacted {
        /// The agent.
        agent: String,
    },
    /// Auto-routing picked an agent ([`Target::Auto`]).
    Routed(RouteDecision),
    /// An MCP server an agent names could not start: its tools are missing, everything else
    /// works.
    McpServer(McpError),
    /// An agent's context mode was set for the session ([`Op::SetContextMode`]).
    ContextModeSet {
        /// The agent.
        agent: String,
        /// The mode, `None` when the override was cleared.
        mode: Option<ContextMode>,
    },
    /// An [`Op::Approve`] named no pending question (answered already, or cancelled).
    UnknownApproval {
        /// The id given.
        call_id: String,
    },
    /// An operation other than a turn failed.
    Failed {
        /// Why.
        message: String,
    },
    /// An agent's memory folder (`memory: project`) could not be set up, or waits for the
    /// project's trust: the agent runs without it.
    MemoryFolder(crate::memory_folder::MemoryFolderWarning),
    /// A hook could not run, failed (an exit code other than 0 and 2), timed out or was
    /// declared wrong: nothing was blocked by it.
    Hook {
        /// The event (`PreToolUse`, …).
        event: String,
        /// Where it was declared (a settings layer, an agent file).
        origin: String,
        /// Its command line (empty for a declaration).
        command: String,
        /// What went wrong.
        message: String,
    },
}

/// How a turn ended.
#[derive(Debug)]
pub struct TurnOutcome {
    /// The last run's result (the last node's for a graph); an error when a run failed, the
    /// handoffs stopped early, the turn could not start or could not be saved
    /// ([`SessionError::NotSaved`]: no turn is ever lost silently).
    pub result: Result<RunResult, SessionError>,
    /// The agents that worked on the turn, in order (more than one after handoffs).
    pub agents: Vec<String>,
    /// How a graph turn ended.
    pub graph: Option<GraphOutcome>,
}

impl TurnOutcome {
    /// The outcome of a turn that could not start, or was lost.
    pub fn failed(error: SessionError) -> Self {
        Self {
            result: Err(error),
            agents: Vec::new(),
            graph: None,
        }
    }
}
