//! `agents edit` and `agents delete`.

use super::{discover_agents, display_path, find, validate::render};
use crate::args::{DeleteArgs, EditArgs, ScopeFilter};
use crate::output::confirm;
use agentctl_core::{Scope, SourceFormat};
use agentctl_session::Project;
use agentctl_session::definitions::LoadedAgent;
use anyhow::Context as _;
use std::path::Path;
use std::process::ExitCode;

/// The editor command from `$VISUAL` or `$EDITOR`, split on whitespace (`code --wait`).
fn editor_command() -> anyhow::Result<Vec<String>> {
    for variable in ["VISUAL", "EDITOR"] {
        if let Some(value) = std::env::var_os(variable) {
            let words: Vec<String> = value
                .to_string_lossy()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            if !words.is_empty() {
                return Ok(words);
            }
        }
    }
    anyhow::bail!(
        "no editor configured: set $VISUAL or $EDITOR (e.g. `EDITOR=vim agentctl agents edit NAME`)"
    )
}

pub(super) fn edit(context: &Project, args: &EditArgs) -> anyhow::Result<ExitCode> {
    let discovery = discover_agents(context);
    let agent = find(&discovery, &args.name)?;
    let path = agent.path().to_path_buf();
    let (format, scope) = (
        agent.definition.source.format,
        agent.definition.source.scope,
    );
    let editor = editor_command()?;
    let (program, editor_args) = editor.split_first().context("empty editor command")?;
    let status = std::process::Command::new(program)
        .args(editor_args)
        .arg(&path)
        .status()
        .with_context(|| format!("cannot start the editor `{}`", editor.join(" ")))?;
    anyhow::ensure!(
        status.success(),
        "the editor `{}` exited with {status}",
        editor.join(" ")
    );
    let report = context.validate_file(&path, format, scope);
    print_text(&render(context, std::slice::from_ref(&report), false)?);
    Ok(if report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_text(text: &str) {
    print!("{text}");
}

pub(super) fn delete(context: &Project, args: &DeleteArgs) -> anyhow::Result<ExitCode> {
    let discovery = discover_agents(context);
    find(&discovery, &args.name)?;
    let in_scope = |agent: &&LoadedAgent| match args.scope {
        None | Some(ScopeFilter::All) => true,
        Some(ScopeFilter::Global) => agent.definition.source.scope == Scope::Global,
        Some(ScopeFilter::Project) => agent.definition.source.scope == Scope::Project,
    };
    let candidates: Vec<&LoadedAgent> = discovery.all_named(&args.name).filter(in_scope).collect();
    let agent = match candidates.as_slice() {
        [] => anyhow::bail!(
            "no agent named `{}` in the {} scope",
            args.name,
            scope_name(args.scope)
        ),
        [one] => *one,
        [first, ..] if args.scope.is_some_and(|s| s != ScopeFilter::All) => *first,
        many => {
            let paths: Vec<String> = many
                .iter()
                .map(|a| display_path(a.path(), &context.locations))
                .collect();
            anyhow::bail!(
                "`{}` is defined in several files ({}): pass --scope project or --scope global",
                args.name,
                paths.join(", ")
            )
        }
    };
    let path = agent.path();
    let shown = display_path(path, &context.locations);
    let kind = match agent.definition.source.format {
        SourceFormat::Native => "agent",
        SourceFormat::Claude => "Claude Code agent",
        SourceFormat::Gemini => "Gemini CLI agent",
    };
    // Stored context belongs to the name: it goes with the last file that defines it.
    let still_defined = discovery
        .all_named(&args.name)
        .find(|other| other.path() != path)
        .map(|other| display_path(other.path(), &context.locations));
    let clear_context = !args.keep_context && still_defined.is_none();
    let question = if clear_context {
        format!(
            "Delete {kind} `{}` ({shown}) and its stored context in this project's sessions?",
            args.name
        )
    } else {
        format!("Delete {kind} `{}` ({shown})?", args.name)
    };
    if !args.yes && !confirm(&question, &format!("delete {shown}"))? {
        print_text("Not deleted.\n");
        return Ok(ExitCode::SUCCESS);
    }
    remove(path)?;
    let mut out = format!("Deleted {kind} `{}` ({shown})\n", args.name);
    if let Some(other) = still_defined {
        out.push_str(&format!(
            "Kept its stored context: `{}` is still defined by {other}\n",
            args.name
        ));
    } else if clear_context
        && let Some(cleared) = crate::context_cmd::clear_history(context, &args.name, None)?
    {
        out.push_str(&format!("Cleared its stored context: {cleared}\n"));
    }
    print_text(&out);
    Ok(ExitCode::SUCCESS)
}

fn remove(path: &Path) -> anyhow::Result<()> {
    std::fs::remove_file(path).with_context(|| format!("cannot delete {}", path.display()))
}

fn scope_name(scope: Option<ScopeFilter>) -> &'static str {
    match scope {
        Some(ScopeFilter::Global) => "global",
        Some(ScopeFilter::Project) => "project",
        _ => "any",
    }
}
