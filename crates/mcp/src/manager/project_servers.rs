//! Which servers are a project's, and what that changes: their files checked before they
//! start, and inline servers of project agent files kept from the user's environment.

use super::McpManager;
use crate::config::{ServerSpec, resolve_with};
use crate::error::{McpError, Result};
use agentctl_config::{ScriptChange, ServerScript};
use agentctl_core::McpServerConfig;
use agentctl_sandbox::DEFAULT_SERVER_ENV;
use std::sync::PoisonError;

impl McpManager {
    /// Whether the server under `key` is a project's: defined in the project's settings or
    /// inline in one of its agent files (and the manager was built for a project).
    pub fn is_project_server(&self, key: &str) -> bool {
        let Some(project) = &self.inner.launch.project else {
            return false;
        };
        project.servers.contains(key)
            || self
                .inner
                .project_inline
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(key)
    }

    /// Keys of the project's servers known so far (settings servers, and the inline servers
    /// of the agents registered), sorted.
    pub fn project_server_keys(&self) -> Vec<String> {
        self.server_names()
            .into_iter()
            .filter(|key| self.is_project_server(key))
            .collect()
    }

    /// The files of the project servers under `keys` that changed since they were approved,
    /// without starting or recording anything: what a front end asks about before a run. A
    /// server whose files cannot be checked is left out (starting it will say why).
    pub fn script_changes(&self, keys: &[String]) -> Vec<ScriptChange> {
        let Some(project) = &self.inner.launch.project else {
            return Vec::new();
        };
        keys.iter()
            .filter(|key| self.is_project_server(key))
            .filter_map(|key| self.server_spec(key).ok())
            .filter_map(|spec| project.changes(&spec, &self.inner.base_dir).ok())
            .flatten()
            .collect()
    }

    /// Approves a project server's files as they are now (records their hashes), so that it
    /// starts; returns the files. Fails for a server that is not a project's.
    pub fn approve_scripts(&self, key: &str) -> Result<Vec<ServerScript>> {
        // A remote server runs no file here: nothing to record, and its `${VAR}`s need not be
        // set to trust the project.
        if self.config(key)?.command.is_none() {
            return Ok(Vec::new());
        }
        let spec = self.server_spec(key)?;
        match &self.inner.launch.project {
            Some(project) if self.is_project_server(key) => {
                project.approve(&spec, &self.inner.base_dir)
            }
            _ => Err(McpError::ScriptCheck {
                server: key.to_owned(),
                message: "not a server of the project".into(),
            }),
        }
    }

    /// Whether `key` is an inline server of one of the project's agent files.
    pub(super) fn is_project_inline(&self, key: &str) -> bool {
        self.inner.launch.project.is_some()
            && self
                .inner
                .project_inline
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(key)
    }

    /// Resolves an inline server of a project agent file: agent files are not covered by the
    /// trust in the project's settings, so `${VAR}` may read only the variables a server
    /// inherits anyway, and `trust: true` does not lower its tools' risk.
    pub(super) fn resolve_project_inline(
        &self,
        key: &str,
        config: &McpServerConfig,
    ) -> Result<ServerSpec> {
        let env = &self.inner.launch.env;
        let refused = std::cell::RefCell::new(None);
        let lookup = |variable: &str| {
            let inherited = DEFAULT_SERVER_ENV.contains(&variable)
                || env.passes(std::ffi::OsStr::new(variable));
            if inherited {
                std::env::var(variable).ok()
            } else {
                refused
                    .borrow_mut()
                    .get_or_insert_with(|| variable.to_owned());
                None
            }
        };
        let resolved = resolve_with(key, config, &self.inner.base_dir, &lookup);
        if let Some(variable) = refused.into_inner() {
            return Err(McpError::VariableRefused {
                server: key.to_owned(),
                variable,
            });
        }
        let mut spec = resolved?;
        spec.trust = false;
        Ok(spec)
    }
}
