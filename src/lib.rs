#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! This umbrella crate re-exports every library crate of the workspace so an embedding program
//! needs a single dependency. The `agentctl` binary is built from this package too.
//!
//! [`prelude`] holds what a hello world and a tool of your own need (`use agentctl::prelude::*;`);
//! everything else is under the module of its concern, below.
//!
//! - [`core`]: the contracts — agent definitions, messages, settings, the model-provider and
//!   tool traits, run events, the approval contract; no I/O;
//! - [`config`]: file locations and layered `settings.json`;
//! - [`definitions`]: agent files (native, Claude Code, Gemini CLI): parse, validate, discover;
//! - [`providers`]: model providers (OpenAI-compatible, Anthropic, Gemini, scripted cassettes);
//! - [`cassette`]: the cassette format of model calls and its replay;
//! - [`runtime`]: the agent loop;
//! - [`tools`]: built-in tools confined to the project root, risk rating, the approval policy;
//! - [`sandbox`]: Landlock confinement and scrubbed environments for what tools start;
//! - [`store`]: the session store contracts — the store traits and their records; no I/O;
//! - [`store_sqlite`]: the embedded session store, one SQLite file per project;
//! - [`context`]: context modes, history views, compaction, `@file:` references;
//! - [`mcp`]: MCP servers as tools, and agents served over MCP;
//! - [`memory`]: agents' long-term memory — the embedded FTS5 store, embeddings fused by rank,
//!   the `remember` and `recall` tools;
//! - [`guardrails`]: checks of agents' input and output — JSON Schemas, built-in and registered
//!   validators, sandboxed validator programs;
//! - [`routing`]: routing by triggers, handoff tools, CEL conditions over session state;
//! - [`session`]: the session runner — everything a turn needs between a front end and the
//!   loop;
//! - [`store_postgres`]: the session store on PostgreSQL, shared by several machines.

// The contracts every crate speaks.
pub use agentctl_core as core;

// Running agents: the session engine, the loop, model providers.
pub use agentctl_cassette as cassette;
pub use agentctl_providers as providers;
pub use agentctl_runtime as runtime;
pub mod session;
// Defining agents and configuring them.
pub use agentctl_config as config;
pub use agentctl_definitions as definitions;

// What agents can do, and what confines it.
pub use agentctl_mcp as mcp;
pub use agentctl_sandbox as sandbox;
pub use agentctl_tools as tools;

// What agents remember: sessions, context, long-term memory.
pub use agentctl_context as context;
pub use agentctl_memory as memory;
pub use agentctl_store as store;
pub use agentctl_store_postgres as store_postgres;
pub use agentctl_store_sqlite as store_sqlite;

// Deciding and checking: routing, handoffs, graphs, guardrails.
pub use agentctl_guardrails as guardrails;
pub use agentctl_routing as routing;

// Observing: traces of runs.
pub use agentctl_trace as trace;

/// What a hello world, a tool of your own and a session driven by its events need, in one
/// `use agentctl::prelude::*;`. Each name keeps its home under its concern's module
/// (`agentctl::session::Session` is the same type as `agentctl::prelude::Session`).
///
/// ```no_run
/// use agentctl::prelude::*;
///
/// # async fn demo() -> anyhow::Result<()> {
/// let agent = Agent::new("greeter", "Greet the user in one sentence.").model("openai:gpt-4o-mini");
/// let session = Session::builder().agent(agent).build().await?;
/// let result: RunResult = session.ask("Hello!").await?;
/// println!("{}", result.text);
/// # Ok(())
/// # }
/// ```
pub mod prelude {
    pub use agentctl_core::{RiskLevel, RunEvent, RunResult, ToolError, tool_fn};
    pub use agentctl_session::{
        Agent, EventMsg, Op, Project, Questions, Session, Target, TurnOptions,
    };
    pub use agentctl_tools::ApprovalAnswer;
    /// The stream traits a session's events are read with (`events.next().await`), so an
    /// embedder needs no `futures` dependency of its own.
    pub use futures_util::{Stream, StreamExt};
}
