//! The words of `agentctl trust` and of the warnings about untrusted settings. Everything a
//! project wrote (keys, values, server and file names) is shown terminal-safe.

use super::{Recorded, status_now};
use crate::loosening::{files_named, loosening_lines};
use crate::output::terminal_safe;
use agentctl_session::Project;
use agentctl_session::config::{Loosening, ProjectRecord, ProjectTrust, ScriptChange};
use agentctl_session::config::{changed_policy_files, current_file_hash};
use std::fmt::Write as _;
use std::path::Path;

/// Hashes are shown by their first twelve hex digits.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// A time recorded in seconds, as `2026-11-23 10:04 UTC`.
fn when(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|seconds| chrono::DateTime::from_timestamp(seconds, 0))
        .map_or_else(
            || "?".to_owned(),
            |at| at.format("%Y-%m-%d %H:%M UTC").to_string(),
        )
}

/// After `agentctl trust`.
pub(super) fn trusted(
    out: &mut String,
    project: &Project,
    root: &Path,
    recorded: &Recorded,
) -> anyhow::Result<()> {
    let loaded = &project.settings;
    let shown = terminal_safe(&root.display().to_string()).into_owned();
    if loaded.policy_hashes.is_empty() {
        let _ = writeln!(
            out,
            "{shown} has no {}: there are no settings to trust.",
            files_named(loaded)
        );
    } else {
        let hashes: Vec<String> = loaded
            .policy_hashes
            .iter()
            .map(|(file, hash)| format!("{file} (sha256 {}…)", short(hash)))
            .collect();
        let _ = writeln!(
            out,
            "Trusted {shown}: {} now applies as written.",
            hashes.join(", ")
        );
        let loosenings: Vec<&Loosening> = loaded.loosenings.iter().collect();
        if loosenings.is_empty() {
            out.push_str("It loosens nothing of your own settings.\n");
        } else {
            out.push_str("It loosens your own settings:\n");
            loosening_lines(out, &loosenings);
        }
        let _ = writeln!(
            out,
            "A change to {} withdraws the trust until you run `agentctl trust` again.",
            files_named(loaded)
        );
    }
    if recorded.files.is_empty() {
        out.push_str("The project's MCP servers run no file of the project.\n");
    } else {
        out.push_str("Recorded the project files its MCP servers run (a change stops the server until approved):\n");
        for (server, file, hash) in &recorded.files {
            let line = format!("  {server}  {file}  sha256 {}…", short(hash));
            let _ = writeln!(out, "{}", terminal_safe(&line));
        }
    }
    Ok(())
}

/// `agentctl trust --show`.
pub(super) fn show(
    out: &mut String,
    project: &Project,
    root: &Path,
    record: &ProjectRecord,
) -> anyhow::Result<()> {
    let loaded = &project.settings;
    let _ = writeln!(
        out,
        "project  {}",
        terminal_safe(&root.display().to_string())
    );
    let files = files_named(loaded);
    let status = match status_now(loaded, record) {
        "trusted" => format!(
            "trusted since {}: {files} applies as written",
            record
                .trusted
                .as_ref()
                .map_or_else(String::new, |t| when(t.trusted_at))
        ),
        "changed" => format!(
            "changed: {} changed since it was trusted on {}; its loosening values are ignored",
            changed_policy_files(loaded, record).join(", "),
            record
                .trusted
                .as_ref()
                .map_or_else(String::new, |t| when(t.trusted_at))
        ),
        "unreadable" => match &loaded.trust {
            ProjectTrust::Unreadable(message) => format!("unknown: {message}"),
            _ => "unknown".to_owned(),
        },
        "not-needed" => format!("nothing to trust: the project has no {files}"),
        _ => format!("untrusted: {files} has not been trusted; its loosening values are ignored"),
    };
    let _ = writeln!(out, "status   {}", terminal_safe(&status));
    for (file, hash) in &loaded.policy_hashes {
        let _ = writeln!(out, "file     {file}  sha256 {}…", short(hash));
    }
    let loosenings: Vec<&Loosening> = loaded.loosenings.iter().collect();
    if !loosenings.is_empty() {
        let applied = status_now(loaded, record) == "trusted";
        out.push_str(if applied {
            "\nApplied, loosening your own settings:\n"
        } else {
            "\nIgnored until you trust the project (they loosen your own settings):\n"
        });
        loosening_lines(out, &loosenings);
    } else if !loaded.policy_hashes.is_empty() {
        out.push_str("\nThe project's settings loosen nothing of yours.\n");
    }
    if !record.scripts.is_empty() {
        out.push_str("\nProject files its MCP servers run (recorded on first use or approval):\n");
        for (server, files) in &record.scripts {
            for (file, script) in files {
                let state = match current_file_hash(root, file) {
                    Some(now) if now == script.sha256 => "unchanged",
                    Some(_) => "CHANGED: the server will not start until approved",
                    None => "missing",
                };
                let line = format!(
                    "  {server}  {file}  sha256 {}…  recorded {}  {state}",
                    short(&script.sha256),
                    when(script.recorded_at)
                );
                let _ = writeln!(out, "{}", terminal_safe(&line));
            }
        }
    }
    if matches!(status_now(loaded, record), "untrusted" | "changed") {
        out.push_str("\nRun `agentctl trust` to trust the settings as they are now.\n");
    }
    Ok(())
}

/// After `agentctl trust --revoke`.
pub(super) fn revoked(out: &mut String, root: &Path, revoked: bool) -> anyhow::Result<()> {
    let shown = terminal_safe(&root.display().to_string()).into_owned();
    if revoked {
        let _ = writeln!(
            out,
            "Withdrew the trust in {shown}: its settings' loosening values are ignored again, \
             and its MCP servers' files will be recorded anew on their next start."
        );
    } else {
        let _ = writeln!(out, "{shown} was not trusted and had no recorded files.");
    }
    Ok(())
}

/// The question asked before starting a server whose files changed.
pub(super) fn changed_question(out: &mut String, server: &str, changes: &[&ScriptChange]) {
    let files: Vec<String> = changes
        .iter()
        .map(|change| {
            format!(
                "`{}` (sha256 {}… approved, {}… now)",
                change.file,
                short(&change.recorded),
                short(&change.current)
            )
        })
        .collect();
    let text = format!(
        "MCP server `{server}` runs {} of the project, changed since it was approved. \
         Start it with the file as it is now?",
        files.join(", ")
    );
    out.push_str(&terminal_safe(&text));
}
