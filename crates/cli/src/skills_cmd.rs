//! `agentctl skills list|show`: the skills of the project and the user, as the session finds
//! them (`Project::skills`), with what discovery met (malformed `SKILL.md` files, name
//! collisions) as warnings on stderr.

use crate::args::skills::{SkillsCommand, SkillsListArgs, SkillsShowArgs};
use crate::args::{GlobalArgs, TableFormat, TextFormat};
use crate::output::{print_json, terminal_safe};
use agentctl_session::definitions::{Skill, SkillSet, read_skill};
use serde_json::json;
use std::io::Write as _;
use std::process::ExitCode;

/// Runs `agentctl skills …`.
pub(crate) fn run(global: &GlobalArgs, command: SkillsCommand) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    let set = project.skills();
    warn(&set)?;
    match command {
        SkillsCommand::List(args) => list(&set, &args),
        SkillsCommand::Show(args) => show(&set, &args),
    }
}

/// Each warning of discovery, on stderr.
fn warn(set: &SkillSet) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for warning in &set.warnings {
        writeln!(err, "warning: {}", terminal_safe(&warning.to_string()))?;
    }
    Ok(())
}

fn list(set: &SkillSet, args: &SkillsListArgs) -> anyhow::Result<ExitCode> {
    if args.format == TableFormat::Json {
        print_json(&set.skills)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    if set.skills.is_empty() {
        writeln!(
            out,
            "No skills. A skill is a folder with a SKILL.md in .agentctl/skills, .claude/skills, \
             .gemini/skills or .agents/skills (of the project or your home)."
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = set
        .skills
        .iter()
        .map(|skill| skill.qualified_name().chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(out, "{:<width$}  {:<7}  DESCRIPTION", "NAME", "SCOPE")?;
    for skill in &set.skills {
        let text = format!(
            "{:<width$}  {:<7}  {}",
            skill.qualified_name(),
            skill.scope.as_str(),
            one_line(&skill.description)
        );
        writeln!(out, "{}", terminal_safe(&text))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn show(set: &SkillSet, args: &SkillsShowArgs) -> anyhow::Result<ExitCode> {
    let Some(skill) = set.get(&args.name) else {
        let close = set.similar(&args.name);
        let hint = match close.as_slice() {
            [] => " (`agentctl skills list` lists them)".to_owned(),
            close => format!("; did you mean {}?", close.join(", ")),
        };
        anyhow::bail!("no skill named `{}`{hint}", args.name);
    };
    let content = read_skill(skill)?;
    if args.format == TextFormat::Json {
        let mut value = serde_json::to_value(skill)?;
        if let Some(object) = value.as_object_mut() {
            object.insert("body".into(), json!(content.body));
            object.insert("files".into(), json!(content.files));
        }
        print_json(&value)?;
        return Ok(ExitCode::SUCCESS);
    }
    let text = render(skill, &content.body, &content.files);
    std::io::stdout()
        .lock()
        .write_all(terminal_safe(&text).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// A skill as `skills show` prints it.
fn render(skill: &Skill, body: &str, files: &[String]) -> String {
    let mut out = format!(
        "{}\n  {}\n  scope: {}\n  file: {}\n",
        skill.qualified_name(),
        one_line(&skill.description),
        skill.scope.as_str(),
        skill.file.display()
    );
    if let Some(license) = &skill.license {
        out.push_str(&format!("  license: {license}\n"));
    }
    if !skill.allowed_tools.is_empty() {
        out.push_str(&format!(
            "  allowed-tools: {} (not applied: a skill never widens an agent's tools)\n",
            skill.allowed_tools.join(", ")
        ));
    }
    if !files.is_empty() {
        out.push_str("  files:\n");
        for file in files {
            out.push_str(&format!("    {file}\n"));
        }
    }
    out.push('\n');
    out.push_str(body);
    out.push('\n');
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
