//! The JSON of `agentctl trust`: a project's trust, what its settings loosen and the recorded
//! files of its MCP servers.

use super::{Timestamp, one_of};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

fn status_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&[
        "trusted",
        "untrusted",
        "changed",
        "unreadable",
        "not-needed",
    ])
}

fn action_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["trusted", "revoked", "none"])
}

/// `agentctl trust [--show | --revoke] --format json`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TrustReport {
    /// The project folder (its real path, as recorded).
    pub(crate) project: String,
    /// What the command did: `trusted`, `revoked`, or `none` (`--show`).
    #[schemars(schema_with = "action_schema")]
    pub(crate) action: &'static str,
    /// The project's trust after the command: `trusted`, `untrusted` (never trusted, or
    /// revoked), `changed` (a settings file changed since it was trusted), `unreadable` (the
    /// trust store could not be read) or `not-needed` (the project has no settings file).
    #[schemars(schema_with = "status_schema")]
    pub(crate) status: &'static str,
    /// When the settings were trusted (also for `changed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trusted_at: Option<Timestamp>,
    /// SHA-256 of each project settings file now, by path relative to the project.
    pub(crate) files: BTreeMap<String, String>,
    /// The settings files that changed since they were trusted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) changed: Vec<String>,
    /// Why the trust store could not be read (`unreadable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// The project's values that loosen the user's settings.
    pub(crate) loosenings: Vec<LooseningJson>,
    /// The recorded files of the project's MCP servers.
    pub(crate) servers: Vec<ServerFilesJson>,
}

/// A project settings value that loosens the user's.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LooseningJson {
    /// Dotted key, e.g. `sandbox.mode` or `mcpServers.github`.
    pub(crate) key: String,
    /// The project's value.
    pub(crate) value: Value,
    /// Why it is looser, in words.
    pub(crate) reason: String,
    /// Whether it applies (the project is trusted).
    pub(crate) applied: bool,
}

/// The recorded files of one project MCP server.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerFilesJson {
    /// The server (`name@agent` for an agent's own variant).
    pub(crate) server: String,
    /// Its files.
    pub(crate) files: Vec<ServerFileJson>,
}

/// One recorded file of a project MCP server.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServerFileJson {
    /// The file, relative to the project.
    pub(crate) file: String,
    /// The recorded SHA-256.
    pub(crate) sha256: String,
    /// When it was recorded (first use or approval).
    pub(crate) recorded_at: Timestamp,
    /// The file's SHA-256 now; absent when it no longer exists or cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) current: Option<String>,
}
