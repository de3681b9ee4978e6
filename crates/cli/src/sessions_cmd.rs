//! `agentctl sessions list|show|delete|compact`: the persisted sessions of the project.
//!
//! The store is the one `AGENTCTL_DATABASE_URL` or settings `store.url` names, else the
//! embedded `<project>/.agentctl/sessions.db` inside a project or `$AGENTCTL_HOME/sessions.db`
//! ([`Project::store_location`]). Reading commands do not create a SQLite file.

use crate::args::sessions::{CompactArgs, DeleteArgs, ListArgs, SessionsCommand, ShowArgs};
use crate::args::{GlobalArgs, TableFormat, TextFormat};
use crate::output::{confirm, print_json, terminal_safe};
use crate::wire::{GuardrailStep, ModelCallStep, SessionJson, SessionShow, StateJson};
use agentctl_core::{Message, RunError, one_line};
use agentctl_session::Project;
use agentctl_session::store::{
    ContextScope, ContextSummary, MessageQuery, RunRecord, SessionInfo, SessionRecord,
    SessionStore, StoredMessage, utc_timestamp,
};
use agentctl_session::{RuntimeBuilder, SessionError, compact_now};
use anyhow::Context as _;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `agentctl sessions …`.
pub(crate) fn run(global: &GlobalArgs, command: SessionsCommand) -> anyhow::Result<ExitCode> {
    let context = crate::context::load(global)?;
    match command {
        SessionsCommand::List(args) => list(&context, &args),
        SessionsCommand::Show(args) => show(&context, &args),
        SessionsCommand::Delete(args) => delete(&context, &args),
        SessionsCommand::Compact(args) => compact(&context, &args),
        SessionsCommand::Migrate(args) => crate::sessions_migrate::run(&context, &args),
    }
}

