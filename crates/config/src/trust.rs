//! Workspace trust: a project's own settings cannot loosen the user's policy until the user
//! trusts the project.
//!
//! A cloned repository's `.agentctl/settings.json` is written by whoever wrote the repository.
//! When settings are loaded, every *policy* value of the project layer is compared with what
//! the user's own layers (built-in defaults and `$AGENTCTL_HOME/settings.json`) give at the
//! same place ([`rules`], [`entries`]): more auto-approved risk levels, a sandbox mode that
//! confines less, network opened or a longer allow-list, more writable or readable roots,
//! MCP servers taken out of the sandbox, more variables passed through, a tool rated lower,
//! private web addresses or more hosts, a provider that would send a key to an endpoint the
//! project chose, an MCP server that reads the user's environment or replaces the user's own,
//! and any other value of a policy section that differs. Such a value is applied only when
//! the project is trusted; tightening values always apply. Each ignored value becomes a
//! [`ConfigWarning::Untrusted`](crate::ConfigWarning::Untrusted).
//!
//! Trust is recorded in the [`TrustStore`] per canonical project path with the SHA-256 of
//! each file in [`PROJECT_POLICY_FILES`] as it was then: any change to those files makes the
//! project untrusted again until the user trusts it anew. The same store records the hashes
//! of the files project MCP servers run ([`server_scripts`]), on first use.

mod entries;
mod finding;
mod rules;
mod scripts;
mod store;

pub(crate) use finding::Baselines;
pub(crate) use rules::review;
pub(crate) use scripts::sha256_hex;
pub use scripts::{ServerScript, server_scripts};
pub use store::{
    ProjectRecord, ScriptChange, ScriptRecord, TRUST_DIR, TRUST_FILE, TrustError, TrustStore,
    TrustedFiles,
};

use agentctl_core::{RiskLevel, SandboxMode};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// The project files that decide the project's policy, relative to its root. Trusting a
/// project records the hash of each; a change to any of them withdraws the trust.
pub const PROJECT_POLICY_FILES: &[&str] = &[
    ".agentctl/settings.json",
    ".gemini/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
];

/// Why a project value is looser than the user's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum LooseningReason {
    /// More risk levels would run without asking: these.
    AutoApproves(Vec<RiskLevel>),
    /// The sandbox would confine less.
    SandboxMode {
        /// The user's mode.
        user: SandboxMode,
        /// The project's.
        project: SandboxMode,
    },
    /// Opens what the user's settings keep closed (network, private addresses).
    Enables,
    /// Turns off a protection the user's settings turn on.
    Disables,
    /// Adds these entries to an allow-list (roots, variables, hosts, servers).
    AddsEntries(Vec<String>),
    /// Drops these entries of the user's deny-list (protected paths).
    RemovesEntries(Vec<String>),
    /// Rates a tool lower than the user's settings or the tool itself.
    LowersRisk {
        /// The level it would have.
        from: RiskLevel,
        /// The level asked for.
        to: RiskLevel,
    },
    /// Raises a limit.
    RaisesLimit {
        /// The user's limit.
        user: u64,
        /// The project's.
        project: u64,
    },
    /// A policy value with no known order that differs from the user's.
    Differs,
    /// A provider would send the key held in one of these variables to an endpoint the project
    /// chose.
    SendsCredentials(Vec<String>),
    /// An MCP server's configuration would read these variables of the user's environment.
    ReadsEnvironment(Vec<String>),
    /// An MCP server marks itself trusted (its tools rated one level lower).
    TrustsServer,
    /// An MCP server replaces the user's server of the same name.
    ReplacesServer,
    /// Hooks: commands run at points of every run.
    RunsCommands,
}

