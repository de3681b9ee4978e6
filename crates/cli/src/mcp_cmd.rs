//! `agentctl mcp`: inspect and call the configured MCP servers, and serve agents over MCP.
//!
//! Every subcommand builds an [`McpManager`] from the settings' `mcpServers` (whose servers see
//! none of the secrets agentctl consumes), does its work on a small async runtime and shuts the
//! servers down before returning, so no server process outlives the command. Human output shows
//! what servers send with control characters and escape sequences escaped, as `run` does;
//! `--format json` keeps it raw.

mod inspect;
mod serve;

use crate::args::GlobalArgs;
use crate::args::mcp::McpCommand;
use agentctl_session::mcp::McpManager;
use std::future::Future;
use std::process::ExitCode;

/// Runs `agentctl mcp …`.
pub(crate) fn run(global: &GlobalArgs, command: McpCommand) -> anyhow::Result<ExitCode> {
    let context = crate::context::load(global)?;
    // Agents' inline servers reference secrets too: none of them reaches these servers.
    let agents: Vec<_> = context
        .discover()
        .agents
        .into_iter()
        .map(|loaded| loaded.definition)
        .collect();
    let manager = context.mcp_manager(&agents);
    match command {
        McpCommand::List(args) => block_on(&manager, inspect::list(&manager, &args)),
        McpCommand::Tools(args) => block_on(&manager, inspect::tools(&manager, &args)),
        McpCommand::Call(args) => block_on(&manager, inspect::call(&manager, &args)),
        McpCommand::Resources(args) => block_on(&manager, inspect::resources(&manager, &args)),
        McpCommand::Prompts(args) => block_on(&manager, inspect::prompts(&manager, &args)),
        // Serving starts the servers of each agent it runs, through the session runner.
        McpCommand::Serve(args) => serve::serve(&context, &args),
    }
}

/// Runs a command's future, then stops every MCP server, also on Ctrl-C or SIGTERM (which is
/// how MCP clients stop `mcp serve`): the servers run in process groups of their own, so
/// nobody else would stop them.
pub(super) fn block_on(
    manager: &McpManager,
    work: impl Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    // `mcp serve` may leave a blocking stdin read in flight: the process's runtime is never
    // waited for.
    crate::rt::block_on(until_interrupted(manager, work))?
}

/// Runs `work`, then stops every MCP server of `manager`, also on Ctrl-C or SIGTERM.
pub(super) async fn until_interrupted(
    manager: &McpManager,
    work: impl Future<Output = anyhow::Result<ExitCode>>,
) -> anyhow::Result<ExitCode> {
    let outcome = tokio::select! {
        outcome = work => outcome,
        () = interrupted() => Err(anyhow::anyhow!("interrupted")),
    };
    manager.shutdown().await;
    outcome
}

/// Resolves on Ctrl-C, or on SIGTERM on Unix.
async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