/// The session store of this project (or of the user outside projects); `None` if it does not
/// exist yet and `create` is false.
fn require_store(context: &Project, id: &str) -> anyhow::Result<Arc<dyn SessionStore>> {
    context.open_store(false)?.with_context(|| {
        format!("no session `{id}`: no session has been recorded here yet (agentctl sessions list)")
    })
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_text(text: &str) {
    print!("{text}");
}

fn list(context: &Project, args: &ListArgs) -> anyhow::Result<ExitCode> {
    let sessions = match context.open_store(false)? {
        Some(store) => store.list_sessions()?,
        None => Vec::new(),
    };
    let current = context.current_session();
    match args.format {
        TableFormat::Json => print_json(
            &sessions
                .into_iter()
                .map(|session| {
                    let is_current = current.as_deref() == Some(session.id.as_str());
                    SessionJson {
                        current: is_current,
                        ..SessionJson::from(session)
                    }
                })
                .collect::<Vec<_>>(),
        )?,
        TableFormat::Table => {
            print_text(&terminal_safe(&render_list(&sessions, current.as_deref())))
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The sessions as a table, the current one marked `*`.
fn render_list(sessions: &[SessionInfo], current: Option<&str>) -> String {
    if sessions.is_empty() {
        return "No sessions.\n".into();
    }
    let mut out = format!(
        "  {:<22} {:<20} {:>8} {:>5}  {}\n",
        "ID", "UPDATED", "MESSAGES", "RUNS", "TITLE"
    );
    for session in sessions {
        let mark = if current == Some(session.id.as_str()) {
            '*'
        } else {
            ' '
        };
        let _ = writeln!(
            out,
            "{mark} {:<22} {:<20} {:>8} {:>5}  {}",
            session.id,
            utc_timestamp(session.updated_at),
            session.message_count,
            session.run_count,
            session.title.as_deref().unwrap_or("-")
        );
    }
    if sessions
        .iter()
        .any(|session| current == Some(session.id.as_str()))
    {
        out.push_str(
            "\n* current: a run or chat that names no session continues it (--new starts one)\n",
        );
    }
    out
}

/// What `sessions show` shows, as the store keeps it (the text view reads it; the JSON view is
/// [`SessionShow`]).
struct SessionView {
    session: SessionInfo,
    /// The session state by key (`memory_set`, read by `when` conditions).
    state: BTreeMap<String, StateJson>,
    /// `timeline`, `all` or the scope shown.
    view: String,
    messages: Vec<StoredMessage>,
    runs: Vec<RunRecord>,
    summaries: Vec<ContextSummary>,
    /// With `--all`: every guardrail check of the session's runs.
    guardrails: Vec<GuardrailStep>,
    /// With `--all`: every model call with its prompt's token budget, estimate and window.
    model_calls: Vec<ModelCallStep>,
}

impl From<SessionView> for SessionShow {
    fn from(view: SessionView) -> Self {
        Self {
            session_id: view.session.id.clone(),
            session: view.session.into(),
            view: view.view,
            state: view.state,
            runs: view.runs.into_iter().map(Into::into).collect(),
            messages: view.messages.into_iter().map(Into::into).collect(),
            summaries: view.summaries.into_iter().map(Into::into).collect(),
            guardrails: view.guardrails,
            model_calls: view.model_calls,
        }
    }
}

fn show(context: &Project, args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let (store, session) = match &args.id {
        Some(id) => {
            let store = require_store(context, id)?;
            let session = store.session(id)?;
            (store, session)
        }
        None => {
            let none = "no session has been recorded here yet: run an agent first";
            let store = context.open_store(false)?.context(none)?;
            let session = store.latest_session()?.context(none)?;
            (store, session)
        }
    };
    let (view, query) = match (&args.scope, args.all) {
        (Some(scope), _) => {
            let scope: ContextScope = scope.parse()?;
            (scope.to_string(), MessageQuery::scope(scope))
        }
        (None, true) => ("all".to_owned(), MessageQuery::default()),
        (None, false) => ("timeline".to_owned(), MessageQuery::timeline()),
    };
    let record = SessionRecord::load(&*store, session, &query, args.all)?;
    let shown = SessionView {
        state: StateJson::by_key(record.state),
        view,
        guardrails: record.guardrails.into_iter().map(Into::into).collect(),
        model_calls: record
            .model_calls
            .iter()
            .map(|call| {
                ModelCallStep::new(call.run_id, call.step_index, &call.content, call.budget)
            })
            .collect(),
        session: record.session,
        messages: record.messages,
        runs: record.runs,
        summaries: record.summaries,
    };
    match args.format {
        TextFormat::Json => print_json(&SessionShow::from(shown))?,
        TextFormat::Text => print_text(&terminal_safe(&render_show(&shown))),
    }
    Ok(ExitCode::SUCCESS)
}

fn render_show(shown: &SessionView) -> String {
    let session = &shown.session;
    let mut out = format!("Session {}", session.id);
    if let Some(title) = &session.title {
        let _ = write!(out, " — {title}");
    }
    let _ = writeln!(
        out,
        "\nCreated {}, updated {}; {}, {}",
        utc_timestamp(session.created_at),
        utc_timestamp(session.updated_at),
        count(session.message_count, "message"),
        count(session.run_count, "run")
    );
    write_runs(&mut out, shown);
    if !shown.state.is_empty() {
        out.push_str("\nState:\n");
        for (key, entry) in &shown.state {
            out.push_str(&state_line(key, Some(entry)));
        }
    }
    if !shown.summaries.is_empty() {
        out.push_str("\nSummaries:\n");
        for summary in &shown.summaries {
            let _ = writeln!(
                out,
                "  [{}] up to message {}: {}",
                summary.scope,
                summary.until_message_id,
                one_line(&summary.summary_text, 100)
            );
        }
    }
    if !shown.guardrails.is_empty() {
        out.push_str("\nGuardrails:\n");
        for step in &shown.guardrails {
            out.push_str(&guardrail_line(step));
        }
    }
    write_model_calls(&mut out, shown);
    write_messages(&mut out, shown);
    out
}

/// What a run's tokens cost by the model catalogue's list prices (`None` for a model it has
/// no price for, or a run that used none).
fn run_cost(model: &str, usage: agentctl_core::Usage) -> Option<f64> {
    let (provider, id) = model.split_once(':')?;
    let price = agentctl_core::ModelCatalogue::builtin().price(provider, id)?;
    (usage.input_tokens + usage.output_tokens > 0)
        .then(|| price.cost(usage.input_tokens, usage.output_tokens))
}

/// The runs of `sessions show`, one a line.
fn write_runs(out: &mut String, shown: &SessionView) {
    if !shown.runs.is_empty() {
        out.push_str("\nRuns:\n");
        for run in &shown.runs {
            let _ = write!(
                out,
                "  #{} {} [{}] {}",
                run.id, run.agent, run.context_scope, run.status
            );
            if let Some(parent) = run.parent_run_id {
                let _ = write!(out, ", parent #{parent}");
            }
            if let Some(model) = &run.model {
                let _ = write!(out, ", {model}");
                if let Some(cost) = run_cost(model, run.usage) {
                    let _ = write!(out, ", ${cost:.4}");
                }
            }
            out.push('\n');
        }
    }
}

/// Each model call's prompt estimate, budget, window and usage.
fn write_model_calls(out: &mut String, shown: &SessionView) {
    if !shown.model_calls.is_empty() {
        out.push_str("\nModel calls (estimated prompt / budget / window, tokens):\n");
        for call in &shown.model_calls {
            let _ = write!(
                out,
                "  #{} step {}: {} / {} / {}",
                call.run_id,
                call.step,
                call.estimated_prompt_tokens,
                call.prompt_token_budget,
                call.model_context_window
            );
            match &call.usage {
                Some(usage) => {
                    let _ = writeln!(
                        out,
                        "; used {} in, {} out",
                        usage.input_tokens, usage.output_tokens
                    );
                }
                None => out.push_str("; no answer\n"),
            }
        }
    }
}

/// The messages of the view shown.
fn write_messages(out: &mut String, shown: &SessionView) {
    let _ = writeln!(out, "\nMessages ({}):", shown.view);
    if shown.messages.is_empty() {
        out.push_str("  (none)\n");
    }
    for message in &shown.messages {
        let who = message.agent.as_deref().unwrap_or("user");
        let hidden = if message.visible { "" } else { " (hidden)" };
        let _ = writeln!(
            out,
            "  {:>4} {:<24} {:<10} {}{hidden}: {}",
            message.id,
            message.context_scope.to_string(),
            message.role,
            who,
            one_line(&describe(&message.message), 100)
        );
    }
}

/// `  #3 ✗ valid-json-output (output, repair, attempt 0): error; error`
fn guardrail_line(step: &GuardrailStep) -> String {
    let mark = if step.passed { "✓" } else { "✗" };
    let mut line = format!(
        "  #{} {mark} {} ({}, {}, attempt {})",
        step.run_id, step.name, step.stage, step.policy, step.attempt
    );
    if !step.errors.is_empty() {
        let _ = write!(line, ": {}", one_line(&step.errors.join("; "), 160));
    }
    line.push('\n');
    line
}

/// `  fix = {"applied":true}  (set by fixer, 2025-01-01T10:00:00Z)`, or `(not set)`.
pub(crate) fn state_line(key: &str, entry: Option<&StateJson>) -> String {
    match entry {
        Some(entry) => format!(
            "  {key} = {}  (set by {}, {})\n",
            one_line(&entry.value.to_string(), 100),
            entry.updated_by,
            utc_timestamp(entry.updated_at.0)
        ),
        None => format!("  {key} = (not set)\n"),
    }
}

fn describe(message: &Message) -> String {
    match message {
        Message::User { content } => content.clone(),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut text = content.clone().unwrap_or_default();
            for call in tool_calls {
                if !text.is_empty() {
                    text.push(' ');
                }
                let _ = write!(text, "→ {}({})", call.name, call.arguments);
            }
            text
        }
        Message::Tool {
            name,
            content,
            is_error,
            ..
        } => {
            let status = if *is_error { " failed" } else { "" };
            format!("{name}{status}: {content}")
        }
    }
}

fn delete(context: &Project, args: &DeleteArgs) -> anyhow::Result<ExitCode> {
    let store = require_store(context, &args.id)?;
    let session = store.session(&args.id)?;
    let question = format!(
        "Delete session {} ({}, {})?",
        session.id,
        count(session.message_count, "message"),
        count(session.run_count, "run")
    );
    if !args.yes && !confirm(&question, &format!("delete session {}", session.id))? {
        print_text("Not deleted.\n");
        return Ok(ExitCode::SUCCESS);
    }
    store.delete_session(&session.id)?;
    print_text(&format!("Deleted session {}\n", session.id));
    Ok(ExitCode::SUCCESS)
}

fn compact(context: &Project, args: &CompactArgs) -> anyhow::Result<ExitCode> {
    let store = require_store(context, &args.id)?;
    let session = store.session(&args.id)?;
    let builder = RuntimeBuilder::new(context);
    let compaction = crate::rt::block_on(compact_now(
        context,
        &builder,
        &*store,
        &session.id,
        args.model.as_deref(),
    ))?
    .map_err(|error| match error {
        SessionError::Run(RunError::NoModel { .. }) => {
            anyhow::anyhow!("no model to summarise with: pass --model or set agents.defaultModel")
        }
        other => other.into(),
    })?;
    compaction
        .notices
        .iter()
        .for_each(crate::render::notice_line);
    let written = compaction.summaries;
    if written.is_empty() {
        print_text(&format!("Session {}: nothing to compact.\n", session.id));
    }
    for summary in &written {
        print_text(&format!(
            "Compacted {} up to message {}\n",
            summary.scope, summary.until_message_id
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// `1 run`, `2 runs`.
fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_are_singular_when_one() {
        assert_eq!(count(1u64, "run"), "1 run");
        assert_eq!(count(0u64, "run"), "0 runs");
        assert_eq!(count(2u64, "message"), "2 messages");
    }
}
