//! The agentctl session runner: everything one turn needs between a front end and the agent
//! loop.
//!
//! * [`Project`]: locations, layered settings, the root tools are confined to, the agents found
//!   and the session store.
//! * [`RuntimeBuilder`]: the one way a [`Runtime`](agentctl_runtime::Runtime) is built — the
//!   built-in providers (recorded into a [`Recording`] for `--record`), the agent's tools and
//!   the approval gate of the settings and the front end's [`ApprovalChoice`].
//! * [`SessionRunner`]: finds agents, opens sessions ([`SessionHandle`]), assembles each
//!   agent's tools ([`SessionRunner::tools`]: built-in, MCP, the `task` tool, the handoffs and
//!   memory it declares, the agent pool in the prompt of agents that delegate) and hands out
//!   [`Conversation`]s.
//! * [`Conversation::turn`]: resolves the context mode once, expands `@file:` references,
//!   compacts through the runtime's own providers, loads the history, starts the store run
//!   (whose id the agent run takes) and returns a [`Turn`]: a stream of the run's events,
//!   each recorded as it passes — what the loop committed, never a reconstruction.
//! * [`TaskTool`]: sub-agent tasks in hidden `sub:` workspaces; [`ResourcePool`]: the capability
//!   context of seed 004 — agents as executors, busy while a task runs, and a STOP report
//!   instead of a task no available agent can take.
//! * [`ServedAgents`]: the same turns for `agentctl mcp serve`.
//! * [`GraphRunner`]: graphs of agents, node by node, checkpointed in the session;
//!   [`GraphReplay`] reads a recorded graph run back.
//! * Secrets, from one list of names: [`consumed_secret_names`] and [`env_policy_of`] keep
//!   the variables agentctl reads as credentials out of every process it starts (`bash`,
//!   [`mcp_manager_of`]'s servers, `command:` validators); [`secrets_of`] masks their values
//!   in what is stored and shown.
//! * Private data at rest: stores are created `0600` in `0700` folders and an older, readable
//!   one is made private as it opens, with a notice in [`TightenedFiles`] for the front end.
//!
//! Front ends (the CLI, `mcp serve`, an embedder) parse their input, call this crate and
//! render the events; none of them holds session logic of its own.

mod builder;
mod capability;
mod conversation;
mod error;
mod graph;
mod main_agent;
mod maintenance;
mod project;
mod runner;
mod secrets;
mod serve;
mod session;
mod shared;
mod state;
mod store;
mod task;
mod toolset;
mod turn;

pub use builder::{ApprovalChoice, Recording, RuntimeBuilder};
pub use capability::{
    AgentCapabilityContext, CAPABILITY_TOOLS, CapabilityRow, Executor, ExecutorEntry,
    ExecutorStatus, PoolSummary, ResourcePool, StopReport, TaskSpec,
};
pub use conversation::Conversation;
pub use error::SessionError;
pub use graph::{
    GraphError, GraphOutcome, GraphReplay, GraphRun, GraphRunner, ReplayItem, ReplayNode,
    ReplayTotals, find_branch,
};
pub use main_agent::{MAIN_AGENT, main_agent};
pub use maintenance::compact_now;
pub use project::Project;
pub use runner::SessionRunner;
pub use secrets::{consumed_secret_names, env_policy_of, mcp_manager_of, secrets_of};
pub use serve::{ServeLog, ServedAgents};
pub use session::SessionHandle;
pub use store::{DATABASE_URL_VAR, MigratableStore, StoreLocation, TightenedFiles};
pub use task::{TaskArgs, TaskConfig, TaskReport, TaskStatus, TaskTool};
pub use toolset::{AgentTools, McpTools};
pub use turn::{Notice, Turn, TurnOutcome};
