//! `agentctl trust`: trust the project's settings as they are now (their values that loosen
//! the user's settings then apply), show that trust, or withdraw it; and the words every
//! front end uses for ignored settings and for MCP server files that changed.
//!
//! The decisions are the library's (`agentctl_session` compares the layers, keeps the store
//! and checks server files); this module words them.

mod render;

use crate::args::trust::TrustArgs;
use crate::args::{GlobalArgs, TextFormat};
use crate::output::{print_json, terminal_safe};
use crate::wire::{LooseningJson, ServerFileJson, ServerFilesJson, Timestamp, TrustReport};
use agentctl_core::AgentDefinition;
use agentctl_session::Project;
use agentctl_session::config::{
    LoadedSettings, ProjectRecord, ProjectTrust, ScriptChange, TrustStatus, TrustStore,
    changed_policy_files, current_file_hash,
};
use agentctl_session::mcp::{McpError, McpManager};
use anyhow::Context as _;
use std::io::{IsTerminal as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

/// What the project's MCP servers' files were recorded as by `agentctl trust`.
struct Recorded {
    /// `(server, file, sha256)` of every file recorded.
    files: Vec<(String, String, String)>,
    /// Servers whose files could not be recorded, with why.
    failures: Vec<String>,
}

/// Runs `agentctl trust`.
pub(crate) fn run(global: &GlobalArgs, args: &TrustArgs) -> anyhow::Result<ExitCode> {
    let project = crate::context::load_quiet(global)?;
    let Some(root) = project.locations.project_root.clone() else {
        anyhow::bail!(
            "not inside a project (no .agentctl, .claude, .gemini or .git folder from here up): \
             run `agentctl trust` in the project, or pass --project-dir"
        );
    };
    let store = project.trust_store();
    if args.revoke {
        let revoked = store
            .revoke(&root)
            .with_context(|| format!("cannot update {}", store.path().display()))?;
        return report(&project, &root, "revoked", None, args.format, |out| {
            render::revoked(out, &root, revoked)
        });
    }
    if args.show {
        return report(&project, &root, "none", None, args.format, |out| {
            render::show(out, &project, &root, &record_of(&store, &root)?)
        });
    }
    if let ProjectTrust::Unreadable(message) = &project.settings.trust {
        anyhow::bail!("{message}: fix or remove the file, then run `agentctl trust` again");
    }
    let trusted = !project.settings.policy_hashes.is_empty();
    if trusted {
        store
            .trust_files(&root, project.settings.policy_hashes.clone())
            .with_context(|| format!("cannot update {}", store.path().display()))?;
    }
    // Reloaded, the project's servers held back while it was untrusted are there too.
    let reloaded = crate::context::load_quiet(global)?;
    let recorded = record_server_files(&reloaded);
    let code = if recorded.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    let action = if trusted { "trusted" } else { "none" };
    report(
        &project,
        &root,
        action,
        Some(&recorded),
        args.format,
        |out| render::trusted(out, &project, &root, &recorded),
    )?;
    Ok(code)
}

/// Prints the outcome: `text` in text format, the project's [`TrustReport`] in JSON (read
/// back from the store, so it shows what was recorded).
fn report(
    project: &Project,
    root: &Path,
    action: &'static str,
    recorded: Option<&Recorded>,
    format: TextFormat,
    text: impl FnOnce(&mut String) -> anyhow::Result<()>,
) -> anyhow::Result<ExitCode> {
    match format {
        TextFormat::Text => {
            let mut out = String::new();
            text(&mut out)?;
            std::io::stdout().lock().write_all(out.as_bytes())?;
        }
        TextFormat::Json => print_json(&json_report(project, root, action)?)?,
    }
    if let Some(recorded) = recorded {
        let mut err = std::io::stderr().lock();
        for failure in &recorded.failures {
            writeln!(err, "error: {}", terminal_safe(failure))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The project's record, read again (after a change, what was written).
fn record_of(store: &TrustStore, root: &Path) -> anyhow::Result<ProjectRecord> {
    Ok(store
        .project(root)
        .with_context(|| format!("cannot read {}", store.path().display()))?
        .unwrap_or_default())
}

/// Records the files every project MCP server runs ([`Project::record_server_files`]).
fn record_server_files(project: &Project) -> Recorded {
    let recorded = project.record_server_files();
    Recorded {
        files: recorded
            .files
            .into_iter()
            .map(|file| (file.server, file.file, file.sha256))
            .collect(),
        failures: recorded.failures.iter().map(ToString::to_string).collect(),
    }
}

/// The JSON report of the project as the store holds it now.
fn json_report(
    project: &Project,
    root: &Path,
    action: &'static str,
) -> anyhow::Result<TrustReport> {
    let store = project.trust_store();
    let loaded = &project.settings;
    let record = record_of(&store, root)?;
    // After `trust` or `--revoke` the loaded status is stale: decide it again from the record.
    let status = status_now(loaded, &record);
    let trusted_at = record
        .trusted
        .as_ref()
        .map(|trusted| seconds(trusted.trusted_at));
    let applied = status == "trusted";
    Ok(TrustReport {
        project: root.display().to_string(),
        action,
        status,
        trusted_at,
        files: loaded.policy_hashes.clone(),
        changed: changed_policy_files(loaded, &record),
        error: match &loaded.trust {
            ProjectTrust::Unreadable(message) => Some(message.clone()),
            _ => None,
        },
        loosenings: loaded
            .loosenings
            .iter()
            .map(|loosening| LooseningJson {
                key: loosening.key.clone(),
                value: loosening.value.clone(),
                reason: crate::loosening::reason(&loosening.reason),
                applied,
            })
            .collect(),
        servers: record
            .scripts
            .iter()
            .map(|(server, files)| ServerFilesJson {
                server: server.clone(),
                files: files
                    .iter()
                    .map(|(file, script)| ServerFileJson {
                        file: file.clone(),
                        sha256: script.sha256.clone(),
                        recorded_at: seconds(script.recorded_at),
                        current: current_file_hash(root, file),
                    })
                    .collect(),
            })
            .collect(),
    })
}

/// `trusted`, `untrusted`, `changed`, `unreadable` or `not-needed`, from the record as it is
/// now and the files as they were loaded.
fn status_now(loaded: &LoadedSettings, record: &ProjectRecord) -> &'static str {
    TrustStatus::of(loaded, record).as_str()
}

fn seconds(at: u64) -> Timestamp {
    Timestamp(i64::try_from(at.saturating_mul(1000)).unwrap_or(i64::MAX))
}

/// An MCP error as front ends show it: a changed server file says how to approve it.
pub(crate) fn mcp_warning(error: &McpError) -> String {
    let text = match error {
        McpError::ScriptChanged { .. } => format!(
            "{error}; run `agentctl trust` in the project to approve the server's files as they \
             are now"
        ),
        other => other.to_string(),
    };
    terminal_safe(&text).into_owned()
}

/// Before a run on a terminal: asks about each server `agent` starts whose project files
/// changed since they were approved; a yes records the files as they are now. Without a
/// terminal nothing is asked: starting the server fails with an error saying how to approve.
pub(crate) fn approve_changed_scripts(
    manager: &McpManager,
    agent: &AgentDefinition,
) -> anyhow::Result<()> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Ok(());
    }
    let keys: Vec<String> = manager
        .register_agent(agent)
        .into_iter()
        .map(|(_, key)| key)
        .collect();
    let changes = manager.script_changes(&keys);
    let mut servers: Vec<&str> = changes
        .iter()
        .map(|change| change.server.as_str())
        .collect();
    servers.dedup();
    for server in servers {
        let files: Vec<&ScriptChange> = changes
            .iter()
            .filter(|change| change.server == server)
            .collect();
        let mut question = String::new();
        render::changed_question(&mut question, server, &files);
        if crate::output::confirm(&question, "start the server")? {
            manager.approve_scripts(server)?;
        }
    }
    Ok(())
}
