//! Tools an agent gets by declaring something in its front matter rather than by listing
//! them: `handoff_to_<agent>` for each `handoffs:` entry, `memory_get`/`memory_set` for
//! `memory.session` keys, `remember`/`recall` for `memory.longTerm`, and `read_file`,
//! `write_file` and `edit_file` for a memory folder (`memory: project`; Claude Code enables
//! Read, Write and Edit for it).
//!
//! A declaration is the agent's author saying "this agent uses these tools", so they are
//! offered whatever `tools.allow` says (an allow list written for the built-in tools,
//! `[read_file, grep]`, does not silently switch a handoff off); an explicit `tools.deny`
//! entry, by name or pattern, still removes them. [`ToolFilter::for_agent`] applies the rule
//! for the agent loop, the approval gate, the MCP manager and `agents tools` alike.
//!
//! `task` is not among them: no field declares delegation, so an agent gets `task` from its
//! tool lists (no allow list, or `task` in it) like any other tool.
//!
//! [`ToolFilter::for_agent`]: crate::ToolFilter::for_agent

use crate::agent::AgentSpec;

/// Name of the session memory reading tool (`memory.session` keys).
pub const MEMORY_GET_TOOL: &str = "memory_get";
/// Name of the session memory writing tool (`memory.session` keys).
pub const MEMORY_SET_TOOL: &str = "memory_set";
/// Name of the long-term memory storing tool (`memory.longTerm`).
pub const REMEMBER_TOOL: &str = "remember";
/// Name of the long-term memory searching tool (`memory.longTerm`).
pub const RECALL_TOOL: &str = "recall";
/// What every handoff tool's name starts with.
pub const HANDOFF_TOOL_PREFIX: &str = "handoff_to_";

/// The tool name of a handoff to `agent`.
///
/// ```
/// assert_eq!(agentctl_core::handoff_tool_name("code-fixer"), "handoff_to_code-fixer");
/// ```
pub fn handoff_tool_name(agent: &str) -> String {
    [HANDOFF_TOOL_PREFIX, agent].concat()
}

/// What declares a [`DeclaredTool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declaration {
    /// The `handoffs:` entry at this index.
    Handoff(usize),
    /// `memory.session` keys.
    SessionMemory,
    /// `memory.longTerm`.
    LongTermMemory,
    /// A memory folder (`memory.scope`).
    MemoryFolder,
}

/// The file tools a memory folder brings: reading, writing and editing its notes.
pub const MEMORY_FOLDER_TOOLS: [&str; 3] = ["read_file", "write_file", "edit_file"];

/// A tool an agent gets by declaring something, and what declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredTool {
    /// The tool's name.
    pub name: String,
    /// The declaration that brings it.
    pub declared_by: Declaration,
}

impl AgentSpec {
    /// The tools this agent gets by declaring them, in the order of the front matter:
    /// handoffs, then session memory, long-term memory and the memory folder. A handoff with an empty target
    /// brings nothing (`agents validate` reports it).
    ///
    /// ```
    /// use agentctl_core::{AgentSpec, Declaration, Handoff, MemorySpec};
    ///
    /// let spec = AgentSpec {
    ///     name: "analyzer".into(),
    ///     handoffs: vec![Handoff { to: "code-fixer".into(), ..Handoff::default() }],
    ///     memory: Some(MemorySpec { session: vec!["analysis".into()], long_term: None, scope: None }),
    ///     ..AgentSpec::default()
    /// };
    /// let names: Vec<String> = spec.declared_tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(names, ["handoff_to_code-fixer", "memory_get", "memory_set"]);
    /// assert_eq!(spec.declared_tools()[0].declared_by, Declaration::Handoff(0));
    /// ```
    pub fn declared_tools(&self) -> Vec<DeclaredTool> {
        let handoffs = self
            .handoffs
            .iter()
            .enumerate()
            .filter(|(_, handoff)| !handoff.to.trim().is_empty())
            .map(|(index, handoff)| DeclaredTool {
                name: handoff_tool_name(&handoff.to),
                declared_by: Declaration::Handoff(index),
            });
        let memory = self.memory.as_ref();
        let session = memory
            .filter(|memory| !memory.session.is_empty())
            .into_iter()
            .flat_map(|_| [MEMORY_GET_TOOL, MEMORY_SET_TOOL])
            .map(|name| DeclaredTool {
                name: name.to_owned(),
                declared_by: Declaration::SessionMemory,
            });
        let long_term = memory
            .filter(|memory| memory.long_term.is_some())
            .into_iter()
            .flat_map(|_| [REMEMBER_TOOL, RECALL_TOOL])
            .map(|name| DeclaredTool {
                name: name.to_owned(),
                declared_by: Declaration::LongTermMemory,
            });
        let folder = memory
            .filter(|memory| memory.scope.is_some())
            .into_iter()
            .flat_map(|_| MEMORY_FOLDER_TOOLS)
            .map(|name| DeclaredTool {
                name: name.to_owned(),
                declared_by: Declaration::MemoryFolder,
            });
        handoffs
            .chain(session)
            .chain(long_term)
            .chain(folder)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Handoff, LongTermMemory, MemorySpec};

    #[test]
    fn every_declaration_brings_its_tools_in_front_matter_order() {
        let spec = AgentSpec {
            name: "a".into(),
            handoffs: vec![
                Handoff {
                    to: "b".into(),
                    ..Handoff::default()
                },
                Handoff {
                    to: " ".into(),
                    ..Handoff::default()
                },
                Handoff {
                    to: "c".into(),
                    ..Handoff::default()
                },
            ],
            memory: Some(MemorySpec {
                session: vec!["k".into()],
                long_term: Some(LongTermMemory::default()),
                scope: None,
            }),
            ..AgentSpec::default()
        };
        let tools: Vec<(String, Declaration)> = spec
            .declared_tools()
            .into_iter()
            .map(|tool| (tool.name, tool.declared_by))
            .collect();
        assert_eq!(
            tools,
            [
                ("handoff_to_b".to_owned(), Declaration::Handoff(0)),
                ("handoff_to_c".to_owned(), Declaration::Handoff(2)),
                ("memory_get".to_owned(), Declaration::SessionMemory),
                ("memory_set".to_owned(), Declaration::SessionMemory),
                ("remember".to_owned(), Declaration::LongTermMemory),
                ("recall".to_owned(), Declaration::LongTermMemory),
            ]
        );
    }

    #[test]
    fn nothing_declared_brings_nothing() {
        let spec = AgentSpec {
            name: "a".into(),
            memory: Some(MemorySpec::default()),
            ..AgentSpec::default()
        };
        assert!(spec.declared_tools().is_empty());
    }
}
