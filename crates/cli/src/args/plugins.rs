//! `agentctl plugins …`: Claude Code plugins and marketplaces.

use super::TableFormat;
use clap::{Args, Subcommand};

/// `agentctl plugins …`.
#[derive(Debug, Subcommand)]
pub(crate) enum PluginsCommand {
    /// Install a plugin, or plugins of a marketplace, from a folder or a git URL.
    #[command(
        after_help = "Installed plugins bring their agents, commands and skills at once \
(named plugin:name); their hooks and MCP servers run only after `agentctl plugins enable NAME`.\n\n\
Examples:\n  agentctl plugins add ./my-plugin\n  agentctl plugins add ./marketplace --plugin reviewer --plugin docs\n  \
agentctl plugins add https://github.com/owner/marketplace.git --all --project"
    )]
    Add(PluginsAddArgs),
    /// List the installed plugins (name, scope, state, version, source).
    #[command(
        after_help = "Examples:\n  agentctl plugins list\n  agentctl plugins list --format json"
    )]
    List(PluginsListArgs),
    /// Remove an installed plugin (its folder and its record).
    Remove(PluginNameArgs),
    /// Fetch plugins again from where they were installed from.
    #[command(
        after_help = "Examples:\n  agentctl plugins update\n  agentctl plugins update reviewer"
    )]
    Update(PluginsUpdateArgs),
    /// Let a plugin's hooks and MCP servers run (a project's plugin: approve its files as they are now).
    Enable(PluginNameArgs),
    /// Stop a plugin's hooks and MCP servers (its agents, commands and skills stay).
    Disable(PluginNameArgs),
}

/// `agentctl plugins add`.
#[derive(Debug, Args)]
pub(crate) struct PluginsAddArgs {
    /// A plugin folder, a marketplace folder, or a git URL of either.
    pub source: String,
    /// Install this plugin of the marketplace (repeat for more).
    #[arg(long = "plugin", value_name = "NAME")]
    pub plugins: Vec<String>,
    /// Install every plugin of the marketplace.
    #[arg(long, conflicts_with = "plugins")]
    pub all: bool,
    /// Install into the project's .agentctl/plugins instead of $AGENTCTL_HOME/plugins.
    #[arg(long)]
    pub project: bool,
}

/// `agentctl plugins list`.
#[derive(Debug, Args)]
pub(crate) struct PluginsListArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: TableFormat,
}

/// A command naming one installed plugin.
#[derive(Debug, Args)]
pub(crate) struct PluginNameArgs {
    /// The plugin's name.
    pub name: String,
}

/// `agentctl plugins update [NAME]`.
#[derive(Debug, Args)]
pub(crate) struct PluginsUpdateArgs {
    /// The plugin to update; every installed plugin when left out.
    pub name: Option<String>,
}
