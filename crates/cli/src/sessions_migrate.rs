//! `agentctl sessions migrate --to URL | --from URL`: copies sessions between the project's
//! embedded store and another (a PostgreSQL database shared by several machines, another
//! SQLite file), one transaction per session; sessions the target holds are skipped, so the
//! copy is idempotent and a second run finishes an interrupted one
//! ([`agentctl_context::copy_sessions`]).

use crate::args::TextFormat;
use crate::args::sessions::MigrateArgs;
use crate::output::{print_json, terminal_safe};
use agentctl_context::{ImportOutcome, SessionStore, copy_sessions};
use agentctl_session::{Project, StoreLocation};
use anyhow::Context as _;
use serde::Serialize;
use std::process::ExitCode;

/// What `--format json` prints.
#[derive(Debug, Serialize)]
struct MigrateReport {
    from: String,
    to: String,
    copied: u64,
    skipped: u64,
    messages: u64,
    runs: u64,
    sessions: Vec<SessionOutcome>,
}

#[derive(Debug, Serialize)]
struct SessionOutcome {
    id: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<u64>,
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_line(text: &str) {
    println!("{}", terminal_safe(text));
}

/// Runs `agentctl sessions migrate`.
pub(crate) fn run(project: &Project, args: &MigrateArgs) -> anyhow::Result<ExitCode> {
    let embedded = StoreLocation::Sqlite(project.store_path());
    let side = |url: Option<&String>| -> anyhow::Result<StoreLocation> {
        match url {
            Some(url) => Ok(StoreLocation::parse(url, project.root())?),
            None => Ok(embedded.clone()),
        }
    };
    let (from, to) = (side(args.from.as_ref())?, side(args.to.as_ref())?);
    if from == to {
        anyhow::bail!("the sessions would be copied onto themselves ({from}): name another store");
    }
    let source = project
        .open_store_at(&from, false)?
        .with_context(|| format!("{from}: no session store there, nothing to copy"))?;
    let target = project
        .open_store_at(&to, true)?
        .with_context(|| format!("{to}: cannot open the store"))?;
    let text = args.format == TextFormat::Text;
    let mut sessions = Vec::new();
    let source: &dyn SessionStore = &*source;
    let report = copy_sessions(source, &*target, &mut |id, outcome| {
        let (word, messages, runs) = match outcome {
            ImportOutcome::Copied { messages, runs } => ("copied", Some(messages), Some(runs)),
            ImportOutcome::AlreadyThere => ("already there", None, None),
        };
        if text {
            match (messages, runs) {
                (Some(messages), Some(runs)) => {
                    print_line(&format!("{word} {id} ({messages} messages, {runs} runs)"));
                }
                _ => print_line(&format!("{word} {id}")),
            }
        }
        sessions.push(SessionOutcome {
            id: id.to_owned(),
            outcome: word,
            messages,
            runs,
        });
    })
    .with_context(|| format!("copying sessions from {from} to {to} (run it again to go on)"))?;
    if text {
        print_line(&format!(
            "Copied {} sessions ({} messages, {} runs) from {from} to {to}; {} already there.",
            report.copied, report.messages, report.runs, report.skipped
        ));
    } else {
        print_json(&MigrateReport {
            from: from.to_string(),
            to: to.to_string(),
            copied: report.copied,
            skipped: report.skipped,
            messages: report.messages,
            runs: report.runs,
            sessions,
        })?;
    }
    Ok(ExitCode::SUCCESS)
}
