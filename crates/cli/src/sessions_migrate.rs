//! `agentctl sessions migrate --to URL | --from URL`: copies sessions between the project's
//! embedded store and another (a PostgreSQL database shared by several machines, another
//! SQLite file), one transaction per session, and the agents' long-term memories with them
//! ([`Project::migrate`]). Run again, it
//! copies new sessions, brings copies the source outgrew up to date, skips unchanged ones and
//! leaves alone — naming them, and failing at the end — sessions changed in both stores.

use crate::args::TextFormat;
use crate::args::sessions::MigrateArgs;
use crate::output::{counted, print_json, terminal_safe};
use agentctl_session::Project;
use agentctl_session::memory::MemoryCopyReport;
use agentctl_session::store::{Conflict, CopyOutcome, CopyReport, MigrateError, Migration};
use serde::Serialize;
use std::process::ExitCode;

/// What `--format json` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MigrateReport {
    from: String,
    to: String,
    copied: u64,
    updated: u64,
    skipped: u64,
    conflicts: u64,
    messages: u64,
    runs: u64,
    memories_copied: u64,
    memories_existing: u64,
    sessions: Vec<SessionOutcome>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionOutcome {
    session_id: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// Why a session was left alone, and what to do, for the person running the command.
fn conflict_reason(why: Conflict, from: &str, to: &str) -> String {
    let cause = match why {
        Conflict::BothChanged => "changed in both stores since they were last copied",
        Conflict::NoRecord => {
            "differs between the stores, and neither recorded when they were last in step"
        }
    };
    format!(
        "{cause}: copying would lose one side's changes, so it was left alone. Keep one copy: \
         delete the session from the store whose changes you drop (`agentctl sessions delete \
         ID` with AGENTCTL_DATABASE_URL naming that store), then run this again ({from} → {to})"
    )
}

#[expect(clippy::print_stderr, reason = "conflicts are reported on stderr")]
fn print_error(text: &str) {
    eprintln!("{}", terminal_safe(text));
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_line(text: &str) {
    println!("{}", terminal_safe(text));
}

/// Runs `agentctl sessions migrate`.
pub(crate) fn run(project: &Project, args: &MigrateArgs) -> anyhow::Result<ExitCode> {
    let from = project.migration_side(args.from.as_deref())?;
    let to = project.migration_side(args.to.as_deref())?;
    let text = args.format == TextFormat::Text;
    let (from_label, to_label) = (from.to_string(), to.to_string());
    let mut sessions = Vec::new();
    let migration = project.migrate(from, to, &mut |id, outcome| {
        let outcome = session_outcome(id, outcome, &from_label, &to_label);
        if text {
            print_outcome(&outcome);
        }
        sessions.push(outcome);
    });
    let Migration {
        sessions: report,
        memories,
        ..
    } = match migration {
        Err(MigrateError::SameStore(store)) => anyhow::bail!(
            "the sessions would be copied onto themselves ({store}): name another store"
        ),
        other => other?,
    };
    let conflicts = report.conflicts.len() as u64;
    if text {
        print_summary(&report, &memories, &from_label, &to_label);
    } else {
        print_json(&MigrateReport {
            from: from_label,
            to: to_label,
            copied: report.copied,
            updated: report.updated,
            skipped: report.skipped,
            conflicts,
            messages: report.messages,
            runs: report.runs,
            memories_copied: memories.copied,
            memories_existing: memories.existing,
            sessions,
        })?;
    }
    Ok(if conflicts > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// What became of one session, for both output formats.
fn session_outcome(id: &str, outcome: CopyOutcome, from: &str, to: &str) -> SessionOutcome {
    let (word, messages, runs, reason) = match outcome {
        CopyOutcome::Copied { messages, runs } => ("copied", Some(messages), Some(runs), None),
        CopyOutcome::Updated { messages, runs } => ("updated", Some(messages), Some(runs), None),
        CopyOutcome::Unchanged => ("already there", None, None, None),
        CopyOutcome::Conflict(why) => {
            ("conflict", None, None, Some(conflict_reason(why, from, to)))
        }
    };
    SessionOutcome {
        session_id: id.to_owned(),
        outcome: word,
        messages,
        runs,
        reason,
    }
}

/// One session's line of the text output (a conflict's on stderr).
fn print_outcome(outcome: &SessionOutcome) {
    let (word, id) = (outcome.outcome, &outcome.session_id);
    match (outcome.messages, outcome.runs, &outcome.reason) {
        (Some(messages), Some(runs), _) => print_line(&format!(
            "{word} {id} ({}, {})",
            counted(messages, "message", "messages"),
            counted(runs, "run", "runs")
        )),
        (_, _, Some(reason)) => print_error(&format!("not copied: session {id} {reason}")),
        _ => print_line(&format!("{word} {id}")),
    }
}

/// The text output's last lines: the totals, and the sessions left alone.
fn print_summary(report: &CopyReport, memories: &MemoryCopyReport, from: &str, to: &str) {
    print_line(&format!(
        "Copied {} and updated {} ({}, {}), and {}, from {from} to {to}; {} already there, \
         {} already there.",
        counted(report.copied, "session", "sessions"),
        report.updated,
        counted(report.messages, "message", "messages"),
        counted(report.runs, "run", "runs"),
        counted(memories.copied, "memory", "memories"),
        report.skipped,
        counted(memories.existing, "memory", "memories"),
    ));
    if !report.conflicts.is_empty() {
        let ids: Vec<&str> = report.conflicts.iter().map(|(id, _)| id.as_str()).collect();
        print_error(&format!(
            "{} changed in both stores not copied: {}",
            counted(report.conflicts.len() as u64, "session", "sessions"),
            ids.join(", ")
        ));
    }
}
