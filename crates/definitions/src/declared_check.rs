//! Tools brought by declarations (handoffs, memory) in validation: a declaration whose tools
//! `tools.deny` removes does nothing, and a handoff tool named in a tool list without the
//! `handoffs:` entry that brings it names nothing — each reported at its field.

use crate::error::{Diagnostic, Severity};
use crate::parse::LoadedAgent;
use agentctl_core::{Declaration, HANDOFF_TOOL_PREFIX, ToolFilter, ToolPolicy};

/// A warning for each declaration some of whose tools `tools.deny` removes, located at the
/// declaration and naming the deny entries that remove them.
pub(crate) fn denied_declarations(agent: &LoadedAgent) -> Vec<Diagnostic> {
    let spec = &agent.definition.spec;
    if spec.tools.deny.is_empty() {
        return Vec::new();
    }
    let Ok(filter) = ToolFilter::for_agent(spec) else {
        // An invalid pattern is reported by the run and by the field checks.
        return Vec::new();
    };
    let mut denied: Vec<(Declaration, Vec<String>)> = Vec::new();
    for tool in spec.declared_tools() {
        if filter.allows(&tool.name) {
            continue;
        }
        match denied.iter_mut().find(|(by, _)| *by == tool.declared_by) {
            Some((_, names)) => names.push(tool.name),
            None => denied.push((tool.declared_by, vec![tool.name])),
        }
    }
    denied
        .into_iter()
        .map(|(declaration, tools)| {
            let entries = deny_entries(&spec.tools.deny, &tools);
            let listed = tools
                .iter()
                .map(|tool| format!("`{tool}`"))
                .collect::<Vec<_>>()
                .join(" and ");
            let (field, what) = match declaration {
                Declaration::Handoff(index) => (
                    format!("handoffs[{index}].to"),
                    format!(
                        "the handoff to `{}` is never offered",
                        spec.handoffs[index].to
                    ),
                ),
                Declaration::SessionMemory => (
                    "memory.session".to_owned(),
                    "the session memory keys cannot be read or set".to_owned(),
                ),
                Declaration::LongTermMemory => (
                    agent
                        .exact_field(&["memory.longTerm", "memory.long_term"])
                        .to_owned(),
                    "the long-term memory cannot be used".to_owned(),
                ),
                Declaration::MemoryFolder => (
                    agent.exact_field(&["memory.scope", "memory"]).to_owned(),
                    "the memory folder cannot be read or changed with these tools".to_owned(),
                ),
            };
            agent.diagnostic(
                Severity::Warning,
                &field,
                format!(
                    "{what}: tools.deny ({entries}) removes {listed}; drop the entry, or the \
                     declaration"
                ),
            )
        })
        .collect()
}

/// The deny entries, as written and where, that remove any of `tools`.
fn deny_entries(deny: &[String], tools: &[String]) -> String {
    deny.iter()
        .enumerate()
        .filter(|(_, entry)| {
            let alone = ToolPolicy {
                allow: None,
                deny: vec![(*entry).clone()],
            };
            ToolFilter::new(&alone)
                .is_ok_and(|filter| tools.iter().any(|tool| !filter.allows(tool)))
        })
        .map(|(i, entry)| format!("tools.deny[{i}] `{entry}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// For a `handoff_to_<agent>` named in a tool list: `None` when a `handoffs:` entry of the
/// agent brings it (the listing is redundant but harmless), else why it names nothing.
pub(crate) fn undeclared_handoff_tool(agent: &LoadedAgent, tool: &str) -> Option<String> {
    let target = tool.strip_prefix(HANDOFF_TOOL_PREFIX)?;
    let declared = agent
        .definition
        .spec
        .handoffs
        .iter()
        .any(|handoff| handoff.to == target);
    (!declared).then(|| {
        format!(
            "`{tool}` exists only for a `handoffs:` entry to `{target}`, and this agent declares \
             none: add `handoffs: [{{to: {target}}}]` to offer it"
        )
    })
}
