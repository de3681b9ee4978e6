//! Layered settings: built-in defaults, then `$AGENTCTL_HOME/settings.json`, then
//! `<project>/.agentctl/settings.json`, later layers winning key by key.
//!
//! Each file is checked on its own against the file format ([`raw`]), so an error names the
//! file, the line and column and the key path; keys agentctl does not know are warnings. The
//! checked layers are then deep-merged ([`merge`]) while the origin of every leaf is recorded,
//! which is what `agentctl config show --origin` prints.

mod layer;
mod merge;
mod raw;

pub use layer::SettingsLayer;

use crate::input::{InputFileError, InputLimit, read_input_bytes, read_input_file};
use crate::locations::Locations;
use crate::trust::{
    self, Baselines, Loosening, PROJECT_POLICY_FILES, ProjectTrust, TrustStore, sha256_hex,
};
use agentctl_core::{RiskLevel, Settings};
use merge::{Origins, concatenate_hooks, leaves, merge_layer};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A settings file could not be read, or was refused unread: not a regular file (a FIFO,
    /// a device), larger than [`MAX_SETTINGS_BYTES`](crate::MAX_SETTINGS_BYTES), not UTF-8.
    #[error(transparent)]
    Read(#[from] InputFileError),
    /// A settings file is not valid JSON.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A settings file is valid JSON but a value has the wrong type or is not allowed.
    #[error("{path}:{line}:{column}: {}{message}", key.as_deref().map(|key| format!("{key}: ")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line (where the bad value ends).
        line: usize,
        /// 1-based column (where the bad value ends).
        column: usize,
        /// Dotted path of the key, e.g. `agents.sharedContextMaxMessages`; `None` when the
        /// whole file is of the wrong type.
        key: Option<String>,
        /// What is wrong, e.g. `invalid type: string "many", expected u32`.
        message: String,
    },
    /// The merged layers do not form valid settings (a bug in the merge, not in a file).
    #[error("cannot combine the settings layers: {message}")]
    Resolve {
        /// What is wrong.
        message: String,
    },
}

/// Something in a settings file that was ignored but deserves a look.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigWarning {
    /// A key agentctl does not know (a typo, or a key of a newer version).
    UnknownKey {
        /// The file.
        path: PathBuf,
        /// Dotted path of the key, e.g. `agents.defaultContextMod`.
        key: String,
    },
    /// A value agentctl does not know, left out (the lower layers' value stays).
    UnknownValue {
        /// The file.
        path: PathBuf,
        /// Dotted path of the key, e.g. `agents.tracing.backend`.
        key: String,
        /// The value as written.
        value: String,
        /// The values it takes.
        expected: String,
    },
    /// Top-level keys of a Gemini CLI or Claude Code settings file that are that tool's
    /// own, not read.
    NotRead {
        /// The file.
        path: PathBuf,
        /// Whose settings they are: `Gemini CLI`, `Claude Code`.
        owner: &'static str,
        /// The keys, sorted.
        keys: Vec<String>,
    },
    /// A project value that loosens the user's policy, not applied because the project is
    /// not trusted (trusting the project at `project` applies it).
    Untrusted {
        /// The project's settings file.
        path: PathBuf,
        /// The project root, the folder to trust.
        project: PathBuf,
        /// The value and why it is looser.
        loosening: Loosening,
    },
    /// A permission rule agentctl cannot map onto its tools, left out (never applied).
    UnmappedRule {
        /// The file.
        path: PathBuf,
        /// The list it is in: `permissions.allow`, `permissions.ask` or `permissions.deny`.
        key: String,
        /// The rule as written.
        rule: String,
        /// Why it cannot be mapped.
        reason: String,
    },
    /// A value only the user's own settings may set, found in a project's file and ignored
    /// (trusting the project does not apply it).
    UserOnly {
        /// The project's file.
        path: PathBuf,
        /// Dotted path of the key, e.g. `approvals.allowBypassPermissions`.
        key: String,
    },
    /// The trust store could not be read: every project counts as untrusted.
    TrustStore {
        /// The store's file.
        path: PathBuf,
        /// Why it could not be read.
        message: String,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigWarning::UnknownKey { path, key } => {
                write!(f, "{}: unknown key `{key}` ignored", path.display())
            }
            ConfigWarning::NotRead { path, owner, keys } => write!(
                f,
                "{}: not read ({owner}'s own settings): {}",
                path.display(),
                keys.iter()
                    .map(|key| format!("`{key}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ConfigWarning::UnknownValue {
                path,
                key,
                value,
                expected,
            } => write!(
                f,
                "{}: `{key}`: unknown value `{value}` ignored (expected {expected})",
                path.display()
            ),
            ConfigWarning::Untrusted {
                path, loosening, ..
            } => write!(
                f,
                "{}: `{}` ignored, the project is not trusted: it {}",
                path.display(),
                loosening.key,
                loosening.reason
            ),
            ConfigWarning::UnmappedRule {
                path,
                key,
                rule,
                reason,
            } => write!(
                f,
                "{}: `{key}`: rule `{rule}` not applied: {reason}",
                path.display()
            ),
            ConfigWarning::UserOnly { path, key } => write!(
                f,
                "{}: `{key}` is ignored: only your own settings (the global file) may set it",
                path.display()
            ),
            ConfigWarning::TrustStore { message, .. } => {
                write!(f, "{message}; every project counts as untrusted")
            }
        }
    }
}

