//! Where agentctl's files live, and its layered settings.
//!
//! [`Locations`] finds the agentctl home (`$AGENTCTL_HOME`, default `~/.agentctl`), the user's
//! home (for `~/.claude` and `~/.gemini`) and the project root. [`load_settings`] layers the
//! built-in defaults, `$AGENTCTL_HOME/settings.json` and `<project>/.agentctl/settings.json`
//! into one [`agentctl_core::Settings`] and remembers which layer set each value
//! ([`LoadedSettings::entries`]). Errors name the file, line, column and key; unknown keys are
//! warnings, not errors.
//!
//! A project's settings are written by whoever wrote the project: values of the project layer
//! that loosen the user's policy (approvals, sandbox, network, roots, tool risk, providers that
//! would send a key elsewhere, MCP servers that read the user's environment, …) apply only
//! once the user trusts the project ([`LoadedSettings::loosenings`], [`ProjectTrust`]). The
//! [`TrustStore`] records that trust per project path with the SHA-256 of its
//! [`PROJECT_POLICY_FILES`], and the hashes of the files project MCP servers run
//! ([`server_scripts`]), trusted on first use.
//!
//! [`read_input_file`] is how agentctl reads its own input files (settings, agent files,
//! cassettes): regular files only, never more than a stated limit, never a blocking open;
//! [`check_yaml_aliases`] keeps a small YAML file from expanding into a huge document.

mod input;
mod locations;
mod settings;
mod trust;
mod yaml;

pub use input::{
    FileKind, InputFileError, InputLimit, InputProblem, MAX_AGENT_FILE_BYTES, MAX_CASSETTE_BYTES,
    MAX_SCRIPT_BYTES, MAX_SETTINGS_BYTES, MAX_TRUST_FILE_BYTES, read_input_bytes, read_input_file,
    read_listed_input_bytes,
};
pub use locations::{HOME_ENV, Locations, PROJECT_MARKERS};
pub use settings::{
    ConfigError, ConfigWarning, LayerHooks, LoadOptions, LoadedSettings, SettingEntry,
    SettingsLayer, load_settings, load_settings_with, settings_schema,
};
pub use trust::{
    Loosening, LooseningReason, PROJECT_POLICY_FILES, ProjectRecord, ProjectTrust, ScriptChange,
    ScriptRecord, ServerScript, TRUST_DIR, TRUST_FILE, TrustError, TrustStore, TrustedFiles,
    server_scripts,
};
pub use yaml::{
    MAX_AGENT_ALIAS_VALUES, MAX_CASSETTE_ALIAS_VALUES, YamlAliasError, check_yaml_aliases,
};
