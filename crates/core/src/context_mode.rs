//! Which conversation history an agent sees: shared by agent files, run events and trace spans.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which conversation history an agent sees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContextMode {
    /// The agent has its own history.
    #[default]
    Isolated,
    /// The agent sees the main session's history.
    Shared,
    /// Each run gets a fresh workspace; only its summary returns to the timeline.
    Run,
}

impl ContextMode {
    /// The lowercase name used in files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextMode::Isolated => "isolated",
            ContextMode::Shared => "shared",
            ContextMode::Run => "run",
        }
    }
}

impl fmt::Display for ContextMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