/// What the caller knows that settings files do not say.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The risk of built-in tools by name: a project's `tools.risk` override below it loosens
    /// the policy. A tool not listed (an MCP tool) is taken to be `high`.
    pub tool_risk: BTreeMap<String, RiskLevel>,
}

/// One resolved setting: a leaf key, its value and the layer that set it.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingEntry<'a> {
    /// Dotted key path, e.g. `agents.defaultContextMode` or `mcpServers.github.command`.
    pub key: String,
    /// The resolved value (arrays and empty objects are single values).
    pub value: Value,
    /// The layer that set it; [`SettingsLayer::Default`] for built-in values.
    pub origin: &'a SettingsLayer,
}

/// The resolved settings and where they came from.
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    /// The merged settings.
    pub settings: Settings,
    /// The layers that were applied, lowest precedence first; always starts with
    /// [`SettingsLayer::Default`].
    pub layers: Vec<SettingsLayer>,
    /// Settings files that were looked for but do not exist.
    pub missing: Vec<SettingsLayer>,
    /// Ignored keys and values, by file.
    pub warnings: Vec<ConfigWarning>,
    /// Whether the project's policy files are trusted.
    pub trust: ProjectTrust,
    /// Every value of the project layer that loosens the user's policy, applied or not.
    pub loosenings: Vec<Loosening>,
    /// SHA-256 of each project policy file that exists, by path relative to the project root,
    /// hashed from the very bytes loaded: what trusting the project records.
    pub policy_hashes: BTreeMap<String, String>,
    /// Names of the MCP servers the project layer defines (they run sandboxed).
    pub project_servers: BTreeSet<String>,
    /// Index into `layers` of the layer that set each leaf; absent means the default.
    origins: Origins,
    /// Index into `layers` of the layer of each `hooks` group, by event: hooks add up across
    /// layers, so each group has its own origin.
    hook_origins: BTreeMap<String, Vec<usize>>,
    /// Index into `layers` of the layer that first wrote each permission rule, by list
    /// (`permissions.deny`) and rule.
    rule_origins: BTreeMap<(String, String), usize>,
}

