//! Configuration as a front end shows and edits it: file locations, the layered settings and
//! where each key came from, and the trust kept per project (what a project may loosen, the
//! MCP server scripts a person approved).

pub use crate::trust::{
    RecordedFile, RecordedServerFiles, TrustStatus, changed_policy_files, current_file_hash,
};
pub use agentctl_config::{
    ConfigWarning, LoadedSettings, Locations, Loosening, LooseningReason, PROJECT_POLICY_FILES,
    ProjectRecord, ProjectTrust, ScriptChange, SettingsLayer, TrustStore, load_settings,
    settings_schema,
};
