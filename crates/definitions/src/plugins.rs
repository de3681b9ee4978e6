//! Installed plugins: Claude Code's plugin folders (`.claude-plugin/plugin.json`, with
//! `agents/`, `commands/`, `skills/`, `hooks/hooks.json` and `.mcp.json`), as agentctl keeps
//! them under `$AGENTCTL_HOME/plugins/<name>` and `<project>/.agentctl/plugins/<name>`.
//!
//! Each plugins folder has a registry, `installed.json`, recording every plugin installed
//! there: where it came from, its version and whether it is enabled. Only the plugins the
//! registry names are read (a folder dropped beside them is not a plugin), and only by the
//! name the registry gives, which is checked to be kebab-case — never a path. What a plugin
//! brings is namespaced by its name: `plugin:agent`, `plugin:skill`, `/plugin:command`.
//! Every path a manifest gives is confined to the plugin's folder ([`confined_path`]).
//!
//! Reading is this crate's; installing, enabling and running what a plugin brings is the
//! session's.

mod manifest;

use agentctl_config::{InputLimit, Locations, read_input_file};
use agentctl_core::Scope;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use manifest::{
    MANIFEST_DIR, MAX_MANIFEST_BYTES, PLUGIN_MANIFEST, PathList, PluginManifest, confined_path,
    is_valid_plugin_name, read_plugin_manifest,
};
use manifest::{contributed_dirs, file_or_value};

/// The folder plugins are installed in, under `$AGENTCTL_HOME` or a project's `.agentctl`.
pub const PLUGINS_DIR: &str = "plugins";
/// The registry of a plugins folder.
pub const REGISTRY_FILE: &str = "installed.json";
/// Largest registry read.
const REGISTRY_LIMIT: InputLimit = InputLimit {
    what: "plugin registries",
    max_bytes: 4 * 1024 * 1024,
};

/// What went wrong reading (or installing) a plugin. Each names the file or path concerned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// A file could not be read.
    #[error("{}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A manifest or registry is not valid JSON of the expected shape.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Manifest {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A plugin name that is not kebab-case (1 to 64 characters).
    #[error(
        "{}: `{name}` is not a valid plugin name: use lowercase letters, digits and hyphens",
        path.display()
    )]
    InvalidName {
        /// The name as written.
        name: String,
        /// Where it is written.
        path: PathBuf,
    },
    /// A path that leads outside the folder it must stay in.
    #[error("`{path}` leads outside {}; refusing it", root.display())]
    Escapes {
        /// The path as written.
        path: String,
        /// The folder it must stay in.
        root: PathBuf,
    },
    /// A path that should be a folder and is something else.
    #[error("{} is not a folder", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// The registry names a plugin whose folder is missing.
    #[error("plugin `{name}` is recorded in {} but its folder is missing", registry.display())]
    Missing {
        /// The plugin.
        name: String,
        /// The registry.
        registry: PathBuf,
    },
    /// A plugin of the project hides the user's plugin of the same name.
    #[error("plugin `{name}` of the project hides yours of the same name ({})", hidden.display())]
    Shadowed {
        /// The plugin.
        name: String,
        /// The hidden plugin's folder.
        hidden: PathBuf,
    },
}

/// Where an installed plugin came from, for `plugins update`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginOrigin {
    /// The folder or git URL fetched: the plugin itself, or the marketplace holding it.
    pub location: String,
    /// Whether `location` is a git repository cloned.
    #[serde(default)]
    pub git: bool,
    /// The marketplace's name, when the plugin came from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace: Option<String>,
}

/// One installed plugin, as its registry records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginRecord {
    /// Its name (its folder's name).
    pub name: String,
    /// Its version when installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where it came from.
    pub origin: PluginOrigin,
    /// Whether what it runs (hooks, MCP servers) may run. Its prompts (agents, commands,
    /// skills) are available either way.
    #[serde(default)]
    pub enabled: bool,
    /// When it was installed, in seconds since the Unix epoch.
    #[serde(default)]
    pub installed_at: u64,
    /// When it was last updated, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<u64>,
}

/// A plugins folder's `installed.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    /// The file format's version.
    #[serde(default)]
    pub version: u32,
    /// The plugins, by name.
    #[serde(default)]
    pub plugins: BTreeMap<String, PluginRecord>,
}

/// Reads the registry of the plugins folder `dir`; a missing file is an empty registry.
pub fn read_registry(dir: &Path) -> Result<Registry, PluginError> {
    let path = dir.join(REGISTRY_FILE);
    let text = match read_input_file(&path, REGISTRY_LIMIT) {
        Ok(text) => text,
        Err(error) if error.is_not_found() => return Ok(Registry::default()),
        Err(error) => {
            return Err(PluginError::Read {
                path,
                message: error.to_string(),
            });
        }
    };
    serde_json::from_str(&text).map_err(|error| PluginError::Manifest {
        path,
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })
}

/// A plugins folder: the project's or the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginRoot {
    /// The folder (`…/plugins`).
    pub path: PathBuf,
    /// Whether it is the project's or the user's.
    pub scope: Scope,
}

/// The plugins folders, the project's first.
pub fn plugin_roots(locations: &Locations) -> Vec<PluginRoot> {
    let mut roots = Vec::with_capacity(2);
    if let Some(root) = &locations.project_root {
        roots.push(PluginRoot {
            path: root.join(".agentctl").join(PLUGINS_DIR),
            scope: Scope::Project,
        });
    }
    let global = locations.agentctl_home.join(PLUGINS_DIR);
    if !roots.iter().any(|root| root.path == global) {
        roots.push(PluginRoot {
            path: global,
            scope: Scope::Global,
        });
    }
    roots
}

