//! Looking agents up by name, with a failed lookup in the command line's words: the located
//! errors of a broken file, or close names.

use agentctl_session::definitions::{AgentLookupError, Discovery, LoadedAgent};

/// The runnable agent called `name`, or an error that says why there is none: the located
/// errors of its file, or close names.
pub(crate) fn find<'a>(discovery: &'a Discovery, name: &str) -> anyhow::Result<&'a LoadedAgent> {
    discovery
        .require(name)
        .map_err(|error| anyhow::anyhow!(lookup_message(&error)))
}

/// The runnable agent `name` of a session, with a failed lookup in the CLI's words.
pub(crate) fn require(
    session: &agentctl_session::Session,
    name: &str,
) -> anyhow::Result<agentctl_core::AgentDefinition> {
    session.require_agent(name).map_err(|error| match error {
        agentctl_session::SessionError::Agent(lookup) => anyhow::anyhow!(lookup_message(&lookup)),
        other => other.into(),
    })
}

/// A failed lookup in the CLI's words. The located errors of a broken file each get a line
/// (the first after `error: `, the next after their own `error: `).
pub(crate) fn lookup_message(error: &AgentLookupError) -> String {
    match error {
        AgentLookupError::NotFound { name, similar } if similar.is_empty() => {
            format!("no agent named `{name}`: run `agentctl agents list` to see the agents found")
        }
        AgentLookupError::NotFound { name, similar } => {
            let similar: Vec<&str> = similar.iter().map(String::as_str).collect();
            format!(
                "no agent named `{name}`; did you mean {}?",
                quoted_list(&similar)
            )
        }
        other => {
            let lines: Vec<String> = other
                .diagnostics()
                .iter()
                .map(ToString::to_string)
                .collect();
            lines.join("\nerror: ")
        }
    }
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
