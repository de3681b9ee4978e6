//! `--template NAME`: the built-in templates and the user's template files, and
//! `--template list`.

use super::super::{display_path, located};
use crate::args::TextFormat;
use crate::output::print_json;
use agentctl_core::AgentSpec;
use agentctl_session::Project;
use agentctl_session::definitions::{
    DEFAULT_PROMPT, TemplateContent, TemplateEntry, TemplateOrigin, find_template, template_dirs,
    templates,
};
use std::io::Write as _;
use std::process::ExitCode;

/// The value of `--template` that lists the templates instead of creating an agent.
pub(super) const LIST: &str = "list";

/// The template `name` calls for; an unknown name is an error listing them all.
pub(super) fn find(context: &Project, name: &str) -> anyhow::Result<TemplateEntry> {
    let all = templates(&context.locations);
    match find_template(&all, name) {
        Ok(entry) => Ok(entry.clone()),
        Err(close) => {
            let names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
            let mean = close
                .first()
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            anyhow::bail!(
                "unknown template `{name}`{mean}. Templates: {} (`agentctl agents create --template list` describes them; a file NAME.md in {} adds one)",
                names.join(", "),
                folders(context)
            )
        }
    }
}

/// What the agent `agent` starts from: the template's content, or an empty front matter and
/// [`DEFAULT_PROMPT`] without one.
pub(super) fn start(
    context: &Project,
    entry: Option<&TemplateEntry>,
    agent: &str,
) -> anyhow::Result<TemplateContent> {
    match entry {
        Some(entry) => load(context, entry, agent),
        None => Ok(TemplateContent {
            spec: AgentSpec {
                name: agent.to_owned(),
                ..AgentSpec::default()
            },
            prompt: DEFAULT_PROMPT.to_owned(),
        }),
    }
}

/// The template's content for the agent `agent`; a broken template file is an error located
/// in it.
fn load(context: &Project, entry: &TemplateEntry, agent: &str) -> anyhow::Result<TemplateContent> {
    entry.load(agent).map_err(|error| {
        anyhow::anyhow!(
            "template `{}` does not load: {}: fix the file, or pick another template (`--template list`)",
            entry.name,
            located(&error.to_diagnostic(), &context.locations)
        )
    })
}

/// The template folders, for messages.
fn folders(context: &Project) -> String {
    template_dirs(&context.locations)
        .iter()
        .map(|(dir, _)| format!("{}/", display_path(dir, &context.locations)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--template list`: every template, where it comes from and what it is for.
pub(super) fn list(context: &Project, format: TextFormat) -> anyhow::Result<ExitCode> {
    let all = templates(&context.locations);
    let source = |entry: &TemplateEntry| match &entry.origin {
        TemplateOrigin::BuiltIn(_) => "built-in".to_owned(),
        TemplateOrigin::File { path, .. } => display_path(path, &context.locations),
    };
    let aliases = |entry: &TemplateEntry| match entry.origin {
        TemplateOrigin::BuiltIn(template) => template.aliases().to_vec(),
        TemplateOrigin::File { .. } => Vec::new(),
    };
    // A template that does not load is listed with its located error.
    let about = |entry: &TemplateEntry| match entry.load("template") {
        Ok(content) => Ok(content.spec.description),
        Err(error) => Err(located(&error.to_diagnostic(), &context.locations)),
    };
    if format == TextFormat::Json {
        let rows: Vec<serde_json::Value> = all
            .iter()
            .map(|entry| {
                let mut row = serde_json::json!({
                    "name": entry.name,
                    "source": source(entry),
                    "aliases": aliases(entry),
                    "replacesBuiltIn": entry.shadows.is_some(),
                });
                match about(entry) {
                    Ok(description) => row["description"] = description.into(),
                    Err(error) => row["error"] = error.into(),
                }
                row
            })
            .collect();
        print_json(&serde_json::json!({ "templates": rows }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = all.iter().map(|e| e.name.len()).max().unwrap_or(0);
    let mut out = String::from("Templates (agentctl agents create NAME --template TEMPLATE):\n");
    for entry in &all {
        let mut from = source(entry);
        let aliases = aliases(entry);
        if !aliases.is_empty() {
            from.push_str(&format!(", also `{}`", aliases.join("`, `")));
        }
        if entry.shadows.is_some() {
            from.push_str(", replaces the built-in");
        }
        let description = match about(entry) {
            Ok(description) => description.unwrap_or_else(|| "(no description)".to_owned()),
            Err(error) => format!("(does not load: {error})"),
        };
        out.push_str(&format!(
            "  {:<width$}  {description}\n  {:<width$}  ({from})\n",
            entry.name, ""
        ));
    }
    out.push_str(&format!(
        "\nA file NAME.md (an agent file; `name:` may be left out) in {} adds template NAME.\n",
        folders(context)
    ));
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}
