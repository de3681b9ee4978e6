//! MCP bridging for agentctl, on the official Rust SDK (`rmcp`).
//!
//! - **Client.** An [`McpManager`] owns one connection per server configured in settings
//!   `mcpServers` (or inline in an agent file): stdio child processes and streamable-HTTP
//!   endpoints, in the shape Claude Code and Gemini CLI users already write, with `${VAR}`
//!   expansion ([`resolve_server`]). Servers start lazily and concurrently; a server's tools
//!   become [`McpTool`]s named `mcp.<server>.<tool>` that implement the runtime's
//!   [`Tool`](agentctl_core::Tool) trait, with a risk derived from their annotations.
//!   Resources and prompts can be listed and read. A server fails with an error naming it,
//!   never a hang: its `timeout` bounds the startup and every request, and a stdio server
//!   that writes anything but JSON-RPC on stdout (a banner, a log line) is stopped at once
//!   with the line quoted ([`McpError::NotJsonRpc`]).
//! - **Project servers.** Servers a project defines (its settings layer, inline in its agent
//!   files) run in the sandbox whatever `sandbox.mcpServers` says, and the project files they
//!   run are trusted on first use: a changed file stops the server until it is approved again
//!   ([`ProjectLaunch`], [`McpError::ScriptChanged`]).
//! - **Server.** [`serve_agents`] exposes agents as MCP tools (input: a prompt; output: the
//!   agent's final text) over any transport, e.g. stdio for `agentctl mcp serve`.
//!
//! No rmcp type appears in the public API: results are converted to this crate's types.

mod config;
mod connection;
mod error;
mod manager;
mod names;
mod process;
mod project;
mod render;
mod serve;
mod stdout;
mod tool;

pub use config::{DEFAULT_TIMEOUT, ServerSpec, TransportSpec, resolve_server};
pub use error::{McpError, Result};
pub use manager::{McpManager, ServerStatus};
pub use names::{qualified_name, sanitize_name};
pub use process::LaunchPolicy;
pub use project::ProjectLaunch;
pub use render::{
    CallOutcome, PromptArgumentInfo, PromptInfo, PromptMessageInfo, ResourceContent, ResourceInfo,
};
pub use serve::{AgentInvoker, ServedAgent, serve_agents, serve_agents_stdio};
/// The cancellation token [`AgentInvoker::invoke`] receives (re-exported so callers need not
/// depend on tokio-util).
pub use tool::{McpTool, McpToolInfo, risk_from_annotations};
