//! Arguments of `agentctl memory …`.

use super::{TableFormat, TextFormat};
use clap::{Args, Subcommand};

/// `agentctl memory …`.
#[derive(Debug, Subcommand)]
pub(crate) enum MemoryCommand {
    /// List long-term memories, newest first.
    #[command(after_help = "Examples:\n  agentctl memory list\n  \
agentctl memory list --agent debug-analyzer --format json")]
    List(MemoryListArgs),
    /// Search long-term memories by keyword (BM25), best first.
    #[command(
        after_help = "Examples:\n  agentctl memory search 'flaky login test'\n  \
agentctl memory search deploy --agent debug-analyzer --format json\n\n\
Any text is a query: it is cut into words, and entries with more (and rarer) of them rank\n\
first. The search is by keyword only, also for agents whose backend is vector_store."
    )]
    Search(MemorySearchArgs),
    /// Delete one long-term memory.
    #[command(after_help = "Examples:\n  agentctl memory forget 12\n  \
agentctl memory forget 12 --agent debug-analyzer")]
    Forget(MemoryForgetArgs),
    /// List the agents' memory folders (`memory: user|project|local`) and their MEMORY.md.
    #[command(after_help = "Examples:\n  agentctl memory folders\n  \
agentctl memory folders --format json\n\n\
An agent with `memory: user` keeps notes in ~/.claude/agent-memory/<agent>/, `project` in\n\
.claude/agent-memory/<agent>/ and `local` in .claude/agent-memory-local/<agent>/ (kept out of\n\
git). The first 200 lines of the folder's MEMORY.md open the agent's memory section in its\n\
system prompt. Nothing is created here.")]
    Folders(MemoryFoldersArgs),
}

#[derive(Debug, Args)]
pub(crate) struct MemoryFoldersArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct MemoryListArgs {
    /// Only this agent's memories.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct MemorySearchArgs {
    /// What to look for.
    pub query: String,
    /// Only this agent's memories.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// How many results at most (1 to 50).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct MemoryForgetArgs {
    /// The memory's id (as `memory list` shows it; `#12` or `12`).
    pub id: String,
    /// Only if it belongs to this agent.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}
