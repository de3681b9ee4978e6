//! Built-in agentctl tools, risk classification and the approval gate.
//!
//! - The built-in tools ([`builtin_tools`]: `read_file`, `read_many_files`, `grep`, `glob`,
//!   `write_file`, `edit_file`, `bash`, `delete_file`) implement the runtime's
//!   [`Tool`](agentctl_runtime::Tool) trait and are confined to the call's working directory,
//!   the project root ([`ProjectRoot`]).
//! - [`RiskClassifier`] rates a call: settings overrides, built-in defaults, and for `bash` the
//!   command line itself ([`classify_command`]).
//! - [`ApprovalPolicy::decide`] turns tool + risk + the agent's tool list into one [`Decision`];
//!   a [`Gate`] adds the user ([`Approver`]) and session memory and returns a
//!   [`DecisionRecord`] for the event stream.
//! - [`effective_tools`] lists what an agent may do with each tool.
//!
//! ```
//! use agentctl_runtime::RiskLevel;
//! use agentctl_tools::{ApprovalPolicy, Decision, RiskClassifier};
//! use serde_json::json;
//!
//! let classifier = RiskClassifier::new();
//! let risk = classifier.classify_name("bash", RiskLevel::Medium, &json!({"command": "rm -rf target"}));
//! let policy = ApprovalPolicy::default();
//! assert_eq!(
//!     policy.decide("bash", risk, true),
//!     Decision::NeedsApproval { risk: RiskLevel::High, reason: "rm -rf removes files recursively".into() }
//! );
//! ```

mod approval;
mod approver;
mod bash;
mod config;
mod effective;
mod gate;
mod paths;
mod read;
mod risk;
mod search;
mod shell;
mod util;
mod write;

pub use agentctl_runtime::{DecidedBy, DecisionRecord, Verdict};
pub use approval::{ApprovalPolicy, Decision, YES_LEVELS, not_allowed};
pub use approver::{
    ApprovalAnswer, ApprovalRequest, Approver, NonTerminalApprover, TerminalApprover,
    default_approver, parse_answer, render_prompt,
};
pub use bash::{DEFAULT_TIMEOUT_SECS, MAX_STREAM_BYTES, MAX_TIMEOUT_SECS};
pub use config::BuiltinToolsConfig;
pub use effective::{EffectiveDecision, EffectiveTool, effective_tools};
pub use gate::Gate;
pub use paths::{PathError, ProjectRoot, check_characters};
pub use read::{MAX_MANY_BYTES, MAX_MANY_FILES, MAX_READ_BYTES, MAX_READ_LINES};
pub use risk::{DEFAULT_RISKS, RiskClassifier, RiskLevelError, from_annotations, parse_risk_level};
pub use search::{MAX_GLOB_RESULTS, MAX_GREP_RESULTS};
pub use shell::{RiskAssessment, classify_command};

use agentctl_runtime::{Tool, ToolRegistry};
use std::sync::Arc;

/// Registers the eight built-in tools, configured by `config` (sandbox, environment, time
/// limits), replacing tools of the same names.
///
/// ```
/// use agentctl_runtime::ToolRegistry;
/// use agentctl_tools::{BuiltinToolsConfig, register_builtin_tools};
///
/// let mut registry = ToolRegistry::new();
/// let settings = agentctl_core::Settings::default();
/// register_builtin_tools(&mut registry, &BuiltinToolsConfig::from_settings(&settings));
/// assert!(registry.get("bash").is_some());
/// ```
pub fn register_builtin_tools(registry: &mut ToolRegistry, config: &BuiltinToolsConfig) {
    registry.register_typed(read::ReadFile);
    registry.register_typed(read::ReadManyFiles);
    registry.register_typed(search::Grep);
    registry.register_typed(search::Glob);
    registry.register_typed(write::WriteFile);
    registry.register_typed(write::EditFile);
    registry.register_typed(bash::Bash::new(config));
    registry.register_typed(write::DeleteFile);
}

/// The eight built-in tools with the default [`BuiltinToolsConfig`], sorted by name.
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