impl fmt::Display for LooseningReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |items: &[String]| items.join(", ");
        match self {
            LooseningReason::AutoApproves(levels) => {
                let levels: Vec<String> = levels.iter().map(ToString::to_string).collect();
                write!(f, "approves {} without asking", list(&levels))
            }
            LooseningReason::SandboxMode { user, project } => write!(
                f,
                "sandbox mode `{}` confines less than `{}`",
                project.as_str(),
                user.as_str()
            ),
            LooseningReason::Enables => f.write_str("opens what the user's settings keep closed"),
            LooseningReason::Disables => {
                f.write_str("turns off a protection the user's settings turn on")
            }
            LooseningReason::AddsEntries(entries) => write!(f, "adds {}", list(entries)),
            LooseningReason::RemovesEntries(entries) => write!(f, "drops {}", list(entries)),
            LooseningReason::LowersRisk { from, to } => {
                write!(f, "rates the tool {to} instead of {from}")
            }
            LooseningReason::RaisesLimit { user, project } => {
                write!(f, "raises the limit from {user} to {project}")
            }
            LooseningReason::Differs => f.write_str("differs from the user's value"),
            LooseningReason::SendsCredentials(variables) => write!(
                f,
                "would send the key in {} to an endpoint the project chose",
                list(variables)
            ),
            LooseningReason::ReadsEnvironment(variables) => {
                write!(f, "reads {} from the environment", list(variables))
            }
            LooseningReason::TrustsServer => f.write_str("marks the server trusted"),
            LooseningReason::ReplacesServer => {
                f.write_str("replaces the user's server of the same name")
            }
            LooseningReason::RunsCommands => f.write_str("runs commands as hooks"),
        }
    }
}

/// A value of the project layer that loosens the user's policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loosening {
    /// Dotted key, e.g. `sandbox.mode`, `tools.risk.bash` or `mcpServers.github`.
    pub key: String,
    /// The project's value.
    pub value: Value,
    /// Why it is looser.
    pub reason: LooseningReason,
    /// Whether it applies (the project is trusted).
    pub applied: bool,
}

/// Whether the project's policy files are trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProjectTrust {
    /// Outside a project, or the project has no policy file: nothing to trust.
    NotNeeded,
    /// The user trusted the project's policy files as they are now.
    Trusted(TrustedFiles),
    /// The user never trusted this project (or revoked the trust).
    Untrusted,
    /// The user trusted the project, and these policy files changed since.
    Changed {
        /// What was trusted.
        trusted: TrustedFiles,
        /// The files (relative to the root) whose contents differ now.
        changed: Vec<String>,
    },
    /// The trust store could not be read (the message says why): the project counts as
    /// untrusted.
    Unreadable(String),
}

impl ProjectTrust {
    /// Whether the project's loosening values apply.
    pub fn is_trusted(&self) -> bool {
        matches!(self, ProjectTrust::Trusted(_))
    }

    /// `trusted`, `untrusted`, `changed`, `unreadable` or `not-needed`.
    pub fn name(&self) -> &'static str {
        match self {
            ProjectTrust::NotNeeded => "not-needed",
            ProjectTrust::Trusted(_) => "trusted",
            ProjectTrust::Untrusted => "untrusted",
            ProjectTrust::Changed { .. } => "changed",
            ProjectTrust::Unreadable(_) => "unreadable",
        }
    }
}

/// Decides the trust of a project whose policy files hash to `current` (relative path →
/// SHA-256, files that exist only) from what `store` holds.
pub(crate) fn assess(
    store: &TrustStore,
    root: &std::path::Path,
    current: &BTreeMap<String, String>,
) -> ProjectTrust {
    if current.is_empty() {
        return ProjectTrust::NotNeeded;
    }
    let record = match store.project(root) {
        Ok(record) => record,
        Err(error) => return ProjectTrust::Unreadable(error.to_string()),
    };
    let Some(trusted) = record.and_then(|record| record.trusted) else {
        return ProjectTrust::Untrusted;
    };
    let changed: Vec<String> = PROJECT_POLICY_FILES
        .iter()
        .filter(|file| trusted.files.get(**file) != current.get(**file))
        .map(|file| (*file).to_owned())
        .collect();
    if changed.is_empty() {
        ProjectTrust::Trusted(trusted)
    } else {
        ProjectTrust::Changed { trusted, changed }
    }
}
