//! Plugins as a front end manages them: `plugins add|list|remove|update|enable|disable`.
//!
//! A plugin is a folder in Claude Code's format (`.claude-plugin/plugin.json`, `agents/`,
//! `commands/`, `skills/`, `hooks/hooks.json`, `.mcp.json`); a marketplace is a folder or git
//! repository with `.claude-plugin/marketplace.json` listing plugins. Installing copies a
//! plugin into `$AGENTCTL_HOME/plugins/<name>` (or the project's `.agentctl/plugins/<name>`)
//! and records it in that folder's `installed.json`
//! ([`Registry`](agentctl_definitions::Registry)).
//!
//! What a plugin *says* is available at once: its agents, commands and skills are prompts,
//! discovered as `plugin:name` and run under the same policy as any other agent. What a
//! plugin *runs* — its hooks and MCP servers — waits until the user enables it
//! ([`PluginState`]). A project's plugin, which a cloned repository can bring with
//! `enabled: true` already written, also needs the user's approval on this machine: enabling
//! it records the hash of each of its files in the trust store (beside the project's trust
//! and its servers' scripts), and any later change to them stops its code until it is
//! enabled again.

mod fetch;
mod install;
mod marketplace;
mod runtime;
mod servers;

use crate::project::Project;
use agentctl_core::Scope;
use agentctl_definitions::{
    InstalledPlugin, PluginError, PluginRecord, PluginSet, REGISTRY_FILE, Registry,
    installed_plugins, read_registry,
};
use std::io::Write as _;
use std::path::{Path, PathBuf};

pub use fetch::{GIT_TIMEOUT, MAX_PLUGIN_BYTES, MAX_PLUGIN_FILES};
pub use install::PluginAddRequest;
pub use marketplace::{MARKETPLACE_MANIFEST, MAX_MARKETPLACE_PLUGINS};
pub use runtime::PluginHooks;
pub use servers::{PLUGIN_ROOT_VAR, PluginState};
pub(crate) use servers::{add_plugin_servers, disarm_agents};

