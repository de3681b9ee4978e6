//! `agentctl context NAME [--mode …] [--session ID]` and `agentctl context --all` (also
//! spelled `agentctl agents context`, seed 000): show or
//! override the context mode of agents for a session; for one agent that declares
//! `memory.session` keys, also the session-state keys it may use and their values.
//!
//! Not to be confused with [`crate::context`], the per-invocation command context.

use crate::args::context::ContextArgs;
use crate::args::{GlobalArgs, TextFormat};
use crate::output::{print_json, terminal_safe};
use crate::sessions_cmd::state_line;
use crate::wire::{ContextModeReport, StateJson};
use agentctl_core::{AgentsSettings, ContextMode};
use agentctl_session::Project;
use agentctl_session::context::{ModeInputs, ResolvedMode, resolve_mode, set_context_mode};
use agentctl_session::routing::RESERVED_STATE_KEYS;
use agentctl_session::store::{ClearedContext, SessionInfo, SessionStore};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

/// One agent's mode (printed as [`ContextModeReport`]).
#[derive(Debug)]
pub(crate) struct ModeReport {
    agent: String,
    session: Option<String>,
    resolved: Option<ResolvedMode>,
    error: Option<String>,
    /// For an agent that declares `memory.session` keys: each key it may use (`task` and the
    /// declared ones) with its value in the session, `null` when not set.
    state: Option<BTreeMap<String, Option<StateJson>>>,
}

impl ModeReport {
    /// The report of `agent` in `session`: its mode, or why it is refused.
    pub(crate) fn new(
        agent: &str,
        session: Option<&str>,
        resolved: Result<ResolvedMode, String>,
    ) -> Self {
        let (resolved, error) = match resolved {
            Ok(resolved) => (Some(resolved), None),
            Err(error) => (None, Some(error)),
        };
        Self {
            agent: agent.to_owned(),
            session: session.map(str::to_owned),
            resolved,
            error,
            state: None,
        }
    }
}

