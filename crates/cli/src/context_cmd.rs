//! `agentctl context NAME [--mode …] [--session ID]` and `agentctl context --all`: show or
//! override the context mode of agents for a session.
//!
//! Not to be confused with [`crate::context`], the per-invocation command context.

use crate::args::context::ContextArgs;
use crate::args::{GlobalArgs, TextFormat};
use crate::output::print_json;
use agentctl_context::{
    ModeInputs, ResolvedMode, SessionInfo, SessionLog, SqliteStore, resolve_mode,
};
use agentctl_core::{AgentsSettings, ContextMode};
use agentctl_definitions::discover;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

/// One agent's mode, as printed.
#[derive(Debug, Serialize)]
struct ModeReport {
    agent: String,
    session: Option<String>,
    #[serde(flatten)]
    resolved: Option<ResolvedMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_text(text: &str) {
    print!("{text}");
}

/// Runs `agentctl context …`.
pub(crate) fn run(global: &GlobalArgs, args: ContextArgs) -> anyhow::Result<ExitCode> {
    let context = crate::context::load(global)?;
    let settings = &context.settings.settings.agents;
    let discovery = discover(&context.locations);
    let changing = args.mode.is_some() || args.clear;
    let store = context.open_store(changing)?;
    let session = pick_session(store.as_ref(), args.session.as_deref(), args.mode.is_some())?;
    let Some(name) = args.name.as_deref() else {
        let overrides = overrides(store.as_ref(), session.as_ref())?;
        let reports: Vec<ModeReport> = discovery
            .agents
            .iter()
            .map(|agent| {
                report(
                    agent.name(),
                    agent.definition.spec.context_mode,
                    &overrides,
                    session.as_ref(),
                    settings,
                )
            })
            .collect();
        match args.format {
            TextFormat::Json => print_json(&reports)?,
            TextFormat::Text => print_text(&render_table(&reports, session.as_ref())),
        }
        return Ok(ExitCode::SUCCESS);
    };
    let file_mode = crate::agents::find(&discovery, name)?
        .definition
        .spec
        .context_mode;
    if changing {
        let (Some(store), Some(session)) = (store.as_ref(), session.as_ref()) else {
            anyhow::bail!("no session to change: pass --session ID or run an agent first");
        };
        let mode = args.mode.map(ContextMode::from);
        if let Some(mode) = mode {
            // Refuse what the run would refuse (agents.allowSharedContext).
            resolve_mode(
                name,
                ModeInputs {
                    session_override: Some(mode),
                    agent_file: file_mode,
                    ..ModeInputs::default()
                },
                settings,
            )?;
        }
        store.set_mode_override(&session.id, name, mode)?;
    }
    let overrides = overrides(store.as_ref(), session.as_ref())?;
    let report = report(name, file_mode, &overrides, session.as_ref(), settings);
    match args.format {
        TextFormat::Json => print_json(&report)?,
        TextFormat::Text => print_text(&render_one(&report)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The session named, else the latest; with `create`, a new one when there is none.
fn pick_session(
    store: Option<&SqliteStore>,
    id: Option<&str>,
    create: bool,
) -> anyhow::Result<Option<SessionInfo>> {
    let Some(store) = store else {
        if let Some(id) = id {
            anyhow::bail!("no session `{id}`: no session has been recorded here yet");
        }
        return Ok(None);
    };
    Ok(match id {
        Some(id) => Some(store.session(id)?),
        None => match store.latest_session()? {
            Some(session) => Some(session),
            None if create => Some(store.create_session(None)?),
            None => None,
        },
    })
}

fn overrides(
    store: Option<&SqliteStore>,
    session: Option<&SessionInfo>,
) -> anyhow::Result<BTreeMap<String, ContextMode>> {
    match (store, session) {
        (Some(store), Some(session)) => Ok(store.mode_overrides(&session.id)?),
        _ => Ok(BTreeMap::new()),
    }
}

fn report(
    name: &str,
    file_mode: Option<ContextMode>,
    overrides: &BTreeMap<String, ContextMode>,
    session: Option<&SessionInfo>,
    settings: &AgentsSettings,
) -> ModeReport {
    let inputs = ModeInputs {
        session_override: overrides.get(name).copied(),
        agent_file: file_mode,
        ..ModeInputs::default()
    };
    let (resolved, error) = match resolve_mode(name, inputs, settings) {
        Ok(resolved) => (Some(resolved), None),
        Err(error) => (None, Some(error.to_string())),
    };
    ModeReport {
        agent: name.to_owned(),
        session: session.map(|session| session.id.clone()),
        resolved,
        error,
    }
}

fn render_one(report: &ModeReport) -> String {
    let mut out = format!("Agent: {}\n", report.agent);
    let _ = writeln!(
        out,
        "Session: {}",
        report.session.as_deref().unwrap_or("(none yet)")
    );
    match (&report.resolved, &report.error) {
        (Some(resolved), _) => {
            let _ = writeln!(out, "Context Mode: {} ({})", resolved.mode, resolved.source);
            if resolved.source != resolved.original_source {
                let _ = writeln!(
                    out,
                    "Original Mode: {} ({})",
                    resolved.original, resolved.original_source
                );
            }
        }
        (None, Some(error)) => {
            let _ = writeln!(out, "Context Mode: refused: {error}");
        }
        (None, None) => {}
    }
    out
}

fn render_table(reports: &[ModeReport], session: Option<&SessionInfo>) -> String {
    let mut out = format!(
        "Session: {}\n",
        session.map_or("(none yet)", |session| session.id.as_str())
    );
    if reports.is_empty() {
        out.push_str("No agents.\n");
        return out;
    }
    let width = reports
        .iter()
        .map(|r| r.agent.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        out,
        "{:<width$}  {:<8}  {:<16}  ORIGINAL",
        "AGENT", "MODE", "SOURCE"
    );
    for report in reports {
        match &report.resolved {
            Some(resolved) => {
                let _ = writeln!(
                    out,
                    "{:<width$}  {:<8}  {:<16}  {} ({})",
                    report.agent,
                    resolved.mode.as_str(),
                    resolved.source.label(),
                    resolved.original,
                    resolved.original_source
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{:<width$}  refused: {}",
                    report.agent,
                    report.error.as_deref().unwrap_or_default()
                );
            }
        }
    }
    out
}