/// Why a plugin operation failed. Each names the plugin, file or URL concerned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginOpError {
    /// Reading a manifest or registry failed, or a path escapes its folder.
    #[error(transparent)]
    Plugin(#[from] PluginError),
    /// The source is neither an existing folder nor a git URL.
    #[error("{} does not exist", .0.display())]
    NotFound(PathBuf),
    /// The folder has neither a plugin's nor a marketplace's manifest.
    #[error("{} is neither a plugin (.claude-plugin/plugin.json) nor a marketplace (.claude-plugin/marketplace.json)", .0.display())]
    NotAPlugin(PathBuf),
    /// A git URL refused before git sees it.
    #[error("refusing the git URL `{url}`: {reason}")]
    UnsafeGitUrl {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// `git clone` failed.
    #[error("cannot clone {url}: {message}")]
    Git {
        /// The URL.
        url: String,
        /// What git said.
        message: String,
    },
    /// `git clone` took too long and was stopped.
    #[error("cloning {url} took more than {seconds} s; stopped it")]
    GitTimeout {
        /// The URL.
        url: String,
        /// The limit.
        seconds: u64,
    },
    /// A symbolic link of the plugin leads outside it (or to a folder).
    #[error("{} is a symbolic link to {}, which is outside the plugin or not a file; refusing to install it", link.display(), target.display())]
    LinkOut {
        /// The link.
        link: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
    /// A socket, pipe or device in the plugin.
    #[error("{} is not a regular file or folder; refusing to install it", .0.display())]
    NotRegular(PathBuf),
    /// The plugin holds more than the limits.
    #[error("{} holds more than {files} files or {bytes} bytes", path.display())]
    TooLarge {
        /// The plugin's folder.
        path: PathBuf,
        /// The most files.
        files: usize,
        /// The most bytes.
        bytes: u64,
    },
    /// A marketplace lists more plugins than allowed.
    #[error("{} lists more than {limit} plugins", path.display())]
    TooManyPlugins {
        /// The manifest.
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// A marketplace entry's `source` is not one agentctl knows.
    #[error("plugin `{plugin}`: unknown source {written}")]
    EntrySource {
        /// The plugin.
        plugin: String,
        /// The source as written.
        written: String,
    },
    /// A marketplace was given without saying which plugins to install.
    #[error("marketplace `{marketplace}` has {} plugins: choose some by name or all", available.len())]
    NothingChosen {
        /// The marketplace.
        marketplace: String,
        /// Its plugins' names.
        available: Vec<String>,
    },
    /// A plugin asked for that the marketplace does not list.
    #[error("marketplace `{marketplace}` has no plugin `{name}`")]
    NoSuchPlugin {
        /// The name asked for.
        name: String,
        /// The marketplace.
        marketplace: String,
        /// Its plugins' names.
        available: Vec<String>,
    },
    /// Plugin names were given for a source that is a single plugin.
    #[error("{} is a plugin, not a marketplace: there is nothing to choose", .0.display())]
    NotAMarketplace(PathBuf),
    /// A plugin of that name is installed there already.
    #[error("plugin `{name}` is already installed in {}", dir.display())]
    AlreadyInstalled {
        /// The plugin.
        name: String,
        /// Its plugins folder.
        dir: PathBuf,
    },
    /// No plugin of that name is installed.
    #[error("no plugin `{0}` is installed")]
    NotInstalled(String),
    /// Project plugins were asked for outside a project.
    #[error("not in a project: project plugins need one")]
    NoProject,
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The trust store could not record or read the plugin's files.
    #[error("plugin `{plugin}`: {message}")]
    Trust {
        /// The plugin.
        plugin: String,
        /// What went wrong.
        message: String,
    },
}

/// A plugin as an operation left it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PluginChange {
    /// Its record.
    pub record: PluginRecord,
    /// The project's or the user's.
    pub scope: Scope,
    /// Whether it has hooks or MCP servers (which wait until it is enabled).
    pub runs_code: bool,
}

impl Project {
    /// The plugins installed for this project and user, with what reading them met.
    pub fn plugins(&self) -> PluginSet {
        installed_plugins(&self.locations)
    }

    /// The plugins folder of `scope`: `<project>/.agentctl/plugins` or
    /// `$AGENTCTL_HOME/plugins`.
    pub fn plugins_dir(&self, scope: Scope) -> Result<PathBuf, PluginOpError> {
        let roots = agentctl_definitions::plugin_roots(&self.locations);
        roots
            .into_iter()
            .find(|root| root.scope == scope)
            .map(|root| root.path)
            .ok_or(PluginOpError::NoProject)
    }

    /// Removes the installed plugin `name` (the project's if both have one): its folder and
    /// its record.
    pub fn remove_plugin(&self, name: &str) -> Result<PluginChange, PluginOpError> {
        let plugin = self.installed(name)?;
        let dir = self.plugins_dir(plugin.scope)?;
        let mut registry = read_registry(&dir)?;
        let record = registry
            .plugins
            .remove(name)
            .ok_or_else(|| PluginOpError::NotInstalled(name.to_owned()))?;
        write_registry(&dir, &registry)?;
        let folder = dir.join(name);
        std::fs::remove_dir_all(&folder).map_err(|source| PluginOpError::Io {
            path: folder,
            source,
        })?;
        Ok(PluginChange {
            runs_code: plugin.runs_code(),
            record,
            scope: plugin.scope,
        })
    }

    /// Enables or disables what the plugin `name` runs. Enabling a project's plugin also
    /// records its files as the user approves them now.
    pub fn set_plugin_enabled(
        &self,
        name: &str,
        enabled: bool,
    ) -> Result<PluginChange, PluginOpError> {
        let plugin = self.installed(name)?;
        if enabled && plugin.scope == Scope::Project {
            self.approve_plugin(&plugin)?;
        }
        let dir = self.plugins_dir(plugin.scope)?;
        let mut registry = read_registry(&dir)?;
        let record = registry
            .plugins
            .get_mut(name)
            .ok_or_else(|| PluginOpError::NotInstalled(name.to_owned()))?;
        record.enabled = enabled;
        let record = record.clone();
        write_registry(&dir, &registry)?;
        Ok(PluginChange {
            runs_code: plugin.runs_code(),
            record,
            scope: plugin.scope,
        })
    }

    /// The installed plugin `name`.
    fn installed(&self, name: &str) -> Result<InstalledPlugin, PluginOpError> {
        self.plugins()
            .plugins
            .into_iter()
            .find(|plugin| plugin.name() == name)
            .ok_or_else(|| PluginOpError::NotInstalled(name.to_owned()))
    }
}

/// Writes `registry` as `dir`'s `installed.json`, atomically.
pub(crate) fn write_registry(dir: &Path, registry: &Registry) -> Result<(), PluginOpError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PluginOpError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let mut registry = registry.clone();
    registry.version = 1;
    let text = serde_json::to_string_pretty(&registry).map_err(|error| PluginOpError::Io {
        path: dir.join(REGISTRY_FILE),
        source: error.into(),
    })?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
    file.write_all(text.as_bytes()).map_err(io(file.path()))?;
    file.write_all(b"\n").map_err(io(dir))?;
    let path = dir.join(REGISTRY_FILE);
    file.persist(&path).map_err(|error| PluginOpError::Io {
        path,
        source: error.error,
    })?;
    Ok(())
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests;
