//! `agents show`.

use super::{discover_agents, display_path, find, located};
use crate::args::{ShowArgs, TextFormat};
use crate::output::print_json;
use agentctl_core::{MemorySpec, Settings, resolve_model};
use agentctl_session::Project;
use agentctl_session::definitions::LoadedAgent;
use std::fmt::Write as _;
use std::process::ExitCode;

pub(super) fn run(context: &Project, args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let discovery = discover_agents(context);
    let agent = find(&discovery, &args.name)?;
    let shadowed: Vec<&std::path::Path> = discovery
        .shadowed
        .iter()
        .filter(|s| s.agent.name() == args.name)
        .map(|s| s.agent.path())
        .collect();
    match args.format {
        TextFormat::Json => {
            let mut value = serde_json::to_value(&agent.definition)?;
            if let Some(object) = value.as_object_mut() {
                object.insert("formatReason".into(), agent.format_reason().into());
                object.insert("warnings".into(), serde_json::to_value(&agent.warnings)?);
                object.insert("shadows".into(), serde_json::to_value(&shadowed)?);
            }
            print_json(&value)?;
        }
        TextFormat::Text => {
            let mut out = render(context, agent)?;
            for path in shadowed {
                writeln!(
                    out,
                    "shadows:     {}",
                    display_path(path, &context.locations)
                )?;
            }
            for warning in &agent.warnings {
                writeln!(out, "warning:     {}", located(warning, &context.locations))?;
            }
            writeln!(out, "\n{}", agent.definition.system_prompt)?;
            print_text(&crate::output::terminal_safe(&out));
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[expect(
    clippy::print_stdout,
    reason = "the definition is the command's output"
)]
fn print_text(text: &str) {
    print!("{text}");
}

fn render(context: &Project, agent: &LoadedAgent) -> anyhow::Result<String> {
    let settings = &context.settings.settings;
    let spec = &agent.definition.spec;
    let source = &agent.definition.source;
    let mut out = String::new();
    let mut field = |label: &str, value: &str| writeln!(out, "{:<12} {value}", format!("{label}:"));
    field("name", &spec.name)?;
    if let Some(title) = &spec.title {
        field("title", title)?;
    }
    if let Some(description) = &spec.description {
        field("description", &description.replace('\n', "\n             "))?;
    }
    field(
        "source",
        &format!(
            "{} {} ({})",
            source.format,
            display_path(&source.path, &context.locations),
            source.scope
        ),
    )?;
    field(
        "format",
        &format!("{} ({})", source.format, agent.format_reason()),
    )?;
    field("model", &model_line(spec.model.as_deref(), settings))?;
    let context_mode = spec
        .context_mode
        .unwrap_or(settings.agents.default_context_mode);
    field("context", context_mode.as_str())?;
    let allow = spec
        .tools
        .allow
        .as_ref()
        .map_or_else(|| "(all)".to_owned(), |tools| tools.join(", "));
    field("tools", &allow)?;
    if !spec.tools.deny.is_empty() {
        field("deny", &spec.tools.deny.join(", "))?;
    }
    if !spec.mcp.is_empty() {
        let mut servers = spec.mcp.servers.clone();
        servers.extend(spec.mcp.inline.keys().map(|k| format!("{k} (inline)")));
        field("mcp", &servers.join(", "))?;
    }
    if let Some(turns) = spec.max_turns {
        field("maxTurns", &turns.to_string())?;
    }
    if let Some(mode) = spec.permission_mode {
        field("permissionMode", mode.as_str())?;
    }
    if let Some(temperature) = spec.temperature {
        field("temperature", &temperature.to_string())?;
    }
    if let Some(effort) = spec.effort {
        field("effort", effort.as_str())?;
    }
    if !spec.triggers.is_empty() {
        field("triggers", &spec.triggers.len().to_string())?;
    }
    if !spec.handoffs.is_empty() {
        let targets: Vec<&str> = spec.handoffs.iter().map(|h| h.to.as_str()).collect();
        field("handoffs", &targets.join(", "))?;
    }
    if !spec.guardrails.is_empty() {
        let names: Vec<&str> = spec.guardrails.iter().map(|g| g.name.as_str()).collect();
        field("guardrails", &names.join(", "))?;
    }
    if let Some(memory) = spec.memory.as_ref().and_then(memory_line) {
        field("memory", &memory)?;
    }
    for (key, value) in &agent.definition.extra {
        let value = match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        field(&format!("extra.{key}"), &value)?;
    }
    Ok(out)
}

/// The agent's model as written, and what it resolves to (or why it does not).
fn model_line(model: Option<&str>, settings: &Settings) -> String {
    match model {
        None => "(default)".to_owned(),
        Some(model) => match resolve_model(model, settings, None) {
            Ok(resolved) if resolved.to_string() != model => format!("{model} → {resolved}"),
            Ok(_) => model.to_owned(),
            Err(error) => format!("{model} (unresolved: {error})"),
        },
    }
}

/// The session keys and the long-term backend an agent declares; `None` when neither.
fn memory_line(memory: &MemorySpec) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(scope) = memory.scope {
        parts.push(format!("{scope} memory folder"));
    }
    if !memory.session.is_empty() {
        parts.push(format!("session [{}]", memory.session.join(", ")));
    }
    if let Some(long_term) = &memory.long_term {
        parts.push(format!("long-term {}", long_term.backend));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
