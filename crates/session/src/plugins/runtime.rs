//! What enabled plugins run, as a project hands it out: their hooks (unparsed, with their
//! file, for whatever runs hooks), each plugin's state, and the approval a project's plugin
//! needs.

use super::PluginOpError;
use super::servers::{PluginState, expand_root, plugin_files, running, state_of, trust_key};
use crate::project::Project;
use agentctl_core::Scope;
use agentctl_definitions::{InstalledPlugin, PluginError};
use serde_json::Value;
use std::path::PathBuf;

/// The hooks of an enabled plugin, as its file has them (for the hooks engine to parse).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PluginHooks {
    /// The plugin.
    pub plugin: String,
    /// The project's or the user's.
    pub scope: Scope,
    /// The plugin's folder: what `${CLAUDE_PLUGIN_ROOT}` stands for in its commands.
    pub root: PathBuf,
    /// The file they come from (`hooks/hooks.json`, or the manifest holding them).
    pub file: PathBuf,
    /// The file's JSON, unparsed (`{"hooks": {…}}` in Claude Code's shape).
    pub value: Value,
}

impl PluginHooks {
    /// The events mapping a hooks loader reads (the value under `hooks`, or the whole value
    /// when it has no such key), with `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin's folder.
    pub fn events(&self) -> Value {
        let value = self.value.get("hooks").unwrap_or(&self.value).clone();
        expand_root(value, &self.root.display().to_string())
    }
}

impl Project {
    /// Whether what `plugin` runs may run here.
    pub fn plugin_state(&self, plugin: &InstalledPlugin) -> PluginState {
        state_of(plugin, &self.locations, &self.trust_store())
    }

    /// The hooks of every plugin whose code may run, each with its file; a plugin whose
    /// hooks cannot be read is an error naming the file.
    pub fn plugin_hooks(&self) -> (Vec<PluginHooks>, Vec<PluginError>) {
        let mut hooks = Vec::new();
        let mut errors = Vec::new();
        for plugin in running(&self.locations) {
            match plugin.hooks() {
                Ok(Some((file, value))) => hooks.push(PluginHooks {
                    plugin: plugin.name().to_owned(),
                    scope: plugin.scope,
                    root: plugin.dir.clone(),
                    file,
                    value,
                }),
                Ok(None) => {}
                Err(error) => errors.push(error),
            }
        }
        (hooks, errors)
    }

    /// Records the files of the project's `plugin` in the trust store as approved now.
    pub(super) fn approve_plugin(&self, plugin: &InstalledPlugin) -> Result<(), PluginOpError> {
        let trust = |message: String| PluginOpError::Trust {
            plugin: plugin.name().to_owned(),
            message,
        };
        let root = self
            .locations
            .project_root
            .as_deref()
            .ok_or(PluginOpError::NoProject)?;
        let files = plugin_files(plugin, root).map_err(trust)?;
        self.trust_store()
            .record_scripts(root, &trust_key(plugin), &files)
            .map_err(|error| trust(error.to_string()))
    }
}
