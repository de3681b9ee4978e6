//! `agentctl plugins add|list|remove|update|enable|disable`: the plugins the session
//! installs and finds (`Project::add_plugins`, `Project::plugins`), worded for a terminal.

use crate::args::plugins::{PluginsAddArgs, PluginsCommand, PluginsListArgs};
use crate::args::{GlobalArgs, TableFormat};
use crate::output::{print_json, terminal_safe};
use agentctl_core::Scope;
use agentctl_session::definitions::PluginSet;
use agentctl_session::{PluginAddRequest, PluginChange, PluginOpError, Project};
use serde_json::json;
use std::io::Write as _;
use std::process::ExitCode;

/// Runs `agentctl plugins …`.
pub(crate) fn run(global: &GlobalArgs, command: PluginsCommand) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    match command {
        PluginsCommand::Add(args) => add(&project, &args),
        PluginsCommand::List(args) => list(&project, &args),
        PluginsCommand::Remove(args) => {
            let change = project.remove_plugin(&args.name).map_err(worded)?;
            say(&format!(
                "Removed plugin {} ({}).",
                change.record.name,
                change.scope.as_str()
            ))
        }
        PluginsCommand::Update(args) => {
            let changes = project
                .update_plugins(args.name.as_deref())
                .map_err(worded)?;
            if changes.is_empty() {
                return say("No plugins installed.");
            }
            for change in &changes {
                say(&format!("Updated {}", describe(change)))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        PluginsCommand::Enable(args) => {
            let change = project
                .set_plugin_enabled(&args.name, true)
                .map_err(worded)?;
            let what = if change.runs_code {
                "its hooks and MCP servers will run"
            } else {
                "it has no hooks or MCP servers"
            };
            say(&format!("Enabled plugin {}: {what}.", change.record.name))
        }
        PluginsCommand::Disable(args) => {
            let change = project
                .set_plugin_enabled(&args.name, false)
                .map_err(worded)?;
            say(&format!(
                "Disabled plugin {}: its hooks and MCP servers will not run (its agents, \
                 commands and skills stay available).",
                change.record.name
            ))
        }
    }
}

fn add(project: &Project, args: &PluginsAddArgs) -> anyhow::Result<ExitCode> {
    let scope = if args.project {
        Scope::Project
    } else {
        Scope::Global
    };
    let request = PluginAddRequest::new(&args.source, scope).choose(args.plugins.clone(), args.all);
    let cwd = std::env::current_dir()?;
    let changes = project.add_plugins(&request, &cwd).map_err(worded)?;
    for change in &changes {
        say(&format!("Installed {}", describe(change)))?;
    }
    let waiting: Vec<&str> = changes
        .iter()
        .filter(|change| change.runs_code && !change.record.enabled)
        .map(|change| change.record.name.as_str())
        .collect();
    let enable = match waiting.as_slice() {
        [] => None,
        [one] => Some(format!("`agentctl plugins enable {one}`")),
        more => Some(format!(
            "`agentctl plugins enable NAME` ({})",
            more.join(", ")
        )),
    };
    if let Some(enable) = enable {
        say(&format!(
            "Agents, commands and skills are available now; hooks and MCP servers run only \
             after {enable}."
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `name version (scope) from location`.
fn describe(change: &PluginChange) -> String {
    let record = &change.record;
    let version = record
        .version
        .as_deref()
        .map(|version| format!(" {version}"))
        .unwrap_or_default();
    format!(
        "{}{version} ({}) from {}",
        record.name,
        change.scope.as_str(),
        record.origin.location
    )
}

/// The error with what to do, for the errors a person can act on.
fn worded(error: PluginOpError) -> anyhow::Error {
    match &error {
        PluginOpError::NothingChosen {
            marketplace,
            available,
        } => anyhow::anyhow!(
            "`{marketplace}` is a marketplace of {} plugins ({}): name those to install with \
             `--plugin NAME` (repeatable), or install them all with `--all`",
            available.len(),
            available.join(", ")
        ),
        PluginOpError::NoSuchPlugin { available, .. } => {
            anyhow::anyhow!("{error}; it has: {}", available.join(", "))
        }
        PluginOpError::NotAMarketplace(_) => {
            anyhow::anyhow!("{error}; leave out --plugin and --all")
        }
        PluginOpError::AlreadyInstalled { name, .. } => anyhow::anyhow!(
            "{error}; `agentctl plugins update {name}` fetches it again, \
             `agentctl plugins remove {name}` removes it"
        ),
        PluginOpError::NotInstalled(_) => {
            anyhow::anyhow!("{error} (`agentctl plugins list` lists them)")
        }
        PluginOpError::NoProject => anyhow::anyhow!("{error}; leave out --project"),
        _ => error.into(),
    }
}

fn list(project: &Project, args: &PluginsListArgs) -> anyhow::Result<ExitCode> {
    let set = project.plugins();
    warn(&set)?;
    if args.format == TableFormat::Json {
        let items: Vec<_> = set
            .plugins
            .iter()
            .map(|plugin| {
                json!({
                    "name": plugin.name(),
                    "scope": plugin.scope.as_str(),
                    "state": project.plugin_state(plugin).as_str(),
                    "version": plugin.record.version,
                    "description": plugin.record.description,
                    "origin": plugin.record.origin,
                    "enabled": plugin.record.enabled,
                    "runsCode": plugin.runs_code(),
                    "installedAt": plugin.record.installed_at,
                    "dir": plugin.dir,
                })
            })
            .collect();
        print_json(&items)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    if set.plugins.is_empty() {
        writeln!(
            out,
            "No plugins. `agentctl plugins add PATH|GIT-URL` installs a plugin or a marketplace's."
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = set
        .plugins
        .iter()
        .map(|plugin| plugin.name().chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:<width$}  {:<7}  {:<12}  {:<9}  SOURCE",
        "NAME", "SCOPE", "STATE", "VERSION"
    )?;
    for plugin in &set.plugins {
        let state = match (project.plugin_state(plugin).as_str(), plugin.runs_code()) {
            ("disabled", false) => "no code",
            (state, _) => state,
        };
        let text = format!(
            "{:<width$}  {:<7}  {:<12}  {:<9}  {}",
            plugin.name(),
            plugin.scope.as_str(),
            state,
            plugin.record.version.as_deref().unwrap_or("-"),
            plugin.record.origin.location,
        );
        writeln!(out, "{}", terminal_safe(&text))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each warning of reading the plugins, on stderr.
fn warn(set: &PluginSet) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for warning in &set.warnings {
        writeln!(err, "warning: {}", terminal_safe(&warning.to_string()))?;
    }
    Ok(())
}

fn say(text: &str) -> anyhow::Result<ExitCode> {
    writeln!(std::io::stdout().lock(), "{}", terminal_safe(text))?;
    Ok(ExitCode::SUCCESS)
}
