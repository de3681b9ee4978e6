//! `agentctl memory list|search|forget`: the long-term memories agents keep with `remember`.
//!
//! The store is `memory.db` beside the session database (`<project>/.agentctl/memory.db`, or
//! `$AGENTCTL_HOME/memory.db` outside a project), or the sessions' PostgreSQL database when
//! `AGENTCTL_DATABASE_URL` / `store.url` name one. Reading commands do not create a file;
//! `search` is keyword search, whatever the agents' backends.

use crate::args::memory::{
    MemoryCommand, MemoryFoldersArgs, MemoryForgetArgs, MemoryListArgs, MemorySearchArgs,
};
use crate::args::{GlobalArgs, TableFormat, TextFormat};
use crate::output::{print_json, terminal_safe};
use crate::wire::{MemoryEntryJson, MemoryFolderJson};
use agentctl_core::one_line;
use agentctl_session::Project;
use agentctl_session::memory::{
    AgentMemoryFolder, MemoryBackend, MemoryEntry, MemoryFolderProblem, MemoryFolderWarning,
    MemoryHit, MemoryQuery,
};
use agentctl_session::store::utc_timestamp;
use anyhow::Context as _;
use serde::Serialize;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs `agentctl memory …`.
pub(crate) fn run(global: &GlobalArgs, command: MemoryCommand) -> anyhow::Result<ExitCode> {
    let project = crate::context::load(global)?;
    match command {
        MemoryCommand::List(args) => list(&project, &args),
        MemoryCommand::Search(args) => search(&project, &args),
        MemoryCommand::Forget(args) => forget(&project, &args),
        MemoryCommand::Folders(args) => folders(&project, &args),
    }
}

fn folders(project: &Project, args: &MemoryFoldersArgs) -> anyhow::Result<ExitCode> {
    let folders = project.memory_folders();
    match args.format {
        TableFormat::Json => print_json(
            &folders
                .iter()
                .map(|folder| MemoryFolderJson {
                    agent: folder.agent.clone(),
                    scope: folder.scope.as_str(),
                    folder: folder
                        .folder
                        .as_ref()
                        .ok()
                        .map(|path| path.display().to_string()),
                    problem: folder.folder.as_ref().err().map(memory_problem),
                    memory_bytes: folder.memory_bytes,
                })
                .collect::<Vec<_>>(),
        )?,
        TableFormat::Table => print_text(&render_folders(&folders)),
    }
    Ok(ExitCode::SUCCESS)
}

fn render_folders(folders: &[AgentMemoryFolder]) -> String {
    if folders.is_empty() {
        return "No agent has a memory folder (`memory: user|project|local`).\n".to_owned();
    }
    let rows: Vec<[String; 4]> = folders
        .iter()
        .map(|folder| {
            let (path, memory) = match &folder.folder {
                Ok(path) => (
                    path.display().to_string(),
                    match folder.memory_bytes {
                        Some(bytes) => format!("{bytes} bytes"),
                        None => "none yet".to_owned(),
                    },
                ),
                Err(problem) => ("-".to_owned(), memory_problem(problem)),
            };
            [folder.agent.clone(), folder.scope.to_string(), path, memory]
        })
        .collect();
    table(["AGENT", "SCOPE", "FOLDER", "MEMORY.md"], &rows)
}

/// Why an agent has no memory folder, in words.
pub(crate) fn memory_problem(problem: &MemoryFolderProblem) -> String {
    match problem {
        MemoryFolderProblem::Untrusted => {
            "the project is not trusted: its agent cannot use your memory (`agentctl trust`)"
                .to_owned()
        }
        MemoryFolderProblem::NoProject => "there is no project for a project memory".to_owned(),
        MemoryFolderProblem::NoHome => "your home folder is unknown".to_owned(),
        MemoryFolderProblem::Name => "the agent's name makes no folder name".to_owned(),
        MemoryFolderProblem::NotAFolder(path) => format!(
            "{} is not a folder (a symbolic link is refused in the project)",
            path.display()
        ),
        MemoryFolderProblem::Io { path, message } => format!("{}: {message}", path.display()),
        _ => "the folder is not available".to_owned(),
    }
}

/// The warning of an agent that runs without its memory folder.
pub(crate) fn memory_folder_warning(warning: &MemoryFolderWarning) -> String {
    format!(
        "agent `{}` runs without its {} memory folder: {}",
        warning.agent,
        warning.scope,
        memory_problem(&warning.problem)
    )
}

/// The project's memory store (with its sessions: `memory.db` beside a SQLite session file,
/// or the sessions' PostgreSQL database); `None` when no memory was ever stored in a file.
fn open_store(project: &Project) -> anyhow::Result<Option<Arc<dyn MemoryBackend>>> {
    Ok(project.open_memory(false)?)
}