impl LoadedSettings {
    /// Wraps settings that did not come from files: every value is attributed to the
    /// built-in defaults. For tests and embedders.
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            layers: vec![SettingsLayer::Default],
            missing: Vec::new(),
            warnings: Vec::new(),
            trust: ProjectTrust::NotNeeded,
            loosenings: Vec::new(),
            policy_hashes: BTreeMap::new(),
            project_servers: BTreeSet::new(),
            origins: Origins::new(),
            hook_origins: BTreeMap::new(),
            rule_origins: BTreeMap::new(),
        }
    }

    /// The project values that loosen the user's policy and were not applied.
    pub fn ignored(&self) -> impl Iterator<Item = &Loosening> {
        self.loosenings
            .iter()
            .filter(|loosening| !loosening.applied)
    }

    /// The layer that set the leaf `key` (dotted path); [`SettingsLayer::Default`] for keys
    /// no file set, including keys that do not exist.
    pub fn origin(&self, key: &str) -> &SettingsLayer {
        self.origins
            .get(key)
            .and_then(|index| self.layers.get(*index))
            .unwrap_or(&SettingsLayer::Default)
    }

    /// Every resolved leaf setting with its value and origin, sorted by key. Each
    /// permission rule is an entry of its own (`permissions.deny` = `"Bash(rm:*)"`), with
    /// the file that wrote it.
    ///
    /// ```
    /// use agentctl_config::{LoadedSettings, SettingsLayer};
    ///
    /// let loaded = LoadedSettings::new(agentctl_core::Settings::default());
    /// let entries = loaded.entries();
    /// let mode = entries.iter().find(|e| e.key == "agents.defaultContextMode").unwrap();
    /// assert_eq!(mode.value, "isolated");
    /// assert_eq!(mode.origin, &SettingsLayer::Default);
    /// ```
    pub fn entries(&self) -> Vec<SettingEntry<'_>> {
        let resolved = self.to_value();
        let mut entries: Vec<_> = leaves(&resolved)
            .into_iter()
            .flat_map(|(key, value)| self.entries_of(key, value))
            .collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        entries
    }

    /// The entries of one leaf: itself, each rule of a permission list with the layer that
    /// wrote it, or each group of a `hooks` list with its own origin (`hooks.PreToolUse[1]`).
    fn entries_of(&self, key: String, value: &Value) -> Vec<SettingEntry<'_>> {
        if let Value::Array(rules) = value
            && merge::JOINED.contains(&key.as_str())
        {
            return rules
                .iter()
                .map(|rule| SettingEntry {
                    origin: self.rule_origin(&key, rule),
                    value: rule.clone(),
                    key: key.clone(),
                })
                .collect();
        }
        let groups = key
            .strip_prefix("hooks.")
            .and_then(|event| self.hook_origins.get(event))
            .zip(value.as_array());
        let Some((layers, groups)) = groups else {
            return vec![SettingEntry {
                origin: self.origin(&key),
                value: value.clone(),
                key,
            }];
        };
        groups
            .iter()
            .enumerate()
            .map(|(index, group)| SettingEntry {
                key: format!("{key}[{index}]"),
                value: group.clone(),
                origin: layers
                    .get(index)
                    .and_then(|layer| self.layers.get(*layer))
                    .unwrap_or(&SettingsLayer::Default),
            })
            .collect()
    }

    /// The layer that first wrote `rule` into the list `key` (`permissions.deny`).
    fn rule_origin(&self, key: &str, rule: &Value) -> &SettingsLayer {
        rule.as_str()
            .and_then(|rule| self.rule_origins.get(&(key.to_owned(), rule.to_owned())))
            .and_then(|index| self.layers.get(*index))
            .unwrap_or(&SettingsLayer::Default)
    }

    /// Records which layer wrote each permission rule of `value`, the keys layer `index`
    /// sets.
    fn note_rules(&mut self, value: &Map<String, Value>, index: usize) {
        let Some(Value::Object(permissions)) = value.get("permissions") else {
            return;
        };
        for (list, rules) in permissions {
            for rule in rules
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                self.rule_origins
                    .entry((format!("permissions.{list}"), rule.to_owned()))
                    .or_insert(index);
            }
        }
    }

    /// The resolved settings as JSON, in the shape of `settings.json`.
    pub fn to_value(&self) -> Value {
        let mut value =
            serde_json::to_value(&self.settings).unwrap_or_else(|_| Value::Object(Map::new()));
        // A listing never shows the store's password (`postgres://user:***@host/db`).
        if let Some(Value::String(url)) = value.pointer_mut("/store/url") {
            *url = mask_password(url);
        }
        value
    }
}

/// `url` with the password of its user info masked: `postgres://me:secret@db/x` →
/// `postgres://me:***@db/x`.
fn mask_password(url: &str) -> String {
    let Some(start) = url.find("://").map(|at| at + 3) else {
        return url.to_owned();
    };
    let rest = &url[start..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => {
            format!("{}:***{}", &url[..start + colon], &url[start + at..])
        }
        _ => url.to_owned(),
    }
}

