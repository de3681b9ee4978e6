//! Servers a project defines — in its `.agentctl/settings.json` or inline in its agent files —
//! run in the sandbox whatever `sandbox.mcpServers` says (unless the user's own settings name
//! them in `sandbox.mcpServers.unconfined`), and the files of the project they run are trusted
//! on first use: each file's SHA-256 is recorded in the trust store the first time the server
//! starts, and a server whose file changed since is not started until the user approves the
//! file again ([`McpError::ScriptChanged`](crate::McpError::ScriptChanged)).
//!
//! The files are the words of the server's command line (and values attached to options)
//! that name a regular file in the project, after `${VAR}` expansion and resolved against the
//! server's working directory ([`agentctl_config::server_scripts`]).

use crate::config::{ServerSpec, TransportSpec};
use crate::error::{McpError, Result};
use agentctl_config::{LoadedSettings, ScriptChange, ServerScript, TrustStore, server_scripts};
use agentctl_core::{SandboxMode, Settings};
use agentctl_sandbox::SandboxPolicy;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How the servers a project defines are started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectLaunch {
    /// The project root: its files are the ones hashed, and confined servers may write it.
    pub root: PathBuf,
    /// The sandbox project servers run in: the settings' `sandbox.*`, never `off`.
    pub sandbox: SandboxPolicy,
    /// Servers the user's own settings take out of the sandbox
    /// (`sandbox.mcpServers.unconfined`).
    pub unconfined: BTreeSet<String>,
    /// Names of the settings servers the project defines.
    pub servers: BTreeSet<String>,
    /// Where the hashes of the files they run are recorded.
    pub store: TrustStore,
}

impl ProjectLaunch {
    /// The launch of the servers of a project at `root` whose settings were loaded as
    /// `loaded`, recording hashes in `store`.
    pub fn new(loaded: &LoadedSettings, root: &Path, store: TrustStore) -> Self {
        Self {
            root: root.to_path_buf(),
            sandbox: project_sandbox(&loaded.settings),
            unconfined: loaded
                .settings
                .sandbox
                .mcp_servers
                .unconfined
                .iter()
                .cloned()
                .collect(),
            servers: loaded.project_servers.clone(),
            store,
        }
    }

    /// The sandbox a project server called `name` runs in; `None` when the user took it out.
    pub fn sandbox_for(&self, name: &str) -> Option<&SandboxPolicy> {
        (!self.unconfined.contains(name)).then_some(&self.sandbox)
    }

    /// The files of the project a server runs, hashed now.
    pub fn scripts(&self, spec: &ServerSpec, base_dir: &Path) -> Result<Vec<ServerScript>> {
        let TransportSpec::Stdio {
            command, args, cwd, ..
        } = &spec.transport
        else {
            return Ok(Vec::new());
        };
        let words: Vec<&str> = std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect();
        let cwd = cwd.as_deref().unwrap_or(base_dir);
        server_scripts(&self.root, cwd, &words).map_err(|error| McpError::ScriptCheck {
            server: spec.name.clone(),
            message: error.to_string(),
        })
    }

    /// Checks a server's files against their records before it starts: records them on
    /// first use, fails with [`McpError::ScriptChanged`] when one changed.
    pub(crate) fn check(&self, spec: &ServerSpec, base_dir: &Path) -> Result<()> {
        let scripts = self.scripts(spec, base_dir)?;
        let changes = self
            .store
            .check_scripts(&self.root, &spec.name, &scripts)
            .map_err(|error| McpError::ScriptCheck {
                server: spec.name.clone(),
                message: error.to_string(),
            })?;
        if changes.is_empty() {
            Ok(())
        } else {
            Err(McpError::ScriptChanged {
                server: spec.name.clone(),
                changes,
            })
        }
    }

    /// The files of a server that differ from their records, without recording anything.
    pub(crate) fn changes(&self, spec: &ServerSpec, base_dir: &Path) -> Result<Vec<ScriptChange>> {
        let scripts = self.scripts(spec, base_dir)?;
        let record = self
            .store
            .project(&self.root)
            .map_err(|error| McpError::ScriptCheck {
                server: spec.name.clone(),
                message: error.to_string(),
            })?
            .unwrap_or_default();
        let Some(recorded) = record.scripts.get(&spec.name) else {
            return Ok(Vec::new());
        };
        Ok(scripts
            .into_iter()
            .filter_map(|script| {
                let old = recorded.get(&script.relative)?;
                (old.sha256 != script.sha256).then(|| ScriptChange {
                    server: spec.name.clone(),
                    file: script.relative,
                    recorded: old.sha256.clone(),
                    current: script.sha256,
                })
            })
            .collect())
    }

    /// Records a server's files as they are now (the user approved them); returns them.
    pub(crate) fn approve(&self, spec: &ServerSpec, base_dir: &Path) -> Result<Vec<ServerScript>> {
        let scripts = self.scripts(spec, base_dir)?;
        self.store
            .record_scripts(&self.root, &spec.name, &scripts)
            .map_err(|error| McpError::ScriptCheck {
                server: spec.name.clone(),
                message: error.to_string(),
            })?;
        Ok(scripts)
    }
}

/// The settings' sandbox for project servers: `off` (the user's choice for their own
/// commands) still confines them to the project, as `workspace-write` does. The
/// `Read(…)`/`Edit(…)` rules of `permissions.deny` hold for them as for `bash`: a server's
/// tools are not judged path by path, so the OS is what keeps them out.
fn project_sandbox(settings: &Settings) -> SandboxPolicy {
    let policy = SandboxPolicy::from_settings(&settings.sandbox);
    let policy = if policy.is_confining() {
        policy
    } else {
        let mut sandbox = settings.sandbox.clone();
        sandbox.mode = SandboxMode::WorkspaceWrite;
        SandboxPolicy::from_settings(&sandbox)
    };
    policy.with_permission_denies(&settings.permissions)
}