#[expect(clippy::print_stdout, reason = "the result is the command's output")]
fn print_text(text: &str) {
    print!("{}", terminal_safe(text));
}

fn list(project: &Project, args: &MemoryListArgs) -> anyhow::Result<ExitCode> {
    let entries = match open_store(project)? {
        Some(store) => store.list(args.agent.as_deref())?,
        None => Vec::new(),
    };
    match args.format {
        TableFormat::Json => print_json(
            &entries
                .into_iter()
                .map(MemoryEntryJson::from)
                .collect::<Vec<_>>(),
        )?,
        TableFormat::Table => print_text(&render_list(&entries, args.agent.as_deref())),
    }
    Ok(ExitCode::SUCCESS)
}

fn render_list(entries: &[MemoryEntry], agent: Option<&str>) -> String {
    if entries.is_empty() {
        return match agent {
            Some(agent) => format!("No memories of agent `{agent}`.\n"),
            None => "No memories.\n".to_owned(),
        };
    }
    let rows: Vec<[String; 4]> = entries
        .iter()
        .map(|entry| {
            [
                entry.id.to_string(),
                entry.agent.clone(),
                utc_timestamp(entry.created_at),
                one_line(&entry.content, 100),
            ]
        })
        .collect();
    table(["ID", "AGENT", "CREATED", "CONTENT"], &rows)
}

fn search(project: &Project, args: &MemorySearchArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        (1..=MemoryQuery::MAX_LIMIT).contains(&args.limit),
        "--limit {} is out of range: give 1 to {}",
        args.limit,
        MemoryQuery::MAX_LIMIT
    );
    let hits = match open_store(project)? {
        Some(store) => {
            let mut query = MemoryQuery::new(&args.query).limit(args.limit);
            if let Some(agent) = &args.agent {
                query = query.agent(agent);
            }
            store.search(&query)?
        }
        None => Vec::new(),
    };
    match args.format {
        TableFormat::Json => print_json(
            &hits
                .into_iter()
                .map(MemoryEntryJson::from)
                .collect::<Vec<_>>(),
        )?,
        TableFormat::Table => print_text(&render_hits(&hits, &args.query)),
    }
    Ok(ExitCode::SUCCESS)
}

fn render_hits(hits: &[MemoryHit], query: &str) -> String {
    if hits.is_empty() {
        return format!("No memory matches `{}`.\n", one_line(query, 60));
    }
    // Best first; the BM25 scores themselves (in `--format json`) mean little to a reader.
    let entries: Vec<MemoryEntry> = hits.iter().map(|hit| hit.entry.clone()).collect();
    render_list(&entries, None)
}

/// What `memory forget --format json` prints.
#[derive(Serialize)]
struct Forgotten {
    forgotten: MemoryEntryJson,
}

fn forget(project: &Project, args: &MemoryForgetArgs) -> anyhow::Result<ExitCode> {
    let id = parse_id(&args.id)?;
    let store = open_store(project)?.with_context(|| {
        format!("no memory #{id}: no memory has been stored here yet (agentctl memory list)")
    })?;
    let entry = store.forget(id, args.agent.as_deref())?;
    match args.format {
        TextFormat::Json => print_json(&Forgotten {
            forgotten: entry.into(),
        })?,
        TextFormat::Text => print_text(&format!(
            "Forgot memory #{} of {}: {}\n",
            entry.id,
            entry.agent,
            one_line(&entry.content, 100)
        )),
    }
    Ok(ExitCode::SUCCESS)
}

/// `12` or `#12`.
fn parse_id(text: &str) -> anyhow::Result<i64> {
    let digits = text.trim().trim_start_matches('#');
    digits
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .with_context(|| {
            format!("`{text}` is not a memory id: ids are positive numbers, as `agentctl memory list` shows them")
        })
}

/// Columns padded to their widest cell; the last one is not padded.
fn table<const N: usize>(headers: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = headers.map(str::len);
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: [&str; N]| {
        for (index, cell) in cells.iter().enumerate() {
            if index + 1 == N {
                out.push_str(cell);
            } else {
                let _ = write!(out, "{cell:<width$}  ", width = widths[index]);
            }
        }
        out.push('\n');
    };
    line(headers);
    for row in rows {
        line(row.each_ref().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tables() {
        assert_eq!(parse_id("#12").unwrap(), 12);
        assert_eq!(parse_id(" 7 ").unwrap(), 7);
        for bad in ["abc", "0", "-3", "1.5", ""] {
            assert!(parse_id(bad).is_err(), "{bad}");
        }
        let rendered = table(
            ["ID", "NAME"],
            &[["1".into(), "a".into()], ["12".into(), "bb".into()]],
        );
        assert_eq!(rendered, "ID  NAME\n1   a\n12  bb\n");
    }
}
