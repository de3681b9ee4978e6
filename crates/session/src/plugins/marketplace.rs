//! `.claude-plugin/marketplace.json`: a catalogue of plugins, each a folder of the
//! marketplace or a git repository of its own.

use super::PluginOpError;
use super::fetch::{Source, check_git_url, github_url};
use agentctl_config::{InputLimit, read_input_file};
use agentctl_definitions::{
    MANIFEST_DIR, MAX_MANIFEST_BYTES, PluginError, confined_path, is_valid_plugin_name,
};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A marketplace's manifest, in [`MANIFEST_DIR`].
pub const MARKETPLACE_MANIFEST: &str = "marketplace.json";
/// Most plugins a marketplace may list.
pub const MAX_MARKETPLACE_PLUGINS: usize = 2000;

/// A marketplace's manifest.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Marketplace {
    /// Its name.
    pub name: String,
    /// Its plugins.
    #[serde(default)]
    pub plugins: Vec<MarketplaceEntry>,
}

/// One plugin a marketplace lists.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct MarketplaceEntry {
    /// The plugin's name.
    pub name: String,
    /// Where it is: `./plugins/x`, a git URL, or `{source: github, repo}` /
    /// `{source: url|git, url}`.
    pub source: Value,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Its version.
    #[serde(default)]
    pub version: Option<String>,
}

/// Whether `dir` is a marketplace (it has `.claude-plugin/marketplace.json`).
pub(crate) fn is_marketplace(dir: &Path) -> bool {
    dir.join(MANIFEST_DIR).join(MARKETPLACE_MANIFEST).is_file()
}

/// Reads `dir`'s marketplace manifest: at most [`MAX_MANIFEST_BYTES`] and
/// [`MAX_MARKETPLACE_PLUGINS`] plugins, each with a valid name.
pub(crate) fn read_marketplace(dir: &Path) -> Result<Marketplace, PluginOpError> {
    let path = dir.join(MANIFEST_DIR).join(MARKETPLACE_MANIFEST);
    let limit = InputLimit {
        what: "marketplace manifests",
        max_bytes: MAX_MANIFEST_BYTES,
    };
    let text = read_input_file(&path, limit).map_err(|error| {
        PluginOpError::Plugin(PluginError::Read {
            path: path.clone(),
            message: error.to_string(),
        })
    })?;
    let marketplace: Marketplace = serde_json::from_str(&text).map_err(|error| {
        PluginOpError::Plugin(PluginError::Manifest {
            path: path.clone(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        })
    })?;
    if marketplace.plugins.len() > MAX_MARKETPLACE_PLUGINS {
        return Err(PluginOpError::TooManyPlugins {
            path,
            limit: MAX_MARKETPLACE_PLUGINS,
        });
    }
    if let Some(entry) = marketplace
        .plugins
        .iter()
        .find(|entry| !is_valid_plugin_name(&entry.name))
    {
        return Err(PluginOpError::Plugin(PluginError::InvalidName {
            name: entry.name.clone(),
            path,
        }));
    }
    Ok(marketplace)
}

impl MarketplaceEntry {
    /// Where the plugin is: a folder of the marketplace at `root` (confined to it) or a git
    /// repository (checked).
    pub(crate) fn locate(&self, root: &Path) -> Result<Source, PluginOpError> {
        let invalid = || PluginOpError::EntrySource {
            plugin: self.name.clone(),
            written: self.source.to_string(),
        };
        match &self.source {
            Value::String(text)
                if text.contains("://")
                    || text.contains("::")
                    || text.starts_with(['-', '@'])
                    || text.starts_with("git@") =>
            {
                check_git_url(text)?;
                Ok(Source::Git(text.clone()))
            }
            Value::String(relative) => {
                let path: PathBuf = confined_path(root, relative)?;
                if path.is_dir() {
                    Ok(Source::Folder(path))
                } else {
                    Err(PluginOpError::NotFound(path))
                }
            }
            Value::Object(object) => {
                let field = |key: &str| object.get(key).and_then(Value::as_str);
                match (field("source"), field("repo"), field("url")) {
                    (Some("github"), Some(repo), _) => Ok(Source::Git(github_url(repo)?)),
                    (Some("url" | "git"), _, Some(url)) => {
                        check_git_url(url)?;
                        Ok(Source::Git(url.to_owned()))
                    }
                    _ => Err(invalid()),
                }
            }
            _ => Err(invalid()),
        }
    }
}
