//! Built-in agentctl tools, risk rating and the one approval policy pipeline.
//!
//! - The built-in tools ([`builtin_tools`]: `read_file`, `read_many_files`, `grep`, `glob`,
//!   `write_file`, `edit_file`, `bash`, `delete_file`, `web_fetch`, `web_search`) implement
//!   the `Tool` trait of `agentctl-core`. The file and shell tools are confined to the call's
//!   working directory, the project root ([`ProjectRoot`]); the web tools reach only public
//!   addresses unless the `web.*` settings allow more, and nothing when the sandbox settings
//!   turn the network off.
//! - [`RiskClassifier`] rates a call: settings overrides, for `bash` the command line itself
//!   ([`classify_command`]), else the tool's own declared risk.
//! - [`Gate`] is the one policy chain — agent tool list, risk, [protected paths](protection),
//!   [auto-approved levels](AutoApprove), remembered answers — answering one
//!   [`Decision`](agentctl_core::Decision); when a person must answer, its caller asks them
//!   ([`Gate::question`]) and applies the answer ([`Gate::answer`]); [`Gate::list`] shows an
//!   agent's tools through the same chain.
//!
//! ```
//! use agentctl_core::{Decision, RiskLevel, ToolFilter};
//! use agentctl_tools::{AutoApprove, Gate, RiskClassifier, builtin_tools};
//! use serde_json::json;
//!
//! let gate = Gate::new(AutoApprove::default(), RiskClassifier::new());
//! let bash = builtin_tools().into_iter().find(|tool| tool.name() == "bash").unwrap();
//! let decision = gate.evaluate(&ToolFilter::allow_all(), bash.as_ref(), &json!({"command": "rm -rf target"}));
//! assert!(matches!(decision, Decision::Ask { risk: RiskLevel::High, .. }));
//! ```

mod approval;
mod bash;
mod config;
mod gate;
mod grants;
mod levels;
mod mode;
mod open;
mod paths;
mod protected;
mod read;
mod risk;
mod rules;
mod search;
mod shell;
mod util;
mod web;
mod write;

pub use approval::{ApprovalAnswer, ApprovalRequest};
pub use bash::{DEFAULT_TIMEOUT_SECS, MAX_STREAM_BYTES, MAX_TIMEOUT_SECS};
pub use config::BuiltinToolsConfig;
pub use gate::{Gate, ToolListing};
pub use grants::ReadGrants;
pub use levels::{AutoApprove, YES_LEVELS};
pub use paths::{LastLink, PathError, ProjectRoot, ToolPath, check_characters};
pub use protected::{Protection, protection};
pub use read::{MAX_MANY_BYTES, MAX_MANY_FILES, MAX_READ_BYTES, MAX_READ_LINES, read_confined};
pub use risk::{RiskClassifier, RiskLevelError};
pub use rules::{PermissionRules, RuleVerdict};
pub use search::{MAX_GLOB_RESULTS, MAX_GREP_RESULTS};
pub use shell::{RiskAssessment, classify_command, classify_command_protecting};
pub use web::{
    DEFAULT_SEARCH_RESULTS, DEFAULT_WEB_TIMEOUT_SECS, MAX_FETCH_OUTPUT_BYTES, MAX_REDIRECTS,
    MAX_SEARCH_RESULTS,
};

use agentctl_core::{Tool, ToolRegistry};
use std::sync::Arc;

/// Registers the ten built-in tools, configured by `config` (sandbox, environment, time
/// limits, `web.*`), replacing tools of the same names.
///
/// ```
/// use agentctl_core::ToolRegistry;
/// use agentctl_tools::{BuiltinToolsConfig, register_builtin_tools};
///
/// let mut registry = ToolRegistry::new();
/// let settings = agentctl_core::Settings::default();
/// register_builtin_tools(&mut registry, &BuiltinToolsConfig::from_settings(&settings));
/// assert!(registry.get("bash").is_some());
/// ```
pub fn register_builtin_tools(registry: &mut ToolRegistry, config: &BuiltinToolsConfig) {
    registry.register_typed(read::ReadFile::new(config.read_grants().clone()));
    registry.register_typed(read::ReadManyFiles);
    registry.register_typed(search::Grep);
    registry.register_typed(search::Glob);
    registry.register_typed(write::WriteFile::new(config.read_grants().clone()));
    registry.register_typed(write::EditFile::new(config.read_grants().clone()));
    registry.register_typed(bash::Bash::new(config));
    registry.register_typed(write::DeleteFile);
    registry.register_typed(web::WebFetch::new(config));
    registry.register_typed(web::WebSearch::new(config));
}

/// The ten built-in tools with the default [`BuiltinToolsConfig`], sorted by name.
///
/// ```
/// let names: Vec<_> = agentctl_tools::builtin_tools().iter().map(|t| t.name().to_owned()).collect();
/// assert_eq!(names.len(), agentctl_core::BUILTIN_TOOLS.len());
/// ```
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
    let mut registry = ToolRegistry::new();
    register_builtin_tools(&mut registry, &BuiltinToolsConfig::default());
    registry
        .names()
        .filter_map(|name| registry.get(name).cloned())
        .collect()
}
