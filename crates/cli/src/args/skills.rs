//! `agentctl skills …`: the skills agents can load.

use super::{TableFormat, TextFormat};
use clap::{Args, Subcommand};

/// `agentctl skills …`.
#[derive(Debug, Subcommand)]
pub(crate) enum SkillsCommand {
    /// List the skills of the project and the user (name, scope, description).
    #[command(
        after_help = "Examples:\n  agentctl skills list\n  agentctl skills list --format json"
    )]
    List(SkillsListArgs),
    /// Show a skill: its front matter, instructions and bundled files.
    #[command(
        after_help = "Examples:\n  agentctl skills show pdf\n  agentctl skills show pdf --format json"
    )]
    Show(SkillsShowArgs),
}

/// `agentctl skills list`.
#[derive(Debug, Args)]
pub(crate) struct SkillsListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

/// `agentctl skills show NAME`.
#[derive(Debug, Args)]
pub(crate) struct SkillsShowArgs {
    /// The skill's name (`plugin:name` for a plugin's skill).
    pub name: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}