/// A plugin found installed.
#[derive(Debug, Clone, PartialEq)]
pub struct InstalledPlugin {
    /// Its registry record.
    pub record: PluginRecord,
    /// Its manifest (one made of the record when the plugin has none).
    pub manifest: PluginManifest,
    /// Its folder, symbolic links resolved.
    pub dir: PathBuf,
    /// Whether it is the project's or the user's.
    pub scope: Scope,
}

impl InstalledPlugin {
    /// The plugin `record` names in the plugins folder `root`, read from its folder.
    pub fn open(root: &PluginRoot, record: PluginRecord) -> Result<Self, PluginError> {
        let name = record.name.clone();
        load_installed(root, &name, record)
    }

    /// Its name, the namespace of what it brings.
    pub fn name(&self) -> &str {
        &self.record.name
    }

    /// Its agent folders: `agents/` and the folders and files its manifest adds.
    pub fn agent_dirs(&self) -> (Vec<PathBuf>, Vec<PluginError>) {
        contributed_dirs(&self.dir, "agents", self.manifest.agents.as_ref(), true)
    }

    /// Its command folders: `commands/` and the folders and files its manifest adds.
    pub fn command_dirs(&self) -> (Vec<PathBuf>, Vec<PluginError>) {
        contributed_dirs(&self.dir, "commands", self.manifest.commands.as_ref(), true)
    }

    /// Its skill folders: `skills/` and those its manifest adds.
    pub fn skill_dirs(&self) -> (Vec<PathBuf>, Vec<PluginError>) {
        contributed_dirs(&self.dir, "skills", self.manifest.skills.as_ref(), false)
    }

    /// Its hooks, unparsed, with the file they come from: `hooks/hooks.json`, the file its
    /// manifest names, or the manifest itself when it holds them. `None` when it has none.
    pub fn hooks(&self) -> Result<Option<(PathBuf, Value)>, PluginError> {
        file_or_value(&self.dir, self.manifest.hooks.as_ref(), "hooks/hooks.json")
    }

    /// Its MCP servers (`.mcp.json`'s `mcpServers`, or what its manifest gives), unexpanded,
    /// with the file they come from. `None` when it has none.
    pub fn mcp_servers(&self) -> Result<Option<(PathBuf, Value)>, PluginError> {
        let found = file_or_value(&self.dir, self.manifest.mcp_servers.as_ref(), ".mcp.json")?;
        Ok(found.map(|(path, value)| match value {
            Value::Object(mut object) if object.contains_key("mcpServers") => {
                let servers = object.remove("mcpServers").unwrap_or_default();
                (path, servers)
            }
            other => (path, other),
        }))
    }

    /// Whether it has anything that runs: hooks or MCP servers.
    pub fn runs_code(&self) -> bool {
        let has = |found: Result<Option<(PathBuf, Value)>, PluginError>| match found {
            Ok(Some((_, value))) => value.as_object().is_none_or(|map| !map.is_empty()),
            Ok(None) => false,
            // Unreadable is not nothing: count it, so it is not called harmless.
            Err(_) => true,
        };
        has(self.hooks()) || has(self.mcp_servers())
    }
}

/// The installed plugins and what reading them met.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PluginSet {
    /// The plugins, the project's first, each name once.
    pub plugins: Vec<InstalledPlugin>,
    /// Unreadable registries and manifests, missing folders, hidden plugins.
    pub warnings: Vec<PluginError>,
}

impl PluginSet {
    /// The plugin named `name`.
    pub fn get(&self, name: &str) -> Option<&InstalledPlugin> {
        self.plugins.iter().find(|plugin| plugin.name() == name)
    }
}

/// Every plugin installed for `locations` (the project's, then the user's).
pub fn installed_plugins(locations: &Locations) -> PluginSet {
    let mut set = PluginSet::default();
    for root in plugin_roots(locations) {
        let registry = match read_registry(&root.path) {
            Ok(registry) => registry,
            Err(error) => {
                set.warnings.push(error);
                continue;
            }
        };
        for (name, record) in registry.plugins {
            match load_installed(&root, &name, record) {
                Ok(plugin) => match set.get(plugin.name()) {
                    Some(_) => set.warnings.push(PluginError::Shadowed {
                        name: plugin.record.name,
                        hidden: plugin.dir,
                    }),
                    None => set.plugins.push(plugin),
                },
                Err(error) => set.warnings.push(error),
            }
        }
    }
    set
}

/// The plugin `name` of the registry of `root`, read from its folder.
fn load_installed(
    root: &PluginRoot,
    name: &str,
    mut record: PluginRecord,
) -> Result<InstalledPlugin, PluginError> {
    let registry = root.path.join(REGISTRY_FILE);
    if !is_valid_plugin_name(name) {
        return Err(PluginError::InvalidName {
            name: name.to_owned(),
            path: registry,
        });
    }
    record.name = name.to_owned();
    let folder = root.path.join(name);
    let missing = || PluginError::Missing {
        name: name.to_owned(),
        registry: registry.clone(),
    };
    let meta = std::fs::symlink_metadata(&folder).map_err(|_| missing())?;
    if !meta.is_dir() {
        // A link or a file where the plugin's folder should be is not the plugin installed.
        return Err(PluginError::NotAFolder { path: folder });
    }
    let dir = folder.canonicalize().map_err(|_| missing())?;
    let manifest_file = dir.join(MANIFEST_DIR).join(PLUGIN_MANIFEST);
    let manifest = if manifest_file.exists() {
        read_plugin_manifest(&dir)?
    } else {
        PluginManifest {
            name: name.to_owned(),
            version: record.version.clone(),
            description: record.description.clone(),
            ..PluginManifest::default()
        }
    };
    Ok(InstalledPlugin {
        record,
        manifest,
        dir,
        scope: root.scope,
    })
}

#[cfg(test)]
mod tests;
