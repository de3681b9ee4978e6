//! Arguments of `agentctl sessions …`.

use super::{TableFormat, TextFormat};
use clap::{Args, Subcommand};

/// `agentctl sessions …`.
#[derive(Debug, Subcommand)]
pub(crate) enum SessionsCommand {
    /// List sessions, most recent first.
    #[command(
        after_help = "Examples:\n  agentctl sessions list\n  agentctl sessions list --format json"
    )]
    List(ListArgs),
    /// Show a session's timeline, one workspace (--scope) or every message (--all), and its runs.
    #[command(
        after_help = "Examples:\n  agentctl sessions show 20260101-120000-ab12\n  \
agentctl sessions show 20260101-120000-ab12 --scope agent:code-reviewer\n  \
agentctl sessions show 20260101-120000-ab12 --all --format json"
    )]
    Show(ShowArgs),
    /// Delete a session with its messages, runs and summaries.
    #[command(
        after_help = "Examples:\n  agentctl sessions delete 20260101-120000-ab12\n  \
agentctl sessions delete 20260101-120000-ab12 --yes"
    )]
    Delete(DeleteArgs),
    /// Summarise the older messages of every workspace of a session with a model.
    #[command(
        after_help = "Examples:\n  agentctl sessions compact 20260101-120000-ab12\n  \
agentctl sessions compact 20260101-120000-ab12 --model sonnet"
    )]
    Compact(CompactArgs),
    /// Copy sessions, and agents' long-term memories, between stores: the project's embedded
    /// SQLite store and a PostgreSQL database shared by several machines (or another SQLite
    /// file). Run again, it copies new sessions, brings copies the source outgrew up to date,
    /// skips unchanged ones, and leaves alone (naming them, exit status 1) sessions changed in
    /// both stores since their last copy.
    #[command(
        after_help = "Examples:\n  agentctl sessions migrate --to postgres://agentctl@db.internal:5432/agentctl\n  \
agentctl sessions migrate --from postgres://agentctl@db.internal:5432/agentctl\n  \
agentctl sessions migrate --from sqlite:///backup/sessions.db --to postgres://agentctl@localhost/agentctl\n\n\
Without --from the sessions come from the project's .agentctl/sessions.db (or $AGENTCTL_HOME/sessions.db),\n\
without --to they go there. Keep passwords out of the command line: PGPASSWORD supplies them."
    )]
    Migrate(MigrateArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// Session id (default: the latest session).
    pub id: Option<String>,
    /// Only this workspace: main, agent:NAME, run:ID or sub:AGENT:RUN (hidden steps included).
    #[arg(long, value_name = "SCOPE", conflicts_with = "all")]
    pub scope: Option<String>,
    /// Every message of every workspace, hidden sub-agent steps included.
    #[arg(long)]
    pub all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Args)]
pub(crate) struct DeleteArgs {
    /// Session id.
    pub id: String,
    /// Do not ask for confirmation.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("direction").required(true).multiple(true).args(["from", "to"])))]
pub(crate) struct MigrateArgs {
    /// The store to copy into: postgres://USER@HOST:PORT/DATABASE, sqlite://PATH or a path.
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// The store to copy from (default: the project's embedded store).
    #[arg(long, value_name = "URL")]
    pub from: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Args)]
pub(crate) struct CompactArgs {
    /// Session id.
    pub id: String,
    /// Model that writes the summaries (default: agents.defaultModel).
    #[arg(long)]
    pub model: Option<String>,
}
