//! Permission modes (Claude Code's `permissionMode`): how much of the approval policy an agent
//! runs under is decided for it before anyone is asked.
//!
//! A mode only ever adjusts the one policy chain (the gate): deny rules, the agent's tool
//! lists and protected paths hold in every mode. Modes are ordered from strictest to loosest
//! ([`PermissionMode::Plan`] < `Default` < `AcceptEdits` < `BypassPermissions`) so that a
//! sub-agent's mode can be held to its parent's: [`PermissionMode::within`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What an agent's tool calls meet before a person is asked.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Read-only tools only: every call rated above `safe` is refused, with a reason the
    /// model reads.
    Plan,
    /// The settings' approval levels, as without a mode.
    #[default]
    Default,
    /// File edits (`write_file`, `edit_file`) run without asking; other risks as usual.
    AcceptEdits,
    /// Every call but a critical one runs without asking — only where the user's own
    /// settings grant it to the session's gate; an agent file alone runs as `default`, with a
    /// warning.
    BypassPermissions,
}

impl PermissionMode {
    /// The name as written in agent files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plan => "plan",
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::BypassPermissions => "bypassPermissions",
        }
    }

    /// This mode held to `parent`'s: the stricter of the two, so that a sub-agent never runs
    /// with a looser mode than the agent that started it.
    ///
    /// ```
    /// use agentctl_core::PermissionMode;
    ///
    /// assert_eq!(PermissionMode::AcceptEdits.within(PermissionMode::Plan), PermissionMode::Plan);
    /// assert_eq!(PermissionMode::Plan.within(PermissionMode::AcceptEdits), PermissionMode::Plan);
    /// ```
    pub fn within(self, parent: PermissionMode) -> PermissionMode {
        self.min(parent)
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
