//! Layered settings loading.
//!
//! Minimal first version: the config helper replaces it with origin tracking, located JSON
//! errors and warnings for unknown keys, keeping this public API.

use crate::locations::Locations;
use agentctl_core::Settings;
use std::path::PathBuf;

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A settings file could not be read.
    #[error("{path}: cannot read settings: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A settings file is not valid JSON or has a value of the wrong type.
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
}

/// One source of settings, in precedence order (later wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsLayer {
    /// Built-in defaults.
    Default,
    /// `$AGENTCTL_HOME/settings.json`.
    Global(PathBuf),
    /// `<project>/.agentctl/settings.json`.
    Project(PathBuf),
}

/// The resolved settings and where they came from.
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    /// The merged settings.
    pub settings: Settings,
    /// The layers that were applied, lowest precedence first.
    pub layers: Vec<SettingsLayer>,
}

/// Loads and layers the settings files found at `locations`.
pub fn load_settings(locations: &Locations) -> Result<LoadedSettings, ConfigError> {
    let mut merged = serde_json::to_value(Settings::default()).unwrap_or_default();
    let mut layers = vec![SettingsLayer::Default];
    let candidates = std::iter::once(SettingsLayer::Global(locations.global_settings_file()))
        .chain(locations.project_settings_file().map(SettingsLayer::Project));
    for layer in candidates {
        let (SettingsLayer::Global(path) | SettingsLayer::Project(path)) = &layer else {
            continue;
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(ConfigError::Read { path: path.clone(), source }),
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            ConfigError::Parse {
                path: path.clone(),
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            }
        })?;
        merge(&mut merged, value);
        layers.push(layer);
    }
    let settings = serde_json::from_value(merged).map_err(|e| ConfigError::Parse {
        path: PathBuf::from("settings"),
        line: 0,
        column: 0,
        message: e.to_string(),
    })?;
    Ok(LoadedSettings { settings, layers })
}

/// JSON Schema of `settings.json`.
pub fn settings_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Settings)).unwrap_or_default()
}

fn merge(base: &mut serde_json::Value, overlay: serde_json::Value) {
    match (base, overlay) {
        (serde_json::Value::Object(base), serde_json::Value::Object(overlay)) => {
            for (key, value) in overlay {
                merge(base.entry(key).or_insert(serde_json::Value::Null), value);
            }
        }
        (base, overlay) => *base = overlay,
    }
}
