//! The agentctl session engine: everything a turn needs between a front end and the agent
//! loop, owned by one [`Session`] that every front end drives.
//!
//! * [`Session`]: built from a [`Project`] ([`Session::from_project`]) or from agents defined
//!   in code ([`Agent`], [`Session::builder`]). It owns, for its whole life, one
//!   [`Runtime`](agentctl_runtime::Runtime) (providers, guardrails, redactor), one approval
//!   gate (so an "always" answer holds across handoffs, `@agent` turns, sub-agents and later
//!   turns), the MCP servers, each agent's own tool set, and the store, written on a thread of
//!   its own. Front ends [`submit`](Session::submit) an [`Op`] and read one stream of
//!   [`SessionEvent`]s ([`Session::events`]); a question the gate leaves to a person is an
//!   [`EventMsg::ApprovalRequested`], answered with [`Op::Approve`] ([`Questions::Ask`]).
//! * The library decides what a target is: an agent, a graph (checkpointed in the session,
//!   [`GraphReplay`] reads it back), or the main conversation — for the first turn, a handoff,
//!   a `task` child and `mcp serve` alike.
//! * [`RuntimeBuilder`]: the one way a runtime is built — the built-in providers (recorded into
//!   a [`Recording`] for `--record`), the gate of the settings and the front end's
//!   [`ApprovalChoice`].
//! * [`Session::tools`]: the one assembly of an agent's tools — built-in, its MCP servers', the
//!   handoffs and memory it declares, `task`, the embedder's — used by runs and by
//!   `agents tools` alike.
//! * [`TaskTool`]: sub-agent tasks in hidden `sub:` workspaces; [`ResourcePool`]: the capability
//!   context of seed 004 — agents as executors, busy while a task runs, and a STOP report
//!   instead of a task no available agent can take.
//! * [`ServedAgents`]: the agents `agentctl mcp serve` offers, each call a turn of a session.
//! * Secrets, from one list of names: [`consumed_secret_names`] and [`env_policy_of`] keep
//!   the variables agentctl reads as credentials out of every process it starts (`bash`,
//!   [`mcp_manager_of`]'s servers, `command:` validators); [`secrets_of`] masks their values
//!   in what is stored and shown.
//! * [`semantic_checks`]: the full set of agent-definition checks (guardrails, conditions,
//!   graphs) that discovery and `agents validate` run beside the parser's own.
//! * Private data at rest: stores are created `0600` in `0700` folders and an older, readable
//!   one is made private as it opens, with a notice in [`TightenedFiles`] for the front end.
//!
//! Front ends (the CLI, `mcp serve`, an embedder) parse their input, drive a [`Session`] and
//! render its events; none of them holds session logic of its own.
//!
//! What a front end drives daily is at the root. The types and helpers it only names or
//! renders are grouped by concern, each under one path: [`config`], [`context`],
//! [`definitions`], [`graph`], [`mcp`], [`memory`], [`routing`], [`sandbox`], [`store`],
//! [`tools`] and [`trace`]. A front end depends on this crate and `agentctl-core` alone.

pub mod config;
pub mod context;
pub mod definitions;
pub mod graph;
pub mod instructions;
pub mod mcp;
pub mod memory;
pub mod routing;
pub mod sandbox;
pub mod store;
pub mod tools;
pub mod trace;

mod agent_file;
mod builder;
mod capability;
mod chain;
mod checks;
mod commands;
mod current;
mod engine;
mod error;
mod gitignore;
mod graph_run;
mod hooks;
mod initial_prompt;
mod listing;
mod main_agent;
mod maintenance;
mod memories;
mod memory_folder;
mod migrate;
mod modes;
mod plan;
mod plugins;
mod project;
mod record;
mod route;
mod secrets;
mod serve;
mod session;
mod shared;
mod skills;
mod state;
mod store_location;
mod task;
mod toolset;
mod trust;
mod validators;

pub use builder::{ApprovalChoice, Recording, RuntimeBuilder};
pub use capability::{
    AgentCapabilityContext, CAPABILITY_ALIASES, CAPABILITY_TOOLS, CapabilityRow, Executor,
    ExecutorEntry, ExecutorStatus, PoolSummary, ResourcePool, StopReport, TaskSpec,
    resolve_capability,
};
pub use checks::{semantic_checks, semantic_checks_with};
pub use commands::{BUILTIN_COMMANDS, command_turn};
pub use engine::{
    Agent, EventMsg, EventStream, GraphExecutor, NodeAnswer, NodeCall, Notice, Op, Questions,
    Session, SessionBuilder, SessionEvent, Target, Turn, TurnId, TurnOptions, TurnOutcome,
};
pub use error::SessionError;
pub use graph_run::{
    GraphError, GraphOutcome, GraphReplay, ReplayItem, ReplayNode, ReplayTotals, find_branch,
};
pub use hooks::{
    DEFAULT_HOOK_TIMEOUT_SECS, HookCommand, HookEvent, HookSet, HookWarning, MAX_HOOK_STDERR_BYTES,
    MAX_HOOK_STDOUT_BYTES, MAX_HOOK_TIMEOUT_SECS, Matcher,
};
pub use initial_prompt::front_prompt;
pub use main_agent::{MAIN_AGENT, main_agent};
pub use maintenance::{Compaction, compact_now};
pub use plan::{
    MAX_PLAN_ITEMS, PLAN_STATE_KEY, PlanTools, TODO_READ, TODO_WRITE, TodoInput, TodoReadArgs,
    TodoWriteArgs,
};
pub use plugins::{
    GIT_TIMEOUT, MARKETPLACE_MANIFEST, MAX_MARKETPLACE_PLUGINS, MAX_PLUGIN_BYTES, MAX_PLUGIN_FILES,
    PLUGIN_ROOT_VAR, PluginAddRequest, PluginChange, PluginHooks, PluginOpError, PluginState,
};
pub use project::Project;
pub use secrets::{consumed_secret_names, env_policy_of, mcp_manager_of, secrets_of};
pub use serve::{ServeLog, ServedAgents};
pub use session::SessionHandle;
pub use skills::SKILL_TOOL;
pub use store_location::{DATABASE_URL_VAR, MigratableStore, StoreLocation, TightenedFiles};
pub use task::{TaskArgs, TaskConfig, TaskReport, TaskStatus, TaskTool};
pub use toolset::{AgentTools, McpTools};