/// Loads and layers the settings files found at `locations`, with [`LoadOptions::default`].
///
/// A missing file is skipped (and listed in [`LoadedSettings::missing`]); an empty file counts
/// as `{}`. Unknown keys become [`LoadedSettings::warnings`]. Project values that loosen the
/// user's policy apply only when the project is trusted (see [`trust`](crate::TrustStore)).
///
/// ```
/// let home = tempfile::tempdir().unwrap();
/// std::fs::write(home.path().join("settings.json"), r#"{"agents": {"tracing": true}}"#).unwrap();
/// let locations = agentctl_config::Locations {
///     agentctl_home: home.path().to_path_buf(),
///     user_home: None,
///     project_root: None,
/// };
/// let loaded = agentctl_config::load_settings(&locations).unwrap();
/// assert!(loaded.settings.agents.tracing.enabled);
/// assert_eq!(loaded.origin("agents.tracing").name(), "global");
/// ```
pub fn load_settings(locations: &Locations) -> Result<LoadedSettings, ConfigError> {
    load_settings_with(locations, &LoadOptions::default())
}

/// [`load_settings`] with what the caller knows of built-in tools.
pub fn load_settings_with(
    locations: &Locations,
    options: &LoadOptions,
) -> Result<LoadedSettings, ConfigError> {
    let candidates = candidate_layers(locations);

    let mut merged = Map::new();
    let mut origins = Origins::new();
    let mut hooks = Map::new();
    let mut loaded = LoadedSettings::new(Settings::default());
    if let Ok(Value::Object(defaults)) = serde_json::to_value(Settings::default()) {
        merge_layer(&mut merged, defaults, "", 0, &mut origins);
    }
    for layer in candidates {
        let Some(path) = layer.path() else { continue };
        let text = match read_input_file(path, InputLimit::SETTINGS) {
            Ok(text) => text,
            Err(error) if error.is_not_found() => {
                // Gemini CLI's and Claude Code's files are only there for those who use them.
                if !layer.is_other_tools() {
                    loaded.missing.push(layer);
                }
                continue;
            }
            Err(error) => return Err(error.into()),
        };
        let mut parsed = layer.parse(path, &text)?;
        loaded.warnings.extend(parsed.warnings);
        if layer.is_project() {
            loaded
                .warnings
                .extend(strip_user_only(&mut parsed.value, path));
        }
        let value = match (&layer, &locations.project_root) {
            (layer, Some(root)) if layer.is_project() => {
                let context = ProjectLayer {
                    root,
                    path,
                    text: &text,
                    store: TrustStore::new(&locations.agentctl_home),
                };
                context.review(&merged, parsed.value, options, &mut loaded)?
            }
            _ => parsed.value,
        };
        let value = concatenate_hooks(
            value,
            &mut hooks,
            loaded.layers.len(),
            &mut loaded.hook_origins,
        );
        loaded.note_rules(&value, loaded.layers.len());
        merge_layer(&mut merged, value, "", loaded.layers.len(), &mut origins);
        loaded.layers.push(layer);
    }
    loaded.settings =
        serde_json::from_value(Value::Object(merged)).map_err(|error| ConfigError::Resolve {
            message: error.to_string(),
        })?;
    loaded.origins = origins;
    loaded.settings.hook_origins = loaded
        .hook_origins
        .iter()
        .map(|(event, layers)| {
            let names = layers
                .iter()
                .map(|index| {
                    loaded
                        .layers
                        .get(*index)
                        .map_or_else(|| "settings".to_owned(), ToString::to_string)
                })
                .collect();
            (event.clone(), names)
        })
        .collect();
    Ok(loaded)
}

/// The settings files, lowest precedence first: Gemini CLI's, Claude Code's and agentctl's
/// global ones, then the project's (Gemini CLI's, `.mcp.json`, Claude Code's shared and
/// local ones, agentctl's): each tool's file below agentctl's own at the same scope. A file two layers would name (`AGENTCTL_HOME` pointing at the project's own
/// `.agentctl`, a project that is the home folder) is read once, as the first.
fn candidate_layers(locations: &Locations) -> Vec<SettingsLayer> {
    let root = locations.project_root.as_deref();
    let layers = [
        locations
            .gemini_global_settings_file()
            .map(SettingsLayer::GeminiGlobal),
        locations
            .user_home
            .as_ref()
            .map(|home| SettingsLayer::ClaudeGlobal(home.join(".claude").join("settings.json"))),
        Some(SettingsLayer::Global(locations.global_settings_file())),
        root.map(|root| SettingsLayer::GeminiProject(root.join(".gemini").join("settings.json"))),
        root.map(|root| SettingsLayer::McpJson(root.join(".mcp.json"))),
        root.map(|root| SettingsLayer::ClaudeProject(root.join(".claude").join("settings.json"))),
        root.map(|root| {
            SettingsLayer::ClaudeLocal(root.join(".claude").join("settings.local.json"))
        }),
        locations
            .project_settings_file()
            .map(SettingsLayer::Project),
    ];
    let mut candidates: Vec<SettingsLayer> = Vec::new();
    for layer in layers.into_iter().flatten() {
        if !candidates.iter().any(|seen| seen.path() == layer.path()) {
            candidates.push(layer);
        }
    }
    candidates
}

