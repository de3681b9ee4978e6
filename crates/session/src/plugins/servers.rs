//! What enabled plugins run, decided from the folders alone (no project needed, so the
//! project's loading can use it): which plugins may run code ([`PluginState`]), and their MCP
//! servers added to the settings' as `plugin:server` with `${CLAUDE_PLUGIN_ROOT}` expanded.

use agentctl_config::{LoadedSettings, Locations, TrustStore, server_scripts};
use agentctl_core::{McpServerConfig, Scope};
use agentctl_definitions::{Discovery, InstalledPlugin, Severity, installed_plugins};
use serde_json::Value;
use std::path::Path;

/// The variable a plugin's files use for the folder it is installed in.
pub const PLUGIN_ROOT_VAR: &str = "${CLAUDE_PLUGIN_ROOT}";

/// Whether what a plugin runs (hooks, MCP servers) may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginState {
    /// Not enabled: its prompts are available, nothing of it runs.
    Disabled,
    /// Enabled: its hooks and servers run.
    Enabled,
    /// A project's plugin enabled in the project's registry, whose files the user has not
    /// approved on this machine (or that changed since): nothing of it runs until it is
    /// enabled again.
    NotApproved,
}

impl PluginState {
    /// `disabled`, `enabled` or `not-approved`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Enabled => "enabled",
            Self::NotApproved => "not-approved",
        }
    }
}

/// The trust-store key under which a project plugin's files are recorded.
pub(super) fn trust_key(plugin: &InstalledPlugin) -> String {
    format!("plugin:{}", plugin.name())
}

/// The regular files of `plugin`, as the trust store hashes them (relative to `root`).
pub(super) fn plugin_files(
    plugin: &InstalledPlugin,
    root: &Path,
) -> Result<Vec<agentctl_config::ServerScript>, String> {
    let files: Vec<String> = walkdir::WalkDir::new(&plugin.dir)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .take(super::MAX_PLUGIN_FILES)
        .map(|entry| entry.path().display().to_string())
        .collect();
    let words: Vec<&str> = files.iter().map(String::as_str).collect();
    server_scripts(root, root, &words).map_err(|error| error.to_string())
}

/// The state of `plugin` for `locations` (a project's plugin is checked against `store`).
pub(super) fn state_of(
    plugin: &InstalledPlugin,
    locations: &Locations,
    store: &TrustStore,
) -> PluginState {
    if !plugin.record.enabled {
        return PluginState::Disabled;
    }
    let Some(root) = locations.project_root.as_deref() else {
        return PluginState::Enabled;
    };
    if plugin.scope != Scope::Project {
        return PluginState::Enabled;
    }
    let Ok(Some(record)) = store.project(root) else {
        return PluginState::NotApproved;
    };
    let Some(recorded) = record.scripts.get(&trust_key(plugin)) else {
        return PluginState::NotApproved;
    };
    match plugin_files(plugin, root) {
        Ok(files)
            if files.iter().all(|file| {
                recorded
                    .get(&file.relative)
                    .is_some_and(|old| old.sha256 == file.sha256)
            }) =>
        {
            PluginState::Enabled
        }
        _ => PluginState::NotApproved,
    }
}

/// The plugins whose code may run for `locations`.
pub(super) fn running(locations: &Locations) -> Vec<InstalledPlugin> {
    let store = TrustStore::new(&locations.agentctl_home);
    installed_plugins(locations)
        .plugins
        .into_iter()
        .filter(|plugin| state_of(plugin, locations, &store) == PluginState::Enabled)
        .collect()
}

/// Adds the MCP servers of every plugin whose code may run to `loaded`'s, as
/// `plugin:server` (a server the settings define under that name wins), with
/// `${CLAUDE_PLUGIN_ROOT}` expanded. A project's plugin's servers are project servers: they
/// run confined and their files are checked like the project's own. A plugin never marks
/// its own server trusted. Servers that cannot be read are left out.
pub(crate) fn add_plugin_servers(locations: &Locations, loaded: &mut LoadedSettings) {
    for plugin in running(locations) {
        let Ok(Some((_, Value::Object(servers)))) = plugin.mcp_servers() else {
            continue;
        };
        let root = plugin.dir.display().to_string();
        for (name, value) in servers {
            let value = expand_root(value, &root);
            let Ok(mut config) = serde_json::from_value::<McpServerConfig>(value) else {
                continue;
            };
            config.trust = false;
            let key = format!("{}:{name}", plugin.name());
            if loaded.settings.mcp_servers.contains_key(&key) {
                continue;
            }
            if plugin.scope == Scope::Project {
                loaded.project_servers.insert(key.clone());
            }
            loaded.settings.mcp_servers.insert(key, config);
        }
    }
}

/// `value` with `${CLAUDE_PLUGIN_ROOT}` replaced by `root` in every string.
pub(super) fn expand_root(value: Value, root: &str) -> Value {
    match value {
        Value::String(text) => Value::String(text.replace(PLUGIN_ROOT_VAR, root)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| expand_root(item, root))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, item)| (key, expand_root(item, root)))
                .collect(),
        ),
        other => other,
    }
}

/// Takes from the agents of plugins whose code may not run what would run code: their
/// inline MCP servers and their hooks (Claude Code's subagent `hooks`), each with a warning
/// saying why. Their prompts stay.
pub(crate) fn disarm_agents(discovery: &mut Discovery, locations: &Locations) {
    let plugins = installed_plugins(locations);
    if plugins.plugins.is_empty() {
        return;
    }
    let running: Vec<String> = running(locations)
        .iter()
        .map(|plugin| plugin.name().to_owned())
        .collect();
    let agents = discovery
        .agents
        .iter_mut()
        .chain(
            discovery
                .invalid
                .iter_mut()
                .map(|invalid| &mut invalid.agent),
        )
        .chain(
            discovery
                .shadowed
                .iter_mut()
                .map(|shadowed| &mut shadowed.agent),
        );
    for agent in agents {
        let Some(plugin) = agent.plugin().map(str::to_owned) else {
            continue;
        };
        if running.contains(&plugin) {
            continue;
        }
        let definition = &mut agent.definition;
        let hooks = definition.extra.remove(HOOKS_FIELD).is_some();
        let inline = !definition.spec.mcp.inline.is_empty();
        definition.spec.mcp.inline.clear();
        let taken = [
            (HOOKS_FIELD, "hooks", hooks),
            ("mcp.inline", "inline MCP servers", inline),
        ];
        for (field, what, _) in taken.into_iter().filter(|(_, _, found)| *found) {
            let message = format!(
                "plugin `{plugin}` is not enabled: the agent's {what} do not run until it is"
            );
            let warning = agent.diagnostic(Severity::Warning, field, message);
            agent.warnings.push(warning);
        }
    }
}

/// The front-matter field of an agent's own hooks.
const HOOKS_FIELD: &str = "hooks";
