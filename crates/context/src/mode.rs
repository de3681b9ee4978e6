//! Which context mode an agent runs in, and why.
//!
//! Precedence, highest first: the runtime flag (`--context`), the session override
//! (`agentctl context NAME --mode`), the agent file's `contextMode`, the settings'
//! `agents.defaultContextMode`, then `isolated`. `agents.allowSharedContext: false` refuses a
//! shared result whatever layer asked for it.

use agentctl_core::{AgentsSettings, ContextMode};
use agentctl_store::{ContextError, Result};
use serde::Serialize;
use std::fmt;

/// The layer that decided an agent's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModeSource {
    /// The runtime flag (`--context`).
    Flag,
    /// A per-session override (`agentctl context NAME --mode`).
    SessionOverride,
    /// The agent file's `contextMode`.
    AgentFile,
    /// `agents.defaultContextMode` in the settings.
    Settings,
    /// Nothing set it: `isolated`.
    Default,
}

impl ModeSource {
    /// How the source is named in output (`session override`, `agent file`, …).
    pub fn label(self) -> &'static str {
        match self {
            ModeSource::Flag => "--context flag",
            ModeSource::SessionOverride => "session override",
            ModeSource::AgentFile => "agent file",
            ModeSource::Settings => "settings",
            ModeSource::Default => "default",
        }
    }
}

impl fmt::Display for ModeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The layers that may set an agent's mode, as gathered by the caller.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModeInputs {
    /// `--context` for this run.
    pub flag: Option<ContextMode>,
    /// The session's override for this agent.
    pub session_override: Option<ContextMode>,
    /// The agent file's `contextMode`.
    pub agent_file: Option<ContextMode>,
}

/// The resolved mode of one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ResolvedMode {
    /// The mode the agent runs in.
    pub mode: ContextMode,
    /// The layer that set it.
    pub source: ModeSource,
    /// The mode without the flag and the session override (the agent file, settings or
    /// default): what `agentctl context` calls the original mode.
    pub original: ContextMode,
    /// The layer that set [`original`](Self::original).
    pub original_source: ModeSource,
}

/// Resolves an agent's context mode and enforces `agents.allowSharedContext`.
///
/// ```
/// use agentctl_context::{resolve_mode, ModeInputs, ModeSource};
/// use agentctl_core::{AgentsSettings, ContextMode};
///
/// let settings = AgentsSettings::default();
/// let inputs = ModeInputs {
///     session_override: Some(ContextMode::Shared),
///     agent_file: Some(ContextMode::Isolated),
///     ..ModeInputs::default()
/// };
/// let resolved = resolve_mode("reviewer", inputs, &settings).unwrap();
/// assert_eq!(resolved.mode, ContextMode::Shared);
/// assert_eq!(resolved.source, ModeSource::SessionOverride);
/// assert_eq!(resolved.original, ContextMode::Isolated);
///
/// let locked = AgentsSettings { allow_shared_context: false, ..AgentsSettings::default() };
/// assert!(resolve_mode("reviewer", inputs, &locked).is_err());
/// ```
pub fn resolve_mode(
    agent: &str,
    inputs: ModeInputs,
    settings: &AgentsSettings,
) -> Result<ResolvedMode> {
    let (original, original_source) = match inputs.agent_file {
        Some(mode) => (mode, ModeSource::AgentFile),
        // Settings always hold a value; a non-default one was set by some layer.
        None if settings.default_context_mode != ContextMode::Isolated => {
            (settings.default_context_mode, ModeSource::Settings)
        }
        None => (ContextMode::Isolated, ModeSource::Default),
    };
    let (mode, source) = match (inputs.flag, inputs.session_override) {
        (Some(mode), _) => (mode, ModeSource::Flag),
        (None, Some(mode)) => (mode, ModeSource::SessionOverride),
        (None, None) => (original, original_source),
    };
    if mode == ContextMode::Shared && !settings.allow_shared_context {
        return Err(ContextError::SharedContextDisabled {
            agent: agent.to_owned(),
            source_layer: source.label().to_owned(),
        });
    }
    Ok(ResolvedMode {
        mode,
        source,
        original,
        original_source,
    })
}