/// The project layer being loaded.
struct ProjectLayer<'a> {
    root: &'a Path,
    path: &'a Path,
    text: &'a str,
    store: TrustStore,
}

impl ProjectLayer<'_> {
    /// Decides the project's trust, finds its loosening values and returns what of the layer
    /// applies; records the outcome in `loaded`.
    fn review(
        &self,
        user: &Map<String, Value>,
        value: Map<String, Value>,
        options: &LoadOptions,
        loaded: &mut LoadedSettings,
    ) -> Result<Map<String, Value>, ConfigError> {
        loaded.policy_hashes = self.policy_hashes()?;
        loaded.trust = trust::assess(&self.store, self.root, &loaded.policy_hashes);
        if let ProjectTrust::Unreadable(message) = &loaded.trust {
            loaded.warnings.push(ConfigWarning::TrustStore {
                path: self.store.path(),
                message: message.clone(),
            });
        }
        let baselines = Baselines {
            tool_risk: Some(&options.tool_risk),
        };
        let (kept, findings) = trust::review(user, &value, &baselines);
        let applied = loaded.trust.is_trusted();
        for finding in findings {
            let loosening = Loosening {
                key: finding.key,
                value: finding.value,
                reason: finding.reason,
                applied,
            };
            if !applied {
                loaded.warnings.push(ConfigWarning::Untrusted {
                    path: self.path.to_path_buf(),
                    project: self.root.to_path_buf(),
                    loosening: loosening.clone(),
                });
            }
            loaded.loosenings.push(loosening);
        }
        let value = if applied { value } else { kept };
        let servers = value.get("mcpServers").and_then(Value::as_object);
        loaded.project_servers.extend(
            servers
                .into_iter()
                .flat_map(|servers| servers.keys().cloned()),
        );
        Ok(value)
    }

    /// SHA-256 of each policy file that exists; the settings file is hashed from the text
    /// loaded, so what is trusted is what was read.
    fn policy_hashes(&self) -> Result<BTreeMap<String, String>, ConfigError> {
        let mut hashes = BTreeMap::new();
        for file in PROJECT_POLICY_FILES {
            let path = self.root.join(file);
            let hash = if path == self.path {
                sha256_hex(self.text.as_bytes())
            } else {
                match read_input_bytes(&path, InputLimit::SETTINGS) {
                    Ok(bytes) => sha256_hex(&bytes),
                    Err(error) if error.is_not_found() => continue,
                    Err(error) => return Err(error.into()),
                }
            };
            hashes.insert((*file).to_owned(), hash);
        }
        Ok(hashes)
    }
}

/// JSON Schema of `settings.json`.
pub fn settings_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Settings)).unwrap_or_default()
}

/// Keys only the user's own settings may set: a project cannot let its agents skip approvals.
const USER_ONLY: &[(&str, &str)] = &[("approvals", "allowBypassPermissions")];

/// Removes from a project file's `value` what only the user's own settings may set, with a
/// warning for each.
fn strip_user_only(value: &mut Map<String, Value>, path: &Path) -> Vec<ConfigWarning> {
    let mut warnings = Vec::new();
    for (section, key) in USER_ONLY {
        let removed = match value.get_mut(*section) {
            Some(Value::Object(entries)) => entries.remove(*key).is_some(),
            _ => false,
        };
        if removed {
            warnings.push(ConfigWarning::UserOnly {
                path: path.to_path_buf(),
                key: format!("{section}.{key}"),
            });
        }
    }
    warnings
}
