//! A plugin's `.claude-plugin/plugin.json` and the folders and files it contributes, every
//! path confined to the plugin's own folder.

use super::PluginError;
use agentctl_config::{InputLimit, read_input_file};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// The folder of a plugin's or marketplace's manifest.
pub const MANIFEST_DIR: &str = ".claude-plugin";
/// A plugin's manifest, in [`MANIFEST_DIR`].
pub const PLUGIN_MANIFEST: &str = "plugin.json";
/// Largest manifest read (a plugin's or a marketplace's).
pub const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// The limit manifests are read with.
pub(crate) const MANIFEST_LIMIT: InputLimit = InputLimit {
    what: "plugin manifests",
    max_bytes: MAX_MANIFEST_BYTES,
};

/// One path or several, as Claude Code's manifest fields take them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PathList {
    /// `"./agents"`.
    One(String),
    /// `["./agents", "./more"]`.
    Many(Vec<String>),
}

impl PathList {
    /// The paths, in order.
    pub fn paths(&self) -> Vec<&str> {
        match self {
            Self::One(path) => vec![path.as_str()],
            Self::Many(paths) => paths.iter().map(String::as_str).collect(),
        }
    }
}

/// `.claude-plugin/plugin.json`, as Claude Code defines it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginManifest {
    /// The plugin's name: kebab-case, the namespace of what it brings (`name:agent`).
    pub name: String,
    /// Its version, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its author (`{name, email, url}` or a string), as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Value>,
    /// More command folders (or single `.md` files) besides `commands/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<PathList>,
    /// More agent folders (or single `.md` files) besides `agents/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<PathList>,
    /// More skill folders besides `skills/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<PathList>,
    /// The hooks: a path to a `hooks.json` or the hooks themselves (default
    /// `hooks/hooks.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<Value>,
    /// The MCP servers: a path to a `.mcp.json` or the servers themselves (default
    /// `.mcp.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Value>,
}

/// Whether `name` can name a plugin: kebab-case, 1 to 64 characters (so never a path).
pub fn is_valid_plugin_name(name: &str) -> bool {
    crate::is_valid_name(name)
}

/// Reads and checks `dir`'s `.claude-plugin/plugin.json`.
pub fn read_plugin_manifest(dir: &Path) -> Result<PluginManifest, PluginError> {
    let path = dir.join(MANIFEST_DIR).join(PLUGIN_MANIFEST);
    let text = read_input_file(&path, MANIFEST_LIMIT).map_err(|error| PluginError::Read {
        path: path.clone(),
        message: error.to_string(),
    })?;
    let manifest: PluginManifest =
        serde_json::from_str(&text).map_err(|error| PluginError::Manifest {
            path: path.clone(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        })?;
    if !is_valid_plugin_name(&manifest.name) {
        return Err(PluginError::InvalidName {
            name: manifest.name,
            path,
        });
    }
    Ok(manifest)
}

/// `relative` inside `root` (a canonical folder): refused when it is absolute, climbs out
/// with `..`, or (once symbolic links are resolved) leads outside `root`. A path that does
/// not exist yet is checked as written.
pub fn confined_path(root: &Path, relative: &str) -> Result<PathBuf, PluginError> {
    let escape = || PluginError::Escapes {
        path: relative.to_owned(),
        root: root.to_path_buf(),
    };
    let written = Path::new(relative);
    if relative.is_empty() || relative.contains('\0') {
        return Err(escape());
    }
    let mut depth = 0usize;
    for component in written.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            _ => return Err(escape()),
        }
    }
    let joined = root.join(written);
    match joined.canonicalize() {
        Ok(real) if real.starts_with(root) => Ok(real),
        Ok(_) => Err(escape()),
        Err(_) => Ok(joined),
    }
}

/// The folders of one kind a plugin contributes: its default folder (if it exists) and those
/// its manifest adds, each confined to the plugin. With `files`, a manifest path may also name
/// a single Markdown file (`"agents": ["./agents/security.md"]`).
pub(crate) fn contributed_dirs(
    root: &Path,
    default: &str,
    extra: Option<&PathList>,
    files: bool,
) -> (Vec<PathBuf>, Vec<PluginError>) {
    let mut dirs = Vec::new();
    let mut errors = Vec::new();
    let written = std::iter::once(default).chain(extra.map(PathList::paths).unwrap_or_default());
    for relative in written {
        match confined_path(root, relative) {
            Ok(path) if path.is_dir() || files && is_markdown_file(&path) => {
                if !dirs.contains(&path) {
                    dirs.push(path);
                }
            }
            Ok(path) if path.exists() => errors.push(PluginError::NotAFolder { path }),
            Ok(_) => {}
            Err(error) => errors.push(error),
        }
    }
    (dirs, errors)
}

fn is_markdown_file(path: &Path) -> bool {
    path.is_file() && path.extension().is_some_and(|ext| ext == "md")
}

/// A JSON file or value a manifest field gives: a path to a file in the plugin, or the value
/// itself; `default` when the field is absent.
pub(crate) fn file_or_value(
    root: &Path,
    field: Option<&Value>,
    default: &str,
) -> Result<Option<(PathBuf, Value)>, PluginError> {
    let path = match field {
        Some(Value::String(relative)) => confined_path(root, relative)?,
        Some(value) => {
            let origin = root.join(MANIFEST_DIR).join(PLUGIN_MANIFEST);
            return Ok(Some((origin, value.clone())));
        }
        None => confined_path(root, default)?,
    };
    if !path.exists() {
        return Ok(None);
    }
    let text = read_input_file(&path, MANIFEST_LIMIT).map_err(|error| PluginError::Read {
        path: path.clone(),
        message: error.to_string(),
    })?;
    let value = serde_json::from_str(&text).map_err(|error| PluginError::Manifest {
        path: path.clone(),
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })?;
    Ok(Some((path, value)))
}
