//! Why a session could not be set up or a turn not prepared.

mod graph;

use agentctl_config::ConfigError;
use agentctl_core::{RunError, ToolPatternError};
use agentctl_definitions::AgentLookupError;
use agentctl_memory::MemoryError;
use agentctl_store::ContextError;
use agentctl_tools::RiskLevelError;
pub use graph::GraphError;
use std::path::PathBuf;

/// Why the session runner could not do what was asked. Messages name the file, the agent or
/// the session concerned; front ends add their own advice.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The working directory could not be read.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    /// The project directory given does not exist.
    #[error("project directory {}: no such directory", .0.display())]
    NoProjectDir(PathBuf),
    /// A settings file is unreadable or invalid.
    #[error(transparent)]
    Settings(#[from] ConfigError),
    /// No runnable agent of that name: the located errors of its file, or close names.
    #[error(transparent)]
    Agent(#[from] AgentLookupError),
    /// The session store failed.
    #[error(transparent)]
    Store(#[from] ContextError),
    /// The long-term memory store failed.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// A run could not be prepared (model, provider, tool patterns).
    #[error(transparent)]
    Run(#[from] RunError),
    /// A risk level in the settings or the front end's choices is not one of the five.
    #[error(transparent)]
    RiskLevel(#[from] RiskLevelError),
    /// A permission rule of settings made in code cannot be mapped (rules read from files
    /// that cannot be are reported when loaded and left out).
    #[error("permissions: {0}")]
    PermissionRule(#[from] agentctl_core::RuleError),
    /// An agent's tool allow or deny list does not compile.
    #[error("agent `{agent}`: {source}")]
    ToolPolicy {
        /// Agent name.
        agent: String,
        /// The bad pattern.
        #[source]
        source: ToolPatternError,
    },
    /// A recording was asked for but no model call was made.
    #[error("{}: no model call was made, nothing to record", .0.display())]
    NothingRecorded(PathBuf),
    /// The turn's runs could not (all) be saved to the session: the turn fails, whatever its
    /// answer — no turn is ever lost silently.
    #[error("the session could not be saved: {0}")]
    NotSaved(#[source] ContextError),
    /// A graph could not run, or failed.
    #[error(transparent)]
    Graph(Box<GraphError>),
    /// Auto-routing found no agent: no trigger matched and `agents.defaultAgent` is not set.
    #[error(
        "no agent's triggers match the prompt and no default agent is set (agents.defaultAgent)"
    )]
    NoRoute,
    /// A `UserPromptSubmit` hook refused the prompt (exit code 2 or `decision: block`).
    #[error("a UserPromptSubmit hook refused the prompt: {0}")]
    PromptRefused(String),
    /// A `PreCompact` hook held a manual compaction back (exit code 2 or `decision: block`).
    #[error("a PreCompact hook held the compaction back: {0}")]
    CompactionRefused(String),
    /// A session was built outside a tokio runtime: its turns have nowhere to run.
    #[error("a session must be built inside a tokio runtime (its turns run there)")]
    NoAsyncRuntime,
    /// The session's event stream was taken already (there is one per session).
    #[error("the session's event stream was taken already")]
    EventsTaken,
    /// The session has shut down.
    #[error("the session has shut down")]
    Closed,
    /// A recording could not be written.
    #[error("cannot save the cassette {}: {message}", .path.display())]
    Recording {
        /// The cassette path.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl SessionError {
    /// What a front end can offer beyond the message (naming a model, more turns, a graph to
    /// start or resume, a session to record in), for it to word in its own terms.
    pub fn hint(&self) -> Option<agentctl_core::Hint> {
        match self {
            Self::Run(error) => error.hint(),
            Self::Graph(error) => error.hint(),
            Self::Memory(error) => error.hint(),
            _ => None,
        }
    }
}
