//! Context scopes: which workspace (reasoning context) a message belongs to; context modes as
//! stored.

use crate::error::{ContextError, Result};
use agentctl_core::ContextMode;
use std::fmt;
use std::str::FromStr;

/// Parses `isolated`, `shared` or `run`.
///
/// ```
/// use agentctl_core::ContextMode;
/// assert_eq!(agentctl_store::parse_mode("shared").unwrap(), ContextMode::Shared);
/// assert!(agentctl_store::parse_mode("global").is_err());
/// ```
pub fn parse_mode(text: &str) -> Result<ContextMode> {
    match text {
        "isolated" => Ok(ContextMode::Isolated),
        "shared" => Ok(ContextMode::Shared),
        "run" => Ok(ContextMode::Run),
        other => Err(ContextError::InvalidMode(other.to_owned())),
    }
}

/// A workspace of a session: the history one agent reasons over.
///
/// The timeline (what the user sees) is separate: it is the session's visible messages,
/// whatever their scope. Scopes are written as strings in the store and on the command line:
///
/// ```
/// use agentctl_store::ContextScope;
/// let scope: ContextScope = "sub:tester:r7".parse().unwrap();
/// assert_eq!(scope, ContextScope::Sub { agent: "tester".into(), run: "r7".into() });
/// assert_eq!(scope.to_string(), "sub:tester:r7");
/// assert_eq!(ContextScope::agent("reviewer").to_string(), "agent:reviewer");
/// assert!("elsewhere".parse::<ContextScope>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContextScope {
    /// The main session history, which shared agents see.
    Main,
    /// An isolated agent's own history, kept across runs of the session.
    Agent(String),
    /// A fresh workspace for one run (`run` mode).
    Run(String),
    /// A sub-agent's workspace inside a parent run; never shown in the timeline.
    Sub {
        /// The sub-agent.
        agent: String,
        /// The run id.
        run: String,
    },
}

impl ContextScope {
    /// An isolated agent's scope.
    pub fn agent(name: impl Into<String>) -> Self {
        ContextScope::Agent(name.into())
    }

    /// A run's fresh scope.
    pub fn run(id: impl fmt::Display) -> Self {
        ContextScope::Run(id.to_string())
    }

    /// A sub-agent's scope inside a run.
    pub fn sub(agent: impl Into<String>, run: impl fmt::Display) -> Self {
        ContextScope::Sub {
            agent: agent.into(),
            run: run.to_string(),
        }
    }

    /// True for sub-agent scopes, whose messages never reach the timeline.
    pub fn is_sub(&self) -> bool {
        matches!(self, ContextScope::Sub { .. })
    }
}

impl fmt::Display for ContextScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextScope::Main => f.write_str("main"),
            ContextScope::Agent(name) => write!(f, "agent:{name}"),
            ContextScope::Run(id) => write!(f, "run:{id}"),
            ContextScope::Sub { agent, run } => write!(f, "sub:{agent}:{run}"),
        }
    }
}

impl FromStr for ContextScope {
    type Err = ContextError;

    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        let invalid = || ContextError::InvalidScope(text.to_owned());
        let non_empty = |part: &str| {
            if part.is_empty() {
                Err(invalid())
            } else {
                Ok(part.to_owned())
            }
        };
        if text == "main" {
            return Ok(ContextScope::Main);
        }
        if let Some(name) = text.strip_prefix("agent:") {
            return non_empty(name).map(ContextScope::Agent);
        }
        if let Some(id) = text.strip_prefix("run:") {
            return non_empty(id).map(ContextScope::Run);
        }
        if let Some(rest) = text.strip_prefix("sub:") {
            // Agent names are kebab-case and never hold `:`; the run id is the last part.
            let (agent, run) = rest.rsplit_once(':').ok_or_else(invalid)?;
            return Ok(ContextScope::Sub {
                agent: non_empty(agent)?,
                run: non_empty(run)?,
            });
        }
        Err(invalid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for text in ["main", "agent:a-b", "run:42", "sub:x:9"] {
            let scope: ContextScope = text.parse().unwrap();
            assert_eq!(scope.to_string(), text);
        }
        for bad in ["", "agent:", "run:", "sub:x", "sub::1", "sub:x:", "Main"] {
            assert!(bad.parse::<ContextScope>().is_err(), "{bad}");
        }
    }
}
