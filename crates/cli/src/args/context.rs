//! Arguments of `agentctl context …` (also spelled `agentctl agents context …`, seed 000).

use super::TextFormat;
use agentctl_core::ContextMode;
use clap::{Args, ValueEnum};

/// `agentctl context …`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  agentctl context code-reviewer\n  \
agentctl agents context bug-fixer --mode isolated\n  \
agentctl agents context --all\n  \
agentctl context code-reviewer --mode shared\n  \
agentctl context code-reviewer --clear --session 20260101-120000-ab12\n  \
agentctl context code-reviewer --clear-history --yes\n  \
agentctl context --all --format json\n  \
agentctl context --instructions")]
#[command(mut_arg("name", |arg| arg.required_unless_present_any(["all", "instructions"])))]
pub(crate) struct ContextArgs {
    #[command(flatten)]
    pub target: ModeTarget,
    /// List the project instructions every agent's system prompt gets (AGENTS.md, CLAUDE.md,
    /// GEMINI.md from the project root down to the current folder, and their `@imports`), in
    /// prompt order, with what was refused.
    #[arg(long, conflicts_with_all = ["name", "all", "mode", "clear", "clear_history", "session"])]
    pub instructions: bool,
    /// Remove the agent's override for the session.
    #[arg(long, conflicts_with_all = ["all", "mode"])]
    pub clear: bool,
    /// Forget the agent's stored context — its isolated workspace's messages and summaries —
    /// in every session of the project (or only `--session ID`); the agent file stays.
    #[arg(long, conflicts_with_all = ["all", "mode", "clear"])]
    pub clear_history: bool,
    /// Do not ask before `--clear-history` (required when stdin is not a terminal).
    #[arg(long, short = 'y', requires = "clear_history")]
    pub yes: bool,
    /// Session id (default: the latest session; `--mode` starts one when there is none).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

/// Which agent's mode to show, and the mode to set: `agentctl context`, `agentctl agents
/// context` and the interactive session's `/agents context` parse the same arguments.
#[derive(Debug, Args, PartialEq, Eq)]
pub(crate) struct ModeTarget {
    /// Agent name.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub name: Option<String>,
    /// Show every agent.
    #[arg(long)]
    pub all: bool,
    /// Override the agent's context mode for the session.
    #[arg(long, value_enum, conflicts_with = "all")]
    pub mode: Option<ModeArg>,
}

/// A context mode on the command line (`--mode`, and `--context` of `run` and
/// `/agents run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// The agent keeps its own history.
    Isolated,
    /// The agent sees the main session history.
    Shared,
    /// A fresh workspace for every run.
    Run,
}

impl From<ModeArg> for ContextMode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Isolated => ContextMode::Isolated,
            ModeArg::Shared => ContextMode::Shared,
            ModeArg::Run => ContextMode::Run,
        }
    }
}
