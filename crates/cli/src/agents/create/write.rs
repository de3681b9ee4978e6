//! The end of `agents create`: validate the file as `agents validate` would, write it
//! atomically, validate what was written, and print the report with the next steps.

use super::super::{discover_agents, display_path, validate::render};
use super::CreateRequest;
use crate::args::TextFormat;
use crate::output::print_json;
use agentctl_core::{Scope, SourceFormat};
use agentctl_session::Project;
use agentctl_session::definitions::{
    AgentFileError, Discovery, LoadedAgent, ValidationReport, load_file, parse_str,
    render_agent_file, write_agent_file,
};
use anyhow::Context as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Checks, writes and reports the agent of `request`. A file that would not validate is not
/// written: its report is printed and the command fails.
pub(super) fn finish(
    context: &Project,
    before: &Discovery,
    request: CreateRequest,
    format: TextFormat,
) -> anyhow::Result<ExitCode> {
    let settings = &context.settings.settings;
    let locations = &context.locations;
    let shown = display_path(&request.path, locations);
    let text = render_agent_file(&request.spec, &request.body);
    let draft = parse_str(&text, &request.path, SourceFormat::Native, request.scope)
        .with_context(|| format!("the front matter made for {shown} does not load"))?;
    let checks = context.checks();
    let draft_report = before.validate(&draft, settings, &checks);
    if !draft_report.valid {
        match format {
            TextFormat::Json => print_json(&serde_json::json!({
                "path": request.path,
                "written": false,
                "validation": draft_report,
            }))?,
            TextFormat::Text => {
                let report = render(context, std::slice::from_ref(&draft_report), false)?;
                print_stdout(&report)?;
            }
        }
        anyhow::bail!(
            "{shown} was not written: the agent does not validate (the ✗ checks above); fix those flags or answers and run again"
        );
    }
    write_atomically(&request.path, &text, request.replace, &shown)?;
    let mut notes = request.notes;
    let after = discover_agents(context);
    let report = match written(&after, &request.path) {
        Some((agent, shadowed_by)) => {
            if let Some(winner) = shadowed_by {
                notes.push(format!(
                    "{} of the same name takes precedence over this one",
                    display_path(winner, locations)
                ));
            }
            after.validate(agent, settings, &checks)
        }
        None => {
            let agent = load_file(&request.path, SourceFormat::Native, request.scope)?;
            after.validate(&agent, settings, &checks)
        }
    };
    let name = request.spec.name.as_str();
    let steps = next_steps(context, name, request.scope);
    match format {
        TextFormat::Json => print_json(&serde_json::json!({
            "path": request.path,
            "written": true,
            "scope": request.scope,
            "validation": report,
            "notes": notes,
            "nextSteps": steps.iter().map(|(_, command)| command).collect::<Vec<_>>(),
        }))?,
        TextFormat::Text => {
            let mut out = format!("Created {shown}\n\n");
            out.push_str(&render(context, std::slice::from_ref(&report), false)?);
            for note in &notes {
                out.push_str(&format!("note: {note}\n"));
            }
            if !notes.is_empty() {
                out.push('\n');
            }
            out.push_str(&render_steps(&steps, &shown));
            print_stdout(&out)?;
        }
    }
    Ok(exit_code(&report))
}

fn exit_code(report: &ValidationReport) -> ExitCode {
    if report.valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The agent discovery found in the written file, and the file that shadows it, if any.
fn written<'a>(
    discovery: &'a Discovery,
    path: &Path,
) -> Option<(&'a LoadedAgent, Option<&'a Path>)> {
    let same = |agent: &LoadedAgent| same_file(&agent.definition.source.path, path);
    discovery
        .agents
        .iter()
        .chain(discovery.invalid.iter().map(|i| &i.agent))
        .find(|agent| same(agent))
        .map(|agent| (agent, None))
        .or_else(|| {
            discovery
                .shadowed
                .iter()
                .find(|s| same(&s.agent))
                .map(|s| (&s.agent, Some(s.shadowed_by.as_path())))
        })
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

/// Writes the agent file (see [`write_agent_file`]); an existing file is refused unless
/// `replace`, with the flag that replaces it.
fn write_atomically(path: &Path, text: &str, replace: bool, shown: &str) -> anyhow::Result<()> {
    match write_agent_file(path, text, replace) {
        Err(AgentFileError::Exists(_)) => {
            anyhow::bail!("{shown} already exists: pass --force to replace it")
        }
        other => Ok(other?),
    }
}

/// The seed's "Next steps": edit, validate, run — as commands that work from here.
fn next_steps(context: &Project, name: &str, scope: Scope) -> Vec<(&'static str, String)> {
    // From outside the project, project agents are only found with --project-dir.
    let project_dir = match (&context.locations.project_root, scope) {
        (Some(root), Scope::Project)
            if !std::env::current_dir().is_ok_and(|cwd| cwd.starts_with(root)) =>
        {
            format!(" --project-dir {}", shell_word(&root.display().to_string()))
        }
        _ => String::new(),
    };
    vec![
        (
            "Edit the system prompt",
            format!("agentctl{project_dir} agents edit {name}"),
        ),
        (
            "Validate it",
            format!("agentctl{project_dir} agents validate {name}"),
        ),
        (
            "Run it",
            format!("agentctl{project_dir} agents run {name} -p \"your request\""),
        ),
    ]
}

fn render_steps(steps: &[(&str, String)], shown: &str) -> String {
    let width = steps.iter().map(|(what, _)| what.len()).max().unwrap_or(0) + 1;
    let mut out = String::from("Next steps:\n");
    for (what, command) in steps {
        out.push_str(&format!("  - {:<width$} {command}\n", format!("{what}:")));
    }
    out.push_str(&format!(
        "  The file is {shown}: its body is the system prompt.\n"
    ));
    out
}

/// `word` quoted for a POSIX shell when it needs to be.
fn shell_word(word: &str) -> String {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c));
    if plain && !word.is_empty() {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn print_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("/tmp/p"), "/tmp/p");
        assert_eq!(shell_word("/tmp/my project"), "'/tmp/my project'");
        assert_eq!(shell_word("/tmp/it's"), r"'/tmp/it'\''s'");
    }

    #[test]
    fn an_existing_file_is_kept_without_replace() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "old").unwrap();
        let error = write_atomically(&path, "new", false, "a.md").unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        write_atomically(&path, "new", true, "a.md").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }
}
