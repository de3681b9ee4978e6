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
use agentctl_config::Locations;
use agentctl_definitions::{Diagnostic, Discovery, LoadedAgent, discover};
use agentctl_session::Project;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs one `agents` subcommand.
pub(crate) fn run(global: &GlobalArgs, command: AgentsCommand) -> anyhow::Result<ExitCode> {
    let context = crate::context::load(global)?;
    match command {
        AgentsCommand::List(args) => list::run(&context, &args),
        AgentsCommand::Show(args) => show::run(&context, &args),
        AgentsCommand::Create(args) => create::run(&context, args),
        AgentsCommand::Edit(args) => manage::edit(&context, &args),
        AgentsCommand::Delete(args) => manage::delete(&context, &args),
        AgentsCommand::Tools(args) => tools::run(&context, &args),
        AgentsCommand::Validate(args) => validate::run(&context, &args),
    }
}

/// Discovers agents from the context's locations.
fn discover_agents(context: &Project) -> Discovery {
    discover(&context.locations)
}

/// The effective agent called `name`, or an error naming close matches.
fn find<'a>(discovery: &'a Discovery, name: &str) -> anyhow::Result<&'a LoadedAgent> {
    if let Some(agent) = discovery.get(name) {
        return Ok(agent);
    }
    let similar = discovery.similar_names(name);
    if similar.is_empty() {
        anyhow::bail!(
            "no agent named `{name}`: run `agentctl agents list` to see the agents found"
        );
    }
    anyhow::bail!(
        "no agent named `{name}`; did you mean {}?",
        quoted_list(&similar)
    );
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
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
    out
}

/// Reports files that failed to load on stderr, as warnings: the command goes on without them.
fn report_load_errors(discovery: &Discovery, locations: &Locations) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for error in &discovery.errors {
        writeln!(
            err,
            "warning: {}",
            located(&error.to_diagnostic(), locations)
        )?;
    }
    Ok(())
}

/// Asks a question on stderr and reads one line from stdin.
fn prompt(question: &str) -> anyhow::Result<String> {
    let mut err = std::io::stderr().lock();
    write!(err, "{question}")?;
    err.flush()?;
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    Ok(line.trim().to_owned())
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
