//! Trust in a project, as `agentctl trust` (or any front end) records and reports it: where
//! the trust of the project's settings stands, and the files its MCP servers run.

use crate::project::Project;
use agentctl_config::{LoadedSettings, PROJECT_POLICY_FILES, ProjectRecord, ProjectTrust};
use agentctl_core::Scope;
use agentctl_mcp::McpError;
use std::path::Path;

/// Where the trust of a project's settings stands, from its record and the files as loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TrustStatus {
    /// The trust store cannot be read.
    Unreadable,
    /// The project's settings loosen nothing: there is nothing to trust.
    NotNeeded,
    /// Never trusted (or the trust was withdrawn).
    Untrusted,
    /// Trusted as the files are now.
    Trusted,
    /// Trusted, but a file changed since.
    Changed,
}

impl TrustStatus {
    /// Of the settings `loaded` and the project's trust `record`.
    pub fn of(loaded: &LoadedSettings, record: &ProjectRecord) -> Self {
        if matches!(loaded.trust, ProjectTrust::Unreadable(_)) {
            return Self::Unreadable;
        }
        if loaded.policy_hashes.is_empty() {
            return Self::NotNeeded;
        }
        match &record.trusted {
            None => Self::Untrusted,
            Some(_) if changed_policy_files(loaded, record).is_empty() => Self::Trusted,
            Some(_) => Self::Changed,
        }
    }

    /// `trusted`, `untrusted`, `changed`, `unreadable` or `not-needed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unreadable => "unreadable",
            Self::NotNeeded => "not-needed",
            Self::Untrusted => "untrusted",
            Self::Trusted => "trusted",
            Self::Changed => "changed",
        }
    }
}

/// The project settings files whose hash now differs from the trusted one (none when the
/// project was never trusted).
pub fn changed_policy_files(loaded: &LoadedSettings, record: &ProjectRecord) -> Vec<String> {
    let Some(trusted) = &record.trusted else {
        return Vec::new();
    };
    PROJECT_POLICY_FILES
        .iter()
        .filter(|file| trusted.files.get(**file) != loaded.policy_hashes.get(**file))
        .map(|file| (*file).to_owned())
        .collect()
}

/// SHA-256 of the project file `file` now, if it is a readable regular file.
pub fn current_file_hash(root: &Path, file: &str) -> Option<String> {
    agentctl_config::server_scripts(root, root, &[file])
        .ok()?
        .into_iter()
        .next()
        .map(|script| script.sha256)
}

/// One file a project MCP server runs, as recorded.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecordedFile {
    /// The server.
    pub server: String,
    /// The file, relative to the project root.
    pub file: String,
    /// Its SHA-256.
    pub sha256: String,
}

/// What recording the project's MCP servers' files did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct RecordedServerFiles {
    /// Every file recorded.
    pub files: Vec<RecordedFile>,
    /// Servers whose files could not be recorded, each error naming the server.
    pub failures: Vec<McpError>,
}

impl Project {
    /// Records the files every project MCP server runs — servers of the project's settings
    /// and inline servers of its agent files — as they are now: a later change stops the
    /// server until it is approved.
    pub fn record_server_files(&self) -> RecordedServerFiles {
        let agents: Vec<_> = self
            .discover()
            .agents
            .into_iter()
            .map(|loaded| loaded.definition)
            .collect();
        let manager = self.mcp_manager(&agents);
        for agent in agents
            .iter()
            .filter(|agent| agent.source.scope == Scope::Project)
        {
            manager.register_agent(agent);
        }
        let mut recorded = RecordedServerFiles::default();
        for key in manager.project_server_keys() {
            match manager.approve_scripts(&key) {
                Ok(scripts) => {
                    recorded
                        .files
                        .extend(scripts.into_iter().map(|script| RecordedFile {
                            server: key.clone(),
                            file: script.relative,
                            sha256: script.sha256,
                        }))
                }
                Err(error) => recorded.failures.push(error),
            }
        }
        recorded
    }
}
