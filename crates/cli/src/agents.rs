//! `agentctl agents …`: list, show, create, edit, delete and validate agent files.
//!
//! Each subcommand turns its arguments into a request, calls `agentctl-definitions`, and renders
//! the result. Paths are shown relative to the project root (or `~`) to keep output short.

mod create;
mod list;
mod manage;
mod show;
mod tools;
mod validate;

use crate::args::{AgentsCommand, GlobalArgs};
use crate::lookup::find;
use agentctl_session::Project;
use agentctl_session::config::Locations;
use agentctl_session::definitions::{Diagnostic, Discovery};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs one `agents` subcommand.
pub(crate) fn run(global: &GlobalArgs, command: AgentsCommand) -> anyhow::Result<ExitCode> {
    let load = || crate::context::load(global);
    match command {
        AgentsCommand::List(args) => list::run(&load()?, &args),
        AgentsCommand::Show(args) => show::run(&load()?, &args),
        AgentsCommand::Create(args) => create::run(&load()?, args),
        AgentsCommand::Edit(args) => manage::edit(&load()?, &args),
        AgentsCommand::Delete(args) => manage::delete(&load()?, &args),
        AgentsCommand::Tools(args) => tools::run(&load()?, &args),
        AgentsCommand::Validate(args) => validate::run(&load()?, &args),
        // The binary's dispatch (`lib.rs`) runs these before they get here.
        AgentsCommand::Run(_)
        | AgentsCommand::Context(_)
        | AgentsCommand::Graph(_)
        | AgentsCommand::Trace(_) => {
            anyhow::bail!("internal: `agents run|context|graph|trace` are dispatched by the caller")
        }
    }
}

/// `agents list` as the interactive session's `/agents list` prints it: every scope, the
/// table.
pub(crate) fn list_table(project: &Project) -> anyhow::Result<()> {
    let args = crate::args::ListArgs {
        scope: crate::args::ScopeFilter::All,
        all: false,
        format: crate::args::TableFormat::Table,
    };
    list::run(project, &args).map(drop)
}

/// Discovers agents from the context's locations.
fn discover_agents(context: &Project) -> Discovery {
    context.discover()
}

/// A path relative to the project root, or to the home folder as `~/…`.
fn display_path(path: &Path, locations: &Locations) -> String {
    if let Some(rest) = locations
        .project_root
        .as_deref()
        .and_then(|root| path.strip_prefix(root).ok())
    {
        return rest.display().to_string();
    }
    if let Some(rest) = locations
        .user_home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        return format!("~/{}", rest.display());
    }
    path.display().to_string()
}

/// `path:line:col: field `x`: message`, with the short path.
fn located(diagnostic: &Diagnostic, locations: &Locations) -> String {
    let mut out = display_path(&diagnostic.path, locations);
    if diagnostic.line > 0 {
        out.push_str(&format!(":{}:{}", diagnostic.line, diagnostic.col));
    }
    out.push_str(": ");
    if let Some(field) = &diagnostic.field {
        out.push_str(&format!("field `{field}`: "));
    }
    out.push_str(&diagnostic.message);
    if let Some(hint) = &diagnostic.hint {
        out.push_str(&crate::advice::advice(hint));
    }
    out
}

/// Reports files that failed to load, and agents whose definitions have errors, on stderr as
/// warnings: the command goes on without them.
fn report_load_errors(discovery: &Discovery, locations: &Locations) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    let invalid = discovery.invalid.iter().flat_map(|invalid| &invalid.errors);
    let diagnostics = discovery
        .errors
        .iter()
        .map(|error| error.to_diagnostic())
        .chain(invalid.cloned());
    for diagnostic in diagnostics {
        writeln!(err, "warning: {}", located(&diagnostic, locations))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn paths_are_shown_relative_to_project_or_home() {
        let locations = Locations {
            agentctl_home: PathBuf::from("/h/.agentctl"),
            user_home: Some(PathBuf::from("/h")),
            project_root: Some(PathBuf::from("/p")),
        };
        assert_eq!(
            display_path(Path::new("/p/.claude/agents/a.md"), &locations),
            ".claude/agents/a.md"
        );
        assert_eq!(
            display_path(Path::new("/h/.agentctl/agents/a.md"), &locations),
            "~/.agentctl/agents/a.md"
        );
        assert_eq!(display_path(Path::new("/x/a.md"), &locations), "/x/a.md");
    }
}