impl From<ModeReport> for ContextModeReport {
    fn from(report: ModeReport) -> Self {
        ContextModeReport::new(
            report.agent,
            report.session,
            report.resolved,
            report.error,
            report.state,
        )
    }
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_text(text: &str) {
    print!("{text}");
}

/// Runs `agentctl context …`.
pub(crate) fn run(global: &GlobalArgs, args: ContextArgs) -> anyhow::Result<ExitCode> {
    let context = crate::context::load(global)?;
    if args.instructions {
        return instructions(&context.instructions(), args.format);
    }
    if args.clear_history {
        return forget(&context, &args);
    }
    let settings = &context.settings.settings.agents;
    let discovery = context.discover();
    let target = &args.target;
    let changing = target.mode.is_some() || args.clear;
    let store = context.open_store(changing)?;
    let session = pick_session(
        store.as_deref(),
        args.session.as_deref(),
        target.mode.is_some(),
    )?;
    let Some(name) = target.name.as_deref() else {
        let overrides = overrides(store.as_deref(), session.as_ref())?;
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
            TextFormat::Text => print_text(&render_table(
                &reports,
                session.as_ref().map(|session| session.id.as_str()),
            )),
            TextFormat::Json => print_json(
                &reports
                    .into_iter()
                    .map(ContextModeReport::from)
                    .collect::<Vec<_>>(),
            )?,
        }
        return Ok(ExitCode::SUCCESS);
    };
    let spec = &crate::lookup::find(&discovery, name)?.definition.spec;
    let file_mode = spec.context_mode;
    let memory_keys = spec
        .memory
        .as_ref()
        .map(|memory| memory.session.clone())
        .unwrap_or_default();
    if changing {
        let (Some(store), Some(session)) = (store.as_deref(), session.as_ref()) else {
            anyhow::bail!("no session to change: pass --session ID or run an agent first");
        };
        let mode = target.mode.map(ContextMode::from);
        set_context_mode(store, &session.id, name, file_mode, mode, settings)?;
    }
    let overrides = overrides(store.as_deref(), session.as_ref())?;
    let mut report = report(name, file_mode, &overrides, session.as_ref(), settings);
    report.state = agent_state(&memory_keys, store.as_deref(), session.as_ref())?;
    match args.format {
        // Seed 000 answers a change with one line.
        TextFormat::Text if changing => print_text(&changed(target.mode.map(ContextMode::from))),
        // State values come from models.
        TextFormat::Text => print_text(&terminal_safe(&render_one(&report))),
        TextFormat::Json => print_json(&ContextModeReport::from(report))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The session named, else the latest; with `create`, a new one when there is none.
fn pick_session(
    store: Option<&dyn SessionStore>,
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
    store: Option<&dyn SessionStore>,
    session: Option<&SessionInfo>,
) -> anyhow::Result<BTreeMap<String, ContextMode>> {
    match (store, session) {
        (Some(store), Some(session)) => Ok(store.mode_overrides(&session.id)?),
        _ => Ok(BTreeMap::new()),
    }
}

/// The keys an agent with `memory.session` keys may use, with their values in the session.
fn agent_state(
    declared: &[String],
    store: Option<&dyn SessionStore>,
    session: Option<&SessionInfo>,
) -> anyhow::Result<Option<BTreeMap<String, Option<StateJson>>>> {
    if declared.is_empty() {
        return Ok(None);
    }
    let mut values = match (store, session) {
        (Some(store), Some(session)) => StateJson::by_key(store.state_entries(&session.id)?),
        _ => BTreeMap::new(),
    };
    let keys = RESERVED_STATE_KEYS
        .iter()
        .map(|key| (*key).to_owned())
        .chain(declared.iter().cloned());
    Ok(Some(
        keys.map(|key| {
            let value = values.remove(&key);
            (key, value)
        })
        .collect(),
    ))
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
    ModeReport::new(
        name,
        session.map(|session| session.id.as_str()),
        resolve_mode(name, inputs, settings).map_err(|error| error.to_string()),
    )
}

/// Seed 000's answer to a mode set for the session (`None`: the override removed).
pub(crate) fn changed(mode: Option<ContextMode>) -> String {
    match mode {
        Some(mode) => format!("✓ Context mode changed to {mode} for this session\n"),
        None => "✓ Context mode override removed for this session\n".to_owned(),
    }
}

/// One agent's mode as seed 000 shows it, with where it came from (`Linked to: Main
/// Session` for a shared agent).
pub(crate) fn render_one(report: &ModeReport) -> String {
    let mut out = format!("Agent: {}\n", report.agent);
    let _ = writeln!(
        out,
        "Session: {}",
        report.session.as_deref().unwrap_or("(none yet)")
    );
    match (&report.resolved, &report.error) {
        (Some(resolved), _) => {
            let _ = writeln!(out, "Context Mode: {} ({})", resolved.mode, resolved.source);
            if resolved.mode == ContextMode::Shared {
                out.push_str("Linked to: Main Session\n");
            }
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
    if let Some(state) = &report.state {
        out.push_str("State (memory_get / memory_set):\n");
        for (key, value) in state {
            out.push_str(&state_line(key, value.as_ref()));
        }
    }
    out
}

/// Every agent's mode, a line each.
pub(crate) fn render_table(reports: &[ModeReport], session: Option<&str>) -> String {
    let mut out = format!("Session: {}\n", session.unwrap_or("(none yet)"));
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

/// What clearing an agent's stored context removed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Cleared {
    agent: String,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session: Option<String>,
    #[serde(flatten)]
    counts: ClearedContext,
}

impl std::fmt::Display for Cleared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = crate::output::counted;
        write!(
            f,
            "{} and {} in {}",
            plural(self.counts.messages, "message", "messages"),
            plural(self.counts.summaries, "summary", "summaries"),
            plural(self.counts.sessions, "session", "sessions")
        )
    }
}

/// Forgets `agent`'s isolated workspace (seed 000's `clearHistory`) in every session of the
/// project, or in `session` only; `None` when no session was ever recorded here.
pub(crate) fn clear_history(
    project: &Project,
    agent: &str,
    session: Option<&str>,
) -> anyhow::Result<Option<Cleared>> {
    let Some(store) = project.open_store(false)? else {
        if let Some(id) = session {
            anyhow::bail!("no session `{id}`: no session has been recorded here yet");
        }
        return Ok(None);
    };
    let counts = match session {
        Some(id) => store.clear_agent_context_in(id, agent)?,
        None => store.clear_agent_context(agent)?,
    };
    Ok(Some(Cleared {
        agent: agent.to_owned(),
        session: session.map(str::to_owned),
        counts,
    }))
}

/// `agentctl context NAME --clear-history [--session ID] [--yes]`.
fn forget(project: &Project, args: &ContextArgs) -> anyhow::Result<ExitCode> {
    let Some(name) = args.target.name.as_deref() else {
        anyhow::bail!("--clear-history needs the agent's NAME");
    };
    // A deleted agent's leftovers may be cleared too: the name need not be defined.
    let where_ = match &args.session {
        Some(id) => format!("session {id}"),
        None => "every session of this project".to_owned(),
    };
    let question = format!("Forget what `{name}` remembers in {where_}?");
    if !args.yes && !crate::output::confirm(&question, &format!("clear the history of `{name}`"))? {
        print_text("Nothing cleared.\n");
        return Ok(ExitCode::SUCCESS);
    }
    let cleared = clear_history(project, name, args.session.as_deref())?.unwrap_or(Cleared {
        agent: name.to_owned(),
        session: None,
        counts: ClearedContext::default(),
    });
    match args.format {
        TextFormat::Json => print_json(&cleared)?,
        TextFormat::Text => print_text(&format!(
            "Cleared the stored context of `{name}`: {cleared}\n"
        )),
    }
    Ok(ExitCode::SUCCESS)
}

/// `agentctl context --instructions`: the instruction files in prompt order, where each came
/// from, and what was refused (also on stderr, as warnings).
fn instructions(
    found: &agentctl_session::instructions::Instructions,
    format: TextFormat,
) -> anyhow::Result<ExitCode> {
    let mut err = std::io::stderr().lock();
    for warning in &found.warnings {
        writeln!(err, "warning: {}", terminal_safe(&warning.to_string()))?;
    }
    drop(err);
    match format {
        TextFormat::Json => print_json(found)?,
        TextFormat::Text => {
            let mut out = String::from(
                "# project instructions, in prompt order (project root first, current folder last):\n",
            );
            if found.is_empty() {
                out.push_str("# none found\n");
            }
            for file in &found.files {
                let from = match &file.imported_by {
                    Some(site) => {
                        format!("  # imported by {}:{}", found.shown(&site.path), site.line)
                    }
                    None => String::new(),
                };
                let cut = if file.truncated { ", cut" } else { "" };
                let _ = writeln!(
                    out,
                    "{}  ({} bytes{cut}){from}",
                    found.shown(&file.path),
                    file.bytes
                );
            }
            print_text(&terminal_safe(&out));
        }
    }
    Ok(ExitCode::SUCCESS)
}
