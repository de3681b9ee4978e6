//! [`Source`]: what wrote a message or started a run — the front end (`cli`, `repl`, `mcp`)
//! or the mechanism (`task`, `handoff`, `graph`) — stored in the `source` columns of
//! `chat_messages` and `agent_runs` so the inspection queries can tell them apart.

use crate::error::ContextError;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// Longest source name accepted.
const MAX_LEN: usize = 32;

/// What wrote a message or started a run.
///
/// The names agentctl writes are the associated constants; an embedder may name its own front
/// end (`web`, `telegram`, …) with [`Source::new`], which accepts 1–32 lowercase ASCII letters,
/// digits, `-` and `_`, starting with a letter. Values read back from a file are taken as
/// stored, so a newer agentctl's names never make a row unreadable.
///
/// ```
/// use agentctl_store::Source;
/// assert_eq!(Source::default(), Source::CLI);
/// assert_eq!(Source::new("web")?.as_str(), "web");
/// assert_eq!("repl".parse::<Source>()?, Source::REPL);
/// assert!(Source::new("Web UI").is_err());
/// # Ok::<(), agentctl_store::ContextError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source(Cow<'static, str>);

impl Source {
    /// The command line, one prompt at a time (`agentctl run`, `chat -p`); the default.
    pub const CLI: Source = Source(Cow::Borrowed("cli"));
    /// The interactive REPL (`agentctl chat`, `run -i`).
    pub const REPL: Source = Source(Cow::Borrowed("repl"));
    /// An agent served as an MCP tool (`agentctl mcp serve`).
    pub const MCP: Source = Source(Cow::Borrowed("mcp"));
    /// A sub-agent run started by the `task` tool, and what it writes.
    pub const TASK: Source = Source(Cow::Borrowed("task"));
    /// A run started by another agent's handoff.
    pub const HANDOFF: Source = Source(Cow::Borrowed("handoff"));
    /// A node of a graph run.
    pub const GRAPH: Source = Source(Cow::Borrowed("graph"));
    /// A program embedding agentctl through its library API.
    pub const API: Source = Source(Cow::Borrowed("api"));

    /// A source of the caller's own naming; [`ContextError::InvalidSource`] unless it is 1–32
    /// lowercase ASCII letters, digits, `-` or `_`, starting with a letter.
    pub fn new(name: impl Into<String>) -> Result<Self, ContextError> {
        let name = name.into();
        let valid = name.len() <= MAX_LEN
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if valid {
            Ok(Source(Cow::Owned(name)))
        } else {
            Err(ContextError::InvalidSource(name))
        }
    }

    /// A value read from a store, taken as written (a newer agentctl's names stay readable).
    /// For store implementations; a name of the caller's own goes through [`Source::new`].
    pub fn stored(name: String) -> Self {
        Source(Cow::Owned(name))
    }

    /// The stored name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Source {
    fn default() -> Self {
        Source::CLI
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Source {
    type Err = ContextError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Source::new(text)
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        for good in ["cli", "web", "telegram-bot", "a_1", &"x".repeat(32)] {
            assert_eq!(Source::new(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "Web",
            "1cli",
            "-x",
            "a b",
            "a;drop",
            "é",
            &"x".repeat(33),
        ] {
            assert!(Source::new(bad).is_err(), "{bad}");
        }
        assert_eq!(Source::new("cli").unwrap(), Source::CLI);
    }
}
