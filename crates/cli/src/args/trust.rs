//! Arguments of `agentctl trust`.

use super::TextFormat;
use clap::Args;

/// `agentctl trust [--show | --revoke]`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  agentctl trust\n  agentctl trust --show\n  \
agentctl trust --show --format json\n  agentctl trust --revoke\n\n\
A project's `.agentctl/settings.json` is written by whoever wrote the project. Until you trust\n\
the project, its values that loosen your own settings are ignored (each is reported): more\n\
auto-approved risk levels, a sandbox that confines less, network or hosts your settings do not\n\
allow, more writable roots or passed-through variables, a tool rated lower, providers that\n\
would send a key elsewhere, MCP servers that read your environment or replace yours. Values\n\
that tighten your settings always apply.\n\n\
`agentctl trust` records the project (its real path) with the SHA-256 of its settings as they\n\
are now, prints what they loosen, and records the files the project's MCP servers run as they\n\
are now. Any later change to the settings file withdraws the trust until you trust it again;\n\
a changed server file stops that server until you approve it again (this command, or `yes`\n\
when a run asks on a terminal). The record is `$AGENTCTL_HOME/trust/trusted-projects.json`."
)]
pub(crate) struct TrustArgs {
    /// Show whether the project is trusted, what its settings loosen and the recorded files
    /// of its MCP servers; change nothing.
    #[arg(long, conflicts_with = "revoke")]
    pub show: bool,
    /// Withdraw the trust in this project and forget the recorded files of its MCP servers.
    #[arg(long)]
    pub revoke: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}
